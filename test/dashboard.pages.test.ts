// Serving the dashboard's built pages: assets, the index.html fallback for the app's routes,
// the security headers, and clear answers when something is missing.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import http, { type Server } from 'node:http';
import zlib from 'node:zlib';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardPages } from '../src/http/dashboard.ts';
import { requestId } from '../src/http/request-id.ts';
import { restErrors } from '../src/rest/errors.ts';

let built: string;
const servers: Server[] = [];

async function serve(dir: string): Promise<string> {
  // Its refusals are answered with the envelope, as in app.ts.
  const app = express()
    .use(requestId)
    .use('/dashboard', dashboardPages(dir))
    .use(restErrors(() => {}));
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  servers.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

beforeAll(() => {
  built = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-dashboard-'));
  fs.mkdirSync(path.join(built, 'assets'));
  fs.writeFileSync(
    path.join(built, 'index.html'),
    '<!doctype html><title>CRM dashboard</title><script type="module" src="/dashboard/assets/main-ABC.js"></script>',
  );
  fs.writeFileSync(path.join(built, 'assets', 'main-ABC.js'), 'console.log(1)');
  // A built script with its compressed copies beside it, as scripts/build-dashboard.mjs writes them.
  const script = path.join(built, 'assets', 'big-DEF.js');
  fs.writeFileSync(script, BIG_SCRIPT);
  fs.writeFileSync(`${script}.br`, zlib.brotliCompressSync(BIG_SCRIPT));
  fs.writeFileSync(`${script}.gz`, zlib.gzipSync(BIG_SCRIPT));
});

const BIG_SCRIPT = `export const rows = [${Array.from({ length: 2000 }, (_, i) => `'row ${i}'`).join(',')}];\n`;

/** The raw answer to GET `url` sent with `acceptEncoding` (fetch would decompress it unasked). */
function getRaw(url: string, acceptEncoding?: string) {
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { 'accept-encoding': acceptEncoding };
    http
      .get(url, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  fs.rmSync(built, { recursive: true, force: true });
});

describe('dashboard pages', () => {
  it('answers every app route with index.html, not cached, under a strict Content-Security-Policy', async () => {
    const base = await serve(built);
    for (const p of ['/dashboard', '/dashboard/', '/dashboard/webhooks/wh_123/edit', '/dashboard/contacts?q=ada']) {
      const r = await fetch(base + p);
      expect(r.status, p).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await r.text()).toContain('<title>CRM dashboard</title>');
      expect(r.headers.get('cache-control')).toBe('no-cache');
      const csp = r.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toContain('unsafe');
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves hashed assets as immutable, and a missing one as a JSON 404', async () => {
    const base = await serve(built);
    const js = await fetch(`${base}/dashboard/assets/main-ABC.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    const missing = await fetch(`${base}/dashboard/assets/main-OLD.js`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.code).toBe('not_found');
  });

  it('serves the compressed copy a browser accepts, brotli first, and the plain file to others', async () => {
    const base = await serve(built);
    const url = `${base}/dashboard/assets/big-DEF.js`;
    const cases: [string | undefined, string | undefined, (b: Buffer) => Buffer][] = [
      ['gzip, deflate, br, zstd', 'br', (b) => zlib.brotliDecompressSync(b)],
      ['gzip;q=1.0, br;q=0', 'gzip', (b) => zlib.gunzipSync(b)],
      ['identity', undefined, (b) => b],
      [undefined, undefined, (b) => b],
    ];
    for (const [accepted, encoding, decode] of cases) {
      const r = await getRaw(url, accepted);
      expect(r.status, accepted).toBe(200);
      expect(r.headers['content-encoding'], accepted).toBe(encoding);
      expect(r.headers['content-type'], accepted).toMatch(/^text\/javascript|^application\/javascript/);
      expect(r.headers['cache-control'], accepted).toContain('immutable');
      expect(r.headers.vary, accepted).toContain('Accept-Encoding');
      expect(decode(r.body).toString(), accepted).toBe(BIG_SCRIPT);
      if (encoding) expect(r.body.length, accepted).toBeLessThan(BIG_SCRIPT.length / 3);
    }
  });

  it('answers a malformed or missing asset path with the JSON envelope', async () => {
    const base = await serve(built);
    for (const p of ['/dashboard/assets/%E0%A4%A', '/dashboard/assets/%', '/dashboard/assets/big-DEF.js%00']) {
      const r = await getRaw(base + p, 'br');
      expect(r.status, p).toBeGreaterThanOrEqual(400);
      expect(r.status, p).toBeLessThan(500);
      expect(JSON.parse(r.body.toString()).error.code, p).toMatch(/^(malformed_request|not_found)$/);
    }
  });

  it('answers Range and conditions it cannot meet with the envelope, never a 500 or a compressed error', async () => {
    const base = await serve(built);
    const refused: Record<string, string>[] = [
      { range: 'bytes=999999-' },
      { range: 'bytes=5-1' },
      { 'if-match': '"nope"' },
      { 'if-unmodified-since': 'Mon, 01 Jan 1990 00:00:00 GMT' },
    ];
    for (const path of ['/dashboard/assets/big-DEF.js', '/dashboard/keys']) {
      for (const headers of refused) {
        const r = await fetch(base + path, { headers: { ...headers, 'accept-encoding': 'br, gzip' } });
        const what = `${path} ${JSON.stringify(headers)}`;
        expect(r.status, what).toBeGreaterThanOrEqual(400);
        expect(r.status, what).toBeLessThan(500);
        expect(r.headers.get('content-encoding'), what).toBeNull();
        expect(r.headers.get('cache-control') ?? '', what).not.toContain('immutable');
        expect((await r.json()).error.code, what).toMatch(/^(malformed_request|precondition_failed)$/);
      }
      // A Range that fits is still served.
      const part = await fetch(base + path, { headers: { range: 'bytes=0-4', 'accept-encoding': 'identity' } });
      expect(part.status, path).toBe(206);
    }
  });

  it('leaves /dashboard/api paths and other methods to the routes after it', async () => {
    const base = await serve(built);
    expect((await fetch(`${base}/dashboard/api/nothing`)).status).toBe(404);
    expect(await (await fetch(`${base}/dashboard/api/nothing`)).text()).not.toContain('CRM dashboard');
    expect((await fetch(`${base}/dashboard/keys`, { method: 'POST' })).status).toBe(404);
  });

  it('says how to build the pages when they are not built', async () => {
    const base = await serve(path.join(built, 'not-there'));
    const r = await fetch(`${base}/dashboard/keys`);
    expect(r.status).toBe(503);
    expect((await r.json()).error.message).toContain('npm run build:dashboard');
  });
});
