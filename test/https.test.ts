// HTTPS rules: behind a trusted proxy plain HTTP is redirected; with TLS files the service
// serves HTTPS itself and its plain port only redirects (the redirect app is main.ts's).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redirectEverything } from '../src/http/https.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

/** node's fetch drops a Host header; http.request sends it as given. */
function rawGet(base: string, path: string, headers: Record<string, string>): Promise<{ status: number; location?: string }> {
  return new Promise((resolve, reject) => {
    http.get(base + path, { headers }, (res) => {
      res.resume();
      resolve({ status: res.statusCode!, location: res.headers.location });
    }).on('error', reject);
  });
}

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp({ trustProxy: '1' });
});
afterAll(() => app.close());

describe('behind a trusted proxy', () => {
  it('301 to the same URL on https when X-Forwarded-Proto is http', async () => {
    const r = await rawGet(app.base, '/v1/contacts?x=1', { host: 'crm.example.com', 'x-forwarded-proto': 'http' });
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com/v1/contacts?x=1');
  });

  it('serves requests that came in over https', async () => {
    const ws = await app.workspace();
    const r = await ws.api('GET', '/v1/contacts', undefined, { 'x-forwarded-proto': 'https' });
    expect(r.status).toBe(200);
  });
});

describe('serving TLS itself', () => {
  it('the plain port answers every request with 301 to https', async () => {
    const server = http.createServer(express().use(redirectEverything(8443))).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await rawGet(base, '/v1/contacts/abc?q=1', { host: 'crm.example.com' });
    server.close();
    expect(r.status).toBe(301);
    expect(r.location).toBe('https://crm.example.com:8443/v1/contacts/abc?q=1');
  });
});
