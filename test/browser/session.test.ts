// Sign-in, sign-out, the CSRF check, the workspace switch and the page's security headers, in Chromium.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../src/admin/workspaces.ts';
import { startTestApp, type TestApp, type TestWorkspace } from '../helpers/app.ts';
import { setPassword } from '../helpers/dashboard.ts';
import { dashboardUser, launchBrowser, newContext, screenshot, signInThroughPage } from './browser.ts';

let app: TestApp;
let browser: Browser;
let ws: TestWorkspace;
let email: string;

beforeAll(async () => {
  [app, browser] = await Promise.all([startTestApp(), launchBrowser()]);
  ws = await app.workspace();
  ({ email } = await dashboardUser(app, ws));
});

afterAll(async () => {
  await browser?.close();
  await app?.close();
});

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
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sales Pipeline');
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

  it('renders every page without a script error or a Content-Security-Policy violation', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (err) => problems.push(err.message));
    page.on('console', (m) => m.text().includes('Content Security Policy') && problems.push(m.text()));
    await signInThroughPage(page, email);
    for (const [link, heading] of [['Contacts', 'Contacts'], ['API keys', 'API keys'], ['Webhooks', 'Webhooks'], ['Custom fields', 'Custom fields'], ['Pipeline', 'Sales Pipeline']]) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    }
    await page.goto('/dashboard/no-such-page');
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses a state-changing request that carries the session cookie but no CSRF token', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await signInThroughPage(page, email);
    const answer = await page.evaluate(async () => {
      const r = await fetch('/graphql', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: 'mutation { createContact(input: { first_name: "Eve", email: "eve@example.com" }) { id } }' }) });
      return { status: r.status, body: await r.json() };
    });
    expect(answer.status).toBe(403);
    expect(JSON.stringify(answer.body)).toContain('Missing or invalid CSRF token');
    const contacts = await ws.api('GET', '/v1/contacts');
    expect(contacts.body.data).toEqual([]);
    await context.close();
  });

  it('switches between workspaces and to the sandbox from the header', async () => {
    const other = await app.workspace();
    const name = 'Switch User';
    const switchEmail = `switch.${Date.now().toString(36)}@example.com`;
    await ws.addUser(name, switchEmail);
    await createUser(app.db.prisma, { workspace: other.id, name, email: switchEmail });
    await setPassword(app.db, switchEmail);
    await other.api('POST', '/v1/contacts', { first_name: 'Only', last_name: 'Other', email: 'only.other@example.com' });

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

  it('signs out: the page returns to sign-in and the old cookie no longer works', async () => {
    const context = await newContext(browser, app.base);
    const page = await context.newPage();
    await signInThroughPage(page, email);
    const cookie = (await context.cookies()).find((c) => c.name === 'crm_session')!;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect((await context.cookies()).find((c) => c.name === 'crm_session')).toBeUndefined();

    const replay = await fetch(`${app.base}/dashboard/api/session`, { headers: { cookie: `crm_session=${cookie.value}` } });
    expect(replay.status).toBe(401);
    await page.reload();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await context.close();
  });
});
