// Headless Chromium for the dashboard tests: the system's browser (Debian's `chromium`) driven by
// playwright-core, a signed-in user per workspace, screenshots for people to look at, and the
// layout check every page gets: no sideways scrolling at a laptop's and a phone's size.
import fs from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { startEventFeed } from '../../src/events/feed.ts';
import { startTestApp, type TestApp, type TestWorkspace } from '../helpers/app.ts';
import { PASSWORD, setPassword } from '../helpers/dashboard.ts';

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const SCREENSHOTS = path.resolve('test-results/screenshots');

/** The window sizes the layout is checked at: a laptop's and a phone's. */
export const SIZES = {
  laptop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * The sizes `atBothSizes` goes through, with the suffixes of their screenshots. The phone comes
 * first so that the page is left at the larger size, which the next step of a test expects.
 */
export const PHONE_THEN_DESKTOP = [
  ['phone', SIZES.phone],
  ['desktop', SIZES.laptop],
] as const;

/** Boxes that scroll sideways inside themselves: what they hold may reach past the window. */
const SCROLL_BOXES = '.board, .table-scroll';

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

/** A laptop-sized window unless told otherwise, as the dashboard is meant to be read on. */
export async function newContext(
  browser: Browser,
  base: string,
  viewport: { width: number; height: number } = { width: 1366, height: 768 },
): Promise<BrowserContext> {
  const context = await browser.newContext({ baseURL: base, viewport });
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
  // /dashboard sends the page on to its first page in an effect, which can run after the navigation
  // shows: until then the address is still /dashboard.
  await page.waitForURL((url) => url.pathname !== '/dashboard');
}

export interface AppOptions {
  /** A PostgreSQL schema of the file's own (an in-memory database is the file's own anyway). */
  isolated?: boolean;
  /**
   * Committed events published to subscriptions, as main.ts does, so that pages update live. On
   * a schema of the file's own, or the feed would publish every other file's events too.
   */
  live?: boolean;
}

export interface BrowserApp {
  app: TestApp;
  browser: Browser;
  /** Closes the browser, then the event feed and the app. */
  close(): Promise<void>;
}

/** The test app and Chromium, started side by side. */
export async function startAppAndBrowser({ isolated = false, live = false }: AppOptions = {}): Promise<BrowserApp> {
  const [app, browser] = await Promise.all([startTestApp({ isolated: isolated || live }), launchBrowser()]);
  const feed = live ? startEventFeed({ sql: app.db.sql, bus: app.bus, intervalMs: 50 }) : undefined;
  return {
    app,
    browser,
    async close() {
      await browser.close();
      await feed?.stop();
      await app.close();
    },
  };
}

export interface SignedIn extends BrowserApp {
  ws: TestWorkspace;
  /** The dashboard user's, in `ws`. */
  email: string;
  context: BrowserContext;
  page: Page;
}

/**
 * A new workspace and its user, signed in through the page in a laptop-sized window.
 * `beforeSignIn` runs once the page exists and before it first loads: for listeners, init
 * scripts and data the first page must already show.
 */
export async function signedInPage(
  options: AppOptions & { beforeSignIn?: (s: SignedIn) => unknown } = {},
): Promise<SignedIn> {
  const started = await startAppAndBrowser(options);
  // Nothing is handed back if this fails, so nothing would close what was started.
  try {
    const ws = await started.app.workspace();
    const { email } = await dashboardUser(started.app, ws);
    const context = await newContext(started.browser, started.app.base);
    const signedIn = { ...started, ws, email, context, page: await context.newPage() };
    await options.beforeSignIn?.(signedIn);
    await signInThroughPage(signedIn.page, email);
    return signedIn;
  } catch (err) {
    await started.close();
    throw err;
  }
}

/** Up to five elements that reach past the window's right edge, to say why a page scrolls sideways. */
function overflowing(page: Page, allowed: string): Promise<string[]> {
  return page.evaluate(
    (allowed) =>
      [...document.querySelectorAll('body *')]
        .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(allowed))
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}`),
    allowed,
  );
}

export interface LayoutCheck {
  /** Pixels the page may be wider than the window: 1 lets a width rounded up pass. */
  slack?: number;
  /** A selector of boxes that scroll on their own: what reaches past the window inside them is no cause. */
  allowed?: string;
}

/** The page is no wider than the window at its current size; `where` names the page in a failure. */
export async function expectNoSidewaysScroll(
  page: Page,
  where: string,
  { slack = 0, allowed = SCROLL_BOXES }: LayoutCheck = {},
): Promise<void> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  const culprits = scrollWidth > innerWidth + slack ? await overflowing(page, allowed) : [];
  expect(
    scrollWidth,
    `${where}: ${scrollWidth} px wide in a ${innerWidth} px window, past it: ${culprits}`,
  ).toBeLessThanOrEqual(innerWidth + slack);
}

/**
 * Screenshots `<name>-phone` and `<name>-desktop`, each without sideways scrolling, leaving the
 * page at the desktop size. `beforeScreenshot` runs at each size, for what is redrawn on a resize.
 */
export async function atBothSizes(
  page: Page,
  name: string,
  { beforeScreenshot, ...check }: LayoutCheck & { beforeScreenshot?: () => Promise<unknown> } = {},
): Promise<void> {
  for (const [suffix, viewport] of PHONE_THEN_DESKTOP) {
    await page.setViewportSize(viewport);
    await beforeScreenshot?.();
    await screenshot(page, `${name}-${suffix}`);
    await expectNoSidewaysScroll(page, name, check);
  }
}
