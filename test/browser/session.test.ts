// Sign-in, sign-out, the CSRF check, the workspace switch and the page's security headers, in Chromium;
// every page without a request to another host or page-level horizontal scrolling on a laptop, and
// the keyboard alone from sign-in to a new API key.
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/workspaces.ts';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { PASSWORD, setPassword } from '../helpers/dashboard.ts';
import {
  dashboardUser,
  expectNoSidewaysScroll,
  newContext,
  screenshot,
  signInThroughPage,
  startAppAndBrowser,
} from './browser.ts';

let app: TestApp;
let browser: Browser;
let close: () => Promise<void>;
let ws: TestWorkspace;
let email: string;
let contactId: string;
let webhookId: string;

beforeAll(async () => {
  ({ app, browser, close } = await startAppAndBrowser());
  ws = await app.workspace();
  ({ email } = await dashboardUser(app, ws));
  // Something on every page, with values as long as real ones, for the layout checks.
  const contact = await ws.api('POST', '/v1/contacts', {
    first_name: 'Margaret',
    last_name: 'Hamilton-Whitfield',
    email: 'margaret.hamilton-whitfield@software-engineering.example.com',
    company: 'Draper Laboratory',
  });
  contactId = contact.body.data.id;
  const { body } = await ws.api('GET', '/v1/pipelines');
  await ws.api('POST', '/v1/deals', {
    title: 'Apollo guidance computer software, flight 11 and the following missions',
    value: 1250000,
    pipeline_id: body.data[0].id,
    contact_id: contactId,
  });
  const hook = await ws.api('POST', '/v1/webhooks', {
    name: 'Warehouse',
    url: `http://127.0.0.1:9/crm/webhooks/receive/${'0123456789abcdef'.repeat(4)}?source=crm`,
    events: ['contact.created', 'deal.created', 'deal.stage_changed', 'deal.won', 'deal.lost'],
  });
  webhookId = hook.body.data.id;
  await ws.addCustomField('industry', 'select', ['software', 'aerospace', 'government']);
});

/** Presses Tab (or Shift+Tab) until the focused element is `name`; at most `max` times. */
async function tabTo(page: Page, name: string, { back = false, max = 20 } = {}): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(back ? 'Shift+Tab' : 'Tab');
    if (await page.evaluate((n) => document.activeElement?.textContent?.trim() === n, name)) return;
  }
  throw new Error(`${name} was not reached with ${back ? 'Shift+Tab' : 'Tab'}`);
}

const focusedIs = (page: Page, selector: string) =>
  page.evaluate((sel) => document.activeElement === document.querySelector(sel), selector);

afterAll(() => close?.());

