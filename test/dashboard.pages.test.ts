// Serving the dashboard's built pages: assets, the index.html fallback for the app's routes,
// the security headers, and clear answers when something is missing.
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Server } from 'node:http';
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
});

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
