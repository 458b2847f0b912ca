// The Team page in Chromium, at a laptop's and a phone's size: a colleague invited through the page
// opens the link in a browser of their own, chooses a password and lands signed in; a reset link
// does the same for a new password; deactivating the colleague sends their open page back to
// sign-in. No sideways scrolling, and the set-password page sends no Referer.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import {
  dashboardUser,
  expectNoSidewaysScroll,
  newContext,
  screenshot,
  SIZES,
  signInThroughPage,
  startAppAndBrowser,
} from './browser.ts';

let app: TestApp;
let browser: Browser;
let close: () => Promise<void>;
let ws: TestWorkspace;
let admin: { email: string };
const contexts: BrowserContext[] = [];

async function pageAt(size: keyof typeof SIZES): Promise<Page> {
  const context = await newContext(browser, app.base, SIZES[size]);
  contexts.push(context);
  return context.newPage();
}

const row = (p: Page, name: string) => p.getByRole('row').filter({ hasText: name });

/** Opens a one-time link in `p`, sets `password`, and waits until the dashboard is signed in. */
async function useLink(p: Page, url: string, password: string, shot: string): Promise<void> {
  const res = await p.goto(url);
  expect(res!.headers()['referrer-policy']).toBe('no-referrer');
  await p.getByLabel('New password').waitFor();
  // The token left the address bar.
  expect(p.url()).not.toContain('token');
  await expectNoSidewaysScroll(p, shot);
  await screenshot(p, shot);
  await p.getByLabel('New password').fill(password);
  await p.getByLabel('Repeat the password').fill(password);
  await p.getByRole('button', { name: 'Set password and sign in' }).click();
  await p.getByRole('navigation', { name: 'Main' }).waitFor();
}

beforeAll(async () => {
  ({ app, browser, close } = await startAppAndBrowser());
  ws = await app.workspace();
  admin = await dashboardUser(app, ws, 'Ada Admin');
});

afterAll(async () => {
  await Promise.all(contexts.map((c) => c.close()));
  await close?.();
});

describe('the Team page', () => {
  for (const size of ['laptop', 'phone'] as const) {
    it(`invites a colleague who sets a password, resets it, and deactivates them (${size})`, async () => {
      const page = await pageAt(size);
      await signInThroughPage(page, admin.email);
      await page.goto('/dashboard/team');
      await row(page, 'Ada Admin').waitFor();
      await expectNoSidewaysScroll(page, `team (${size})`);
      await screenshot(page, `team-${size}`);

      // Invite: an API refusal is shown with its field first, then the real invitation.
      const name = `Cole ${size}`;
      const email = `cole.${size}.${Date.now().toString(36)}@example.com`;
      await page.getByLabel('Name').fill('Dup');
      await page.getByLabel('Email').fill(admin.email);
      await page.getByRole('button', { name: 'Invite' }).click();
      await expect.poll(() => page.getByRole('alert').textContent()).toContain('already exists');
      await page.getByLabel('Name').fill(name);
      await page.getByLabel('Email').fill(email);
      await page.getByRole('button', { name: 'Invite' }).click();
      const link = page.getByTestId('password-link');
      await link.waitFor();
      const inviteUrl = (await link.textContent())!;
      expect(inviteUrl).toMatch(/\/dashboard\/set-password#token=/);
      await expect.poll(() => row(page, name).textContent()).toContain('Invitation pending');
      await expectNoSidewaysScroll(page, `team with a link (${size})`);
      await screenshot(page, `team-invited-${size}`);

      // The colleague, in a browser of their own, signed out.
      const colleague = await pageAt(size);
      await useLink(colleague, inviteUrl, 'colleague password 1', `set-password-${size}`);
      await screenshot(colleague, `team-colleague-signed-in-${size}`);
      await colleague.goto('/dashboard/team');
      await expect.poll(() => row(colleague, name).textContent()).toContain('(you)');
      // Used once: the same link again is refused, in words.
      const again = await pageAt(size);
      await again.goto(inviteUrl);
      await expect.poll(() => again.getByRole('alert').textContent()).toContain('not valid');

      // Reset the colleague's password: confirmation, then a new link.
      await page.reload();
      await expect.poll(() => row(page, name).textContent()).toContain('Active');
      await row(page, name).getByRole('button', { name: 'Reset password' }).click();
      await row(page, name)
        .getByRole('button', { name: `Create a link for ${name}` })
        .click();
      await expect.poll(() => page.getByRole('heading', { level: 2 }).first().textContent()).toContain('reset link');
      const resetUrl = (await page.getByTestId('password-link').textContent())!;
      expect(resetUrl).not.toBe(inviteUrl);
      const later = await pageAt(size);
      await useLink(later, resetUrl, 'colleague password 2', `reset-password-${size}`);

      // Deactivate: the colleague's open page (the board, with its live connection) loses its session.
      await later.goto('/dashboard/pipeline');
      await expect
        .poll(() => later.getByText('Live: changes by others').count(), { timeout: 10_000 })
        .toBeGreaterThan(0);
      await row(page, name).getByRole('button', { name: 'Deactivate' }).click();
      await row(page, name)
        .getByRole('button', { name: `Deactivate ${name}` })
        .click();
      await expect.poll(() => row(page, name).textContent()).toContain('Deactivated');
      await screenshot(page, `team-deactivated-${size}`);
      await later.getByRole('button', { name: 'Sign in' }).waitFor({ timeout: 8_000 });
      await screenshot(later, `team-colleague-signed-out-${size}`);
      // Nobody deactivates themselves: no such button on their own row.
      expect(await row(page, 'Ada Admin').getByRole('button', { name: 'Deactivate' }).count()).toBe(0);

      // Reactivated, they sign in again with their password.
      await row(page, name).getByRole('button', { name: 'Reactivate' }).click();
      await row(page, name)
        .getByRole('button', { name: `Reactivate ${name}` })
        .click();
      await expect.poll(() => row(page, name).textContent()).toContain('Active');
      await signInThroughPage(later, email, 'colleague password 2');
    }, 120_000);
  }
});
