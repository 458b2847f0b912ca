// HTTPS rules: behind a trusted proxy plain HTTP is redirected; with TLS files the service
// serves HTTPS itself and its plain port only redirects (the redirect app is main.ts's). The
// redirect goes to PUBLIC_URL; else to the Host header (only one of ALLOWED_HOSTS when that is
// set); never to a host X-Forwarded-Host names, nor to a malformed Host.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { describe, expect } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { redirectEverything } from '../src/http/https.ts';
import { restErrors } from '../src/rest/errors.ts';
import { test } from './helpers/fixtures.ts';

/** node's fetch drops a Host header; http.request sends it as given. */
function rawGet(
  base: string,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(base + path, { headers }, (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode!, location: res.headers.location, body }));
      })
      .on('error', reject);
  });
}

const it = test
  /** Behind the proxy with PUBLIC_URL set. */
  .extend('published', { scope: 'file' }, ({ startApp }) =>
    startApp({ trustProxy: '1', publicOrigin: 'https://crm.example.com' }),
  )
  /** Behind the proxy with ALLOWED_HOSTS set. */
  .extend('allowed', { scope: 'file' }, ({ startApp }) =>
    startApp({ trustProxy: '1', allowedHosts: ['crm.example.com'] }),
  );
it.override('appOptions', { trustProxy: '1' });
// Names the other apps so that they, too, start before the tests, under the hook timeout.
it.beforeAll(({ published, allowed }) => void [published, allowed]);

/** Headers an attacker may send to point the redirect at their own host. */
const FORGED: Record<string, string>[] = [
  { host: 'evil.example' },
  { host: 'other.example', 'x-forwarded-host': 'crm.example.com' },
  { host: 'evil.example:443' },
  { host: '127.0.0.1@evil.example' },
  { host: 'localhost.evil.example' },
  { host: '[::1].evil.example' },
];
/** Host headers that are no host name at all: never put into a Location. */
const MALFORMED: Record<string, string>[] = [
  { host: '127.0.0.1@evil.example' },
  { host: '[::1].evil.example' },
  { host: 'evil.example/path' },
  { host: 'a b' },
  { host: '[evil.example]' },
];

describe('behind a trusted proxy', () => {
  it('301 to the same URL on PUBLIC_URL when X-Forwarded-Proto is http', async ({ published }) => {
    const r = await rawGet(published.base, '/v1/contacts?x=1', {
      host: 'crm.example.com',
      'x-forwarded-proto': 'http',
    });
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com/v1/contacts?x=1');
  });

  it.for(FORGED)('with PUBLIC_URL, forged headers %o still redirect to PUBLIC_URL', async (headers, { published }) => {
    const r = await rawGet(published.base, '/dashboard?a=b', { ...headers, 'x-forwarded-proto': 'http' });
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com/dashboard?a=b');
  });

  it('without PUBLIC_URL or ALLOWED_HOSTS: 301 to the Host the request names, whatever X-Forwarded-Host says', async ({
    app,
  }) => {
    const cases: Record<string, string>[] = [
      { host: 'crm.example.com' },
      { host: 'crm.example.com', 'x-forwarded-host': 'evil.example' },
      { host: 'CRM.Example.com:8080', 'x-forwarded-host': 'evil.example:443' },
    ];
    for (const headers of cases) {
      const r = await rawGet(app.base, '/v1/contacts?x=1', { ...headers, 'x-forwarded-proto': 'http' });
      expect(r.status, JSON.stringify(headers)).toBe(301);
      expect(r.location).toBe('https://crm.example.com/v1/contacts?x=1');
    }
  });

  it.for(MALFORMED)('a malformed Host %o gets 403 and no redirect', async (headers, { app, allowed }) => {
    for (const base of [app.base, allowed.base]) {
      const r = await rawGet(base, '/v1/contacts', { ...headers, 'x-forwarded-proto': 'http' });
      expect(r.status).toBe(403);
      expect(r.location).toBeUndefined();
      expect(JSON.parse(r.body).error.code).toBe('forbidden');
    }
  });

  it.for(FORGED)('with ALLOWED_HOSTS, %o gets 403 and no redirect', async (headers, { allowed }) => {
    const r = await rawGet(allowed.base, '/v1/contacts', { ...headers, 'x-forwarded-proto': 'http' });
    expect(r.status).toBe(403);
    expect(r.location).toBeUndefined();
    expect(JSON.parse(r.body).error.code).toBe('forbidden');
  });

  it('with ALLOWED_HOSTS, a listed Host is redirected to', async ({ allowed }) => {
    const r = await rawGet(allowed.base, '/v1/contacts?x=1', { host: 'crm.example.com', 'x-forwarded-proto': 'http' });
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com/v1/contacts?x=1');
  });

  it.for([
    ['localhost:8080', 'localhost'],
    ['127.0.0.1', '127.0.0.1'],
    ['[::1]:3000', '[::1]'],
  ])('with ALLOWED_HOSTS, Host %s (this machine or an address) is redirected to', async ([host, name], { allowed }) => {
    const r = await rawGet(allowed.base, '/v1/contacts', { host, 'x-forwarded-proto': 'http' });
    expect(r.status).toBe(301);
    expect(r.location).toBe(`https://${name}/v1/contacts`);
  });

  it('serves requests that came in over https', async ({ app }) => {
    const ws = await app.workspace();
    const r = await ws.api('GET', '/v1/contacts', undefined, { 'x-forwarded-proto': 'https' });
    expect(r.status).toBe(200);
  });
});

describe('serving TLS itself', () => {
  async function plainPort(
    publicOrigin: string | null,
    allowedHosts: string[] | null = null,
  ): Promise<{ base: string; close: () => void }> {
    const redirect = express().use(
      redirectEverything(8443, { publicOrigin, allowedHosts }),
      restErrors(() => {}),
    );
    const server = http.createServer(redirect).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
  }

  it('the plain port answers every request with 301 to PUBLIC_URL', async () => {
    const s = await plainPort('https://crm.example.com');
    const r = await rawGet(s.base, '/v1/contacts/abc?q=1', { host: 'evil.example' });
    s.close();
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com/v1/contacts/abc?q=1');
  });

  it('with ALLOWED_HOSTS it redirects to this machine or a listed host and refuses others', async () => {
    const s = await plainPort(null, ['crm.example.com']);
    const local = await rawGet(s.base, '/v1/contacts/abc?q=1', { host: 'localhost:8080' });
    const forged = await Promise.all(FORGED.map((h) => rawGet(s.base, '/', h)));
    s.close();
    expect(local.status).toBe(301);
    expect(local.location).toBe('https://localhost:8443/v1/contacts/abc?q=1');
    expect(forged.map((f) => [f.status, f.location])).toEqual(FORGED.map(() => [403, undefined]));
  });
});

describe('PUBLIC_URL', () => {
  it.each(['http://crm.example.com', 'https://crm.example.com/app', 'https://u:p@crm.example.com', 'not a url'])(
    'refuses %s at start',
    (value) => {
      expect(() => loadConfig({ PUBLIC_URL: value })).toThrow(/PUBLIC_URL/);
    },
  );

  it('keeps the origin of an https URL', () => {
    expect(loadConfig({ PUBLIC_URL: 'https://CRM.example.com:8443/' }).publicOrigin).toBe(
      'https://crm.example.com:8443',
    );
  });
});