describe('dashboard session in the browser', () => {
  it('refuses a wrong password, then signs in and shows the pages', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await page.goto('/dashboard');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('not correct');
    await screenshot(page, 'sign-in');

    await signInThroughPage(page, email);
    expect(page.url()).toBe(`${app.base}/dashboard/pipeline`);
    // "Pipeline" until the pipelines have loaded, then the default pipeline's name.
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Sales Pipeline');
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === 'crm_session')!;
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    await context.close();
  });

  it('serves the page with a Content-Security-Policy that allows no inline script, and only local assets', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    const requested: string[] = [];
    page.on('request', (r) => requested.push(r.url()));
    const response = await page.goto('/dashboard/keys');
    const csp = response!.headers()['content-security-policy'];
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await page.getByLabel('Email').waitFor();
    expect(requested.filter((u) => !u.startsWith(app.base) && !u.startsWith('data:'))).toEqual([]);
    await context.close();
  });

  it('renders each page at 1366×768: no script error, CSP violation, off-host request or sideways scroll', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.text().includes('Content Security Policy') && problems.push(m.text()));
    page.on('request', (r) => requested.push(r.url()));
    page.on('websocket', (w) => requested.push(w.url()));
    await signInThroughPage(page, email);
    // Each page once its data has arrived: the widest it gets.
    for (const [link, heading, loaded] of [
      ['Contacts', 'Contacts', page.getByRole('link', { name: 'Margaret Hamilton-Whitfield' })],
      ['API keys', 'API keys', page.getByRole('cell', { name: 'test key', exact: true })],
      ['Webhooks', 'Webhooks', page.getByRole('link', { name: 'Warehouse' })],
      ['Custom fields', 'Custom fields', page.getByRole('cell', { name: 'industry', exact: true })],
      ['Pipeline', 'Sales Pipeline', page.locator('li.card').first()],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await loaded.waitFor();
      await expectNoSidewaysScroll(page, link);
    }
    for (const [url, heading, loaded] of [
      [`/dashboard/contacts/${contactId}`, 'Margaret Hamilton-Whitfield', page.locator('ol.timeline li').first()],
      [`/dashboard/webhooks/${webhookId}`, 'Warehouse', page.getByText('No deliveries yet.')],
      [`/dashboard/webhooks/${webhookId}/edit`, 'Edit webhook', page.getByRole('button', { name: 'Save changes' })],
      ['/dashboard/webhooks/new', 'New webhook', page.getByRole('button', { name: 'Create webhook' })],
      ['/dashboard/no-such-page', 'Page not found', page.getByRole('heading', { name: 'Page not found' })],
    ] as const) {
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await loaded.waitFor();
      await expectNoSidewaysScroll(page, url);
    }
    expect(problems).toEqual([]);
    // The app's own origin only (its WebSocket for live updates included), and nothing else.
    const origin = new URL(app.base);
    const elsewhere = requested.filter((u) => {
      if (u.startsWith('data:')) return false;
      const url = new URL(u);
      return url.host !== origin.host || !['http:', 'ws:'].includes(url.protocol);
    });
    expect(requested.length).toBeGreaterThan(10);
    expect(elsewhere).toEqual([]);
    await context.close();
  });

  it('builds a bundle that names no other host (only XML namespaces, placeholders and a library’s error text)', () => {
    const dir = path.resolve('dist/dashboard');
    const files = ['index.html', ...fs.readdirSync(path.join(dir, 'assets')).map((f) => `assets/${f}`)];
    expect(files.some((f) => f.endsWith('.js'))).toBe(true);
    const allowed = [
      /^http:\/\/www\.w3\.org\//, // namespaces (svg, MathML, xhtml): identifiers, never fetched
      /^https:\/\/([\w-]+\.)*example\.com(\/|$)/, // placeholders in form fields
      /^https:\/\/github\.com\/preactjs\/preact-iso#locationprovider$/, // text of one of preact-iso's error messages
      // License banners the bundle keeps for Chart.js and its colour library (the Insight page's chunk).
      /^https:\/\/www\.chartjs\.org$/,
      /^https:\/\/github\.com\/kurkle\/color#readme$/,
    ];
    const found: string[] = [];
    for (const file of files) {
      let text = fs.readFileSync(path.join(dir, file), 'utf8');
      // A source map's embedded sources are only read by developer tools; its other fields count.
      if (file.endsWith('.map')) text = JSON.stringify({ ...JSON.parse(text), sourcesContent: undefined });
      for (const [url] of text.matchAll(/https?:\/\/[^\s"'`()<>\\]+/g))
        if (!allowed.some((a) => a.test(url))) found.push(`${file}: ${url}`);
    }
    expect(found).toEqual([]);
  });

  it('refuses a state-changing request that carries the session cookie but no CSRF token', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await signInThroughPage(page, email);
    const answer = await page.evaluate(async () => {
      const r = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation { createContact(input: { first_name: "Eve", email: "eve@example.com" }) { id } }',
        }),
      });
      return { status: r.status, body: await r.json() };
    });
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).toContain('Missing or invalid CSRF token');
    const contacts = await ws.api('GET', '/v1/contacts');
    expect(contacts.body.data.map((c: { email: string }) => c.email)).not.toContain('eve@example.com');

    // Sign-out is state-changing too: without the token the session is not ended.
    const logout = await page.evaluate(async () => {
      const r = await fetch('/dashboard/api/logout', { method: 'POST' });
      return { status: r.status, body: await r.text() };
    });
    expect(logout.status).toBe(403);
    expect(logout.body).toContain('Missing or invalid CSRF token');
    expect(await page.evaluate(async () => (await fetch('/dashboard/api/session')).status)).toBe(200);
    expect((await context.cookies()).find((c) => c.name === 'crm_session')).toBeDefined();
    await page.reload();
    await page.getByRole('link', { name: 'Contacts', exact: true }).click();
    await page.getByRole('link', { name: 'Margaret Hamilton-Whitfield' }).waitFor();
    await context.close();
  });

  it('switches between workspaces and to the sandbox from the header', async () => {
    const other = await app.workspace();
    const name = 'Switch User';
    const switchEmail = `switch.${Date.now().toString(36)}@example.com`;
    await ws.addUser(name, switchEmail);
    await createUser(app.db.prisma, { workspace: other.id, name, email: switchEmail });
    await setPassword(app.db, switchEmail);
    await other.api('POST', '/v1/contacts', {
      first_name: 'Only',
      last_name: 'Other',
      email: 'only.other@example.com',
    });

    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await signInThroughPage(page, switchEmail);
    await page.goto('/dashboard/contacts');
    const workspace = page.getByLabel('Workspace');
    await expect.poll(() => workspace.locator('option').count()).toBe(2);
    await workspace.selectOption({ value: other.id });
    await expect.poll(() => page.getByRole('link', { name: 'Only Other' }).isVisible()).toBe(true);

    await page.getByLabel('Data').selectOption('sandbox');
    await expect.poll(() => page.getByText('Sandbox: you are seeing').isVisible()).toBe(true);
    await expect.poll(() => page.getByText('No contacts yet.').isVisible()).toBe(true);
    await screenshot(page, 'sandbox-header');
    await context.close();
  });

  it('works with the keyboard alone: signs in, goes to the API keys page, creates a key', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await page.goto('/dashboard');
    await page.getByLabel('Email').waitFor();
    // The email field has the focus on arrival.
    expect(await focusedIs(page, 'input[name="email"]')).toBe(true);
    await page.keyboard.type(email);
    await page.keyboard.press('Tab');
    expect(await focusedIs(page, 'input[name="password"]')).toBe(true);
    await page.keyboard.type(PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Sales Pipeline' }).waitFor();

    // Back from the page into the main navigation, then follow a link: focus moves to the new page.
    await expect.poll(() => focusedIs(page, '#main')).toBe(true);
    await tabTo(page, 'API keys', { back: true });
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    expect(page.url()).toBe(`${app.base}/dashboard/keys`);
    await expect.poll(() => focusedIs(page, '#main')).toBe(true);

    // Into the form: the name, then the scope radios (arrow keys), back to the name, Enter submits.
    await page.keyboard.press('Tab');
    expect(await focusedIs(page, 'input[name="name"]')).toBe(true);
    await page.keyboard.type('Typed in');
    await page.keyboard.press('Tab');
    expect(await focusedIs(page, 'input[name="scope"][value="full"]')).toBe(true);
    await page.keyboard.press('ArrowDown');
    expect(await page.locator('input[name="scope"][value="read_only"]').isChecked()).toBe(true);
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    const key = (await page.getByTestId('new-api-key').textContent())!;
    expect(key).toMatch(/^crm_live_/);
    await expect.poll(() => page.getByRole('row', { name: /Typed in/ }).textContent()).toContain('Read only');
    const used = await fetch(`${app.base}/v1/contacts`, { headers: { authorization: `Bearer ${key}` } });
    expect(used.status).toBe(200);

    // From the top of a loaded page, the first Tab is the skip link, which leads past the header.
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.keyboard.press('Enter');
    await page.keyboard.press('Tab');
    expect(await focusedIs(page, 'input[name="name"]')).toBe(true);
    await context.close();
  });

  it('signs out: the page returns to sign-in and the old cookie no longer works', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await signInThroughPage(page, email);
    const cookie = (await context.cookies()).find((c) => c.name === 'crm_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'crm_session')).toBeUndefined();

    const replay = await fetch(`${app.base}/dashboard/api/session`, {
      headers: { cookie: `crm_session=${cookie.value}` },
    });
    expect(replay.status).toBe(401);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});
