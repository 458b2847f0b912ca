// Headless Chromium for the dashboard tests: the system's browser (Debian's `chromium`) driven by
// playwright-core, a signed-in user per workspace, and screenshots for people to look at.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { PASSWORD, setPassword } from '../helpers/dashboard.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('test-results/screenshots');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A laptop-sized window, as the dashboard is meant to be read on. */
export async function newContext(browser: Browser, base: string): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: base, viewport: { width: 1366, height: 768 } });
  context.setDefaultTimeout(10_000);
  return context;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** A workspace user with a password. */
export async function dashboardUser(app: TestApp, ws: TestWorkspace, name = 'Ada Owner'): Promise<{ email: string }> {
  const email = `${name.replace(/\W/g, '').toLowerCase()}.${Date.now().toString(36)}@example.com`;
  await ws.addUser(name, email);
  await setPassword(app.db, email);
  return { email };
}

export async function signInThroughPage(page: Page, email: string, password = PASSWORD): Promise<void> {
  await page.goto('/dashboard');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Main' }).waitFor();
}
