// GraphiQL at /graphql in Chromium, from the installed package: the editor renders under the
// page's Content-Security-Policy, a query sent with a key typed into the headers editor answers,
// the schema loads by introspection, and every request the page (and its editor workers) makes
// goes to the service itself.
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { createLogger } from '../../src/logger.ts';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { newContext, screenshot, startAppAndBrowser } from './browser.ts';

let app: TestApp;
let browser: Browser;
let ws: TestWorkspace;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ app, browser, close } = await startAppAndBrowser());
  ws = await app.workspace();
  await ws.api('POST', '/v1/contacts', { first_name: 'Grace', last_name: 'Hopper', email: 'grace.hopper@example.com' });
});
afterAll(() => close?.());

/** The Monaco editor of one of GraphiQL's models: operation, variables, headers or response. */
const editor = (page: Page, model: string) => page.locator(`.monaco-editor[data-uri$="-${model}"]`);

/** Replaces an editor's text (inserted as a paste is, so no brackets are auto-closed). */
async function replaceText(page: Page, model: string, text: string): Promise<void> {
  await editor(page, model).click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.press('Delete');
  await page.keyboard.insertText(text);
}

describe('GraphiQL', () => {
  it('renders from this origin only, and runs a query with the key typed into the headers', async () => {
    const context = await newContext(browser, app.base);
    const origin = new URL(app.base).origin;
    const requested: string[] = [];
    const problems: string[] = [];
    // Every request of the context, workers' included; one to another host is recorded and refused.
    await context.route('**/*', (route) => {
      const url = route.request().url();
      requested.push(url);
      return url.startsWith(`${origin}/`) || url.startsWith('data:') || url.startsWith('blob:')
        ? route.continue()
        : route.abort();
    });
    const page = await context.newPage();
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.text().includes('Content Security Policy') && problems.push(m.text()));
    page.on('websocket', (w) => requested.push(w.url()));
    /** The operations GraphiQL sent: the URL and body, with the Authorization header they carried. */
    const operations: { authorization: string | undefined; sent: string }[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/graphql' && r.resourceType() !== 'document')
        operations.push({
          authorization: r.headers().authorization,
          sent: decodeURIComponent(r.url()) + (r.postData() ?? ''),
        });
    });

    const res = await page.goto('/graphql');
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toMatch(/script-src 'self'(;|$)/);
    // The query editor and the headers editor, filled in with the header a key goes in.
    await editor(page, 'operation.graphql').waitFor();
    await editor(page, 'headers.json').waitFor();
    await expect.poll(() => editor(page, 'headers.json').textContent()).toContain('Authorization');

    await replaceText(page, 'headers.json', JSON.stringify({ Authorization: `Bearer ${ws.key}` }));
    await replaceText(page, 'operation.graphql', '{ contacts(limit: 5) { total nodes { first_name email } } }');
    await page.getByRole('button', { name: /Execute query/ }).click();
    const response = page.locator('.graphiql-response');
    await expect.poll(() => response.textContent()).toContain('grace.hopper@example.com');
    // Monaco shows spaces as no-break spaces.
    expect((await response.textContent())!.replace(/\s+/g, ' ')).toContain('"total": 1');
    const run = operations.filter((o) => o.sent.includes('contacts(limit:5)'));
    expect(run, JSON.stringify(operations)).toHaveLength(1);
    expect(run[0].authorization).toBe(`Bearer ${ws.key}`);

    // Introspection with the key: the documentation explorer lists the schema's root fields.
    await page.getByRole('button', { name: /Re-fetch GraphQL schema/ }).click();
    await expect
      .poll(() => operations.some((o) => o.authorization === `Bearer ${ws.key}` && o.sent.includes('__schema')))
      .toBe(true);
    await page.getByRole('button', { name: /Show Documentation Explorer/ }).click();
    await page.locator('.graphiql-doc-explorer').getByText('Query', { exact: true }).first().click();
    await expect.poll(() => page.locator('.graphiql-doc-explorer').textContent()).toContain('webhookLogs');
    await screenshot(page, 'graphiql');

    expect(problems).toEqual([]);
    // The page, its script, style sheet, workers and queries: all of them, and all from here.
    expect(requested.some((u) => u.endsWith('/graphiql.js'))).toBe(true);
    expect(requested.some((u) => u.endsWith('.worker.js'))).toBe(true);
    const elsewhere = requested.filter(
      (u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'),
    );
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('the page needs no key, its files come from the installed package, and it is off when GRAPHIQL is', async () => {
    const page = await fetch(`${app.base}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).not.toMatch(/<script>|<style>|https?:\/\//);
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(assets.length).toBeGreaterThanOrEqual(4);
    for (const asset of assets) {
      const r = await fetch(`${app.base}${asset}`);
      expect(r.status, asset).toBe(200);
    }
    // An unknown file is the API's 404 (the key check answers first: 401), not a file from elsewhere.
    expect((await fetch(`${app.base}${assets[0].replace(/[^/]+$/, 'package.json')}`)).status).toBeGreaterThanOrEqual(
      400,
    );
    // JSON is still the API's.
    expect((await fetch(`${app.base}/graphql`, { headers: { accept: 'application/json' } })).status).toBe(401);

    // With GRAPHIQL off, a browser gets the API's answer and the files are not there.
    const { app: off } = buildApp({
      db: app.db,
      webhooks: app.webhooks,
      logger: createLogger('silent'),
      config: { trustProxy: null, graphiql: false },
    });
    const server = await new Promise<import('node:http').Server>((resolve) => {
      const s = off.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const closed = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
      expect(closed.status).toBe(401);
      expect(closed.headers.get('content-type')).not.toMatch(/html/);
      expect((await fetch(`${base}${assets.find((a) => a.endsWith('graphiql.js'))}`)).status).toBe(401);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
