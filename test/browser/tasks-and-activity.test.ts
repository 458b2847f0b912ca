// The Tasks page and the Activity feed in Chromium: a task created through the page under the right
// views, completed with a note from the keyboard (checked through the API), the overdue and due-today
// views of tasks the API created, and an activity another key logs appearing on the feed without a
// reload; both pages at laptop and phone sizes without sideways scrolling, their empty states, and no
// request to another host.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client, TestApp, TestWorkspace } from '../helpers/app.ts';
import { setPassword } from '../helpers/dashboard.ts';
import {
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
let contexts: BrowserContext[];
let page: Page;
let phone: Page;
let ws: TestWorkspace;
let bobApi: Client;
let ada: { id: string; email: string };
let bob: { id: string };
let grace: string;
const taskIds: Record<string, string> = {};
const problems: string[] = [];
const requested: string[] = [];

const HOUR = 3_600_000;
const task = (p: Page, title: string) => p.locator('li.task', { hasText: title });
const activity = (p: Page) => p.locator('li.activity');

/** A datetime-local value (the browser's local time) for a date. */
const localInput = (d: Date) =>
  `${d.getFullYear()}-${`${d.getMonth() + 1}`.padStart(2, '0')}-${`${d.getDate()}`.padStart(2, '0')}T10:00`;

/** Halfway between now and local midnight: due today, and not overdue while the test runs. */
function laterToday(): Date {
  const now = new Date();
  const midnight = new Date(now.getFullYear(), now.getMonth(), now.getDate() + 1);
  return new Date((now.getTime() + midnight.getTime()) / 2);
}

/** Presses Tab until the focused element's accessible label is `name`; at most `max` times. */
async function tabTo(p: Page, name: string, max = 40): Promise<void> {
  for (let i = 0; i < max; i++) {
    await p.keyboard.press('Tab');
    const label = await p.evaluate(
      () => document.activeElement?.getAttribute('aria-label') ?? document.activeElement?.textContent?.trim(),
    );
    if (label === name) return;
  }
  throw new Error(`${name} was not reached with Tab`);
}

beforeAll(async () => {
  ({ app, browser, close } = await startAppAndBrowser({ live: true }));
  ws = await app.workspace();
  const email = `ada.${Date.now().toString(36)}@example.com`;
  ada = { ...(await ws.addUser('Ada Owner', email)), email };
  await setPassword(app.db, email);
  bob = await ws.addUser('Bob Seller');
  ({ api: bobApi } = await ws.addKey({ name: 'bob phone', userId: bob.id }));

  const contact = await ws.api('POST', '/v1/contacts', {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@example.com',
  });
  grace = contact.body.data.id;
  for (const [title, due, assignee, reminder] of [
    ['Send the signed contract', new Date(Date.now() - 26 * HOUR), bob.id, null],
    ['Prepare the demo', laterToday(), ada.id, { type: 'email', before_minutes: 30 }],
    ['Quarterly review', new Date(Date.now() + 5 * 24 * HOUR), ada.id, null],
  ] as const) {
    const created = await ws.api('POST', '/v1/tasks', {
      title,
      due_date: due.toISOString(),
      assignee_id: assignee,
      ...(reminder ? { reminder } : {}),
    });
    expect(created.status).toBe(201);
    taskIds[title] = created.body.data.id;
  }
  // One more than the feed's first page, all older than what is logged during the tests.
  for (let i = 0; i < 26; i++) {
    const logged = await ws.api('POST', '/v1/activities', {
      type: i % 2 ? 'email' : 'note',
      subject: `Earlier touch ${i + 1}`,
      contact_id: grace,
      occurred_at: new Date(Date.now() - (i + 2) * 24 * HOUR).toISOString(),
    });
    expect(logged.status).toBe(201);
  }

  contexts = await Promise.all(Object.values(SIZES).map((viewport) => newContext(browser, app.base, viewport)));
  [page, phone] = await Promise.all(contexts.map((c) => c.newPage()));
  for (const p of [page, phone]) {
    p.on('pageerror', (err) => problems.push(err.message));
    p.on('request', (r) => requested.push(r.url()));
    p.on('websocket', (w) => requested.push(w.url()));
  }
  await Promise.all([signInThroughPage(page, ada.email), signInThroughPage(phone, ada.email)]);
});

afterAll(() => close?.());

describe('tasks page', () => {
  it('shows the API’s validation details, then creates a task with a contact, listed under My tasks', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    await page.getByRole('heading', { name: 'My tasks' }).waitFor();
    await task(page, 'Prepare the demo').waitFor();

    await page.getByRole('button', { name: 'Create task' }).click();
    expect(await page.locator('.error').first().textContent()).toMatch(/title/);

    await page.getByLabel('Title').fill('Call Grace about the renewal');
    const tomorrow = new Date(Date.now() + 24 * HOUR);
    await page.getByLabel('Due').fill(localInput(tomorrow));
    await page.getByLabel('Related contact').fill('Grace');
    await expect.poll(() => page.locator('#task-contact-options option').count()).toBe(1);
    await page.getByLabel('Related contact').fill('Grace Hopper (grace@example.com)');
    await page.getByRole('button', { name: 'Create task' }).click();

    const created = task(page, 'Call Grace about the renewal');
    await created.waitFor();
    expect(await page.getByRole('status').first().textContent()).toContain('created');
    expect(await created.textContent()).toContain('Assigned to Ada Owner');
    expect(await created.getByRole('link', { name: 'Grace Hopper' }).getAttribute('href')).toBe(
      `/dashboard/contacts/${grace}`,
    );
    expect(await task(page, 'Send the signed contract').count()).toBe(0);
    await screenshot(page, 'tasks-mine-laptop');

    const { body } = await ws.api('GET', `/v1/tasks?assignee_id=${ada.id}`);
    const stored = body.data.find((t: { title: string }) => t.title === 'Call Grace about the renewal');
    expect(stored).toMatchObject({ related_to: { type: 'contact', id: grace }, status: 'pending' });
  });

  it('groups every open task by assignee, kept in the URL', async () => {
    await page.getByRole('link', { name: 'By assignee' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('view')).toBe('assignee');
    const adaGroup = page.getByRole('region', { name: 'Ada Owner' });
    const bobGroup = page.getByRole('region', { name: 'Bob Seller' });
    await expect.poll(() => adaGroup.locator('li.task').count()).toBe(3);
    expect(await bobGroup.textContent()).toContain('Send the signed contract');
    expect(await page.getByRole('link', { name: 'By assignee' }).getAttribute('aria-current')).toBe('page');
  });

  it('shows the overdue and due-today views of tasks the API created, bookmarked', async () => {
    await page.goto('/dashboard/tasks?view=overdue');
    const overdue = task(page, 'Send the signed contract');
    await overdue.waitFor();
    expect(await overdue.textContent()).toContain('Overdue: was due');
    expect(await page.locator('li.task').count()).toBe(1);
    await screenshot(page, 'tasks-overdue-laptop');

    await page.goto('/dashboard/tasks?view=today');
    const today = task(page, 'Prepare the demo');
    await today.waitFor();
    expect(await today.textContent()).toContain('Due today');
    expect(await today.textContent()).toContain('Reminder by email at');
    expect(await page.locator('li.task').count()).toBe(1);
  });

  it('completes a task with a note from the keyboard; it leaves the open lists and the API has the note', async () => {
    await page.goto('/dashboard/tasks?view=mine');
    await task(page, 'Prepare the demo').waitFor();
    await tabTo(page, 'Complete Prepare the demo');
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.type('Demo script shared with the team');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Complete task');
    await page.keyboard.press('Enter');

    await expect.poll(() => task(page, 'Prepare the demo').count()).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.textContent)).toContain('completed');
    const { body } = await ws.api('GET', `/v1/tasks/${taskIds['Prepare the demo']}`);
    expect(body.data).toMatchObject({ status: 'completed', completion_note: 'Demo script shared with the team' });

    await page.getByRole('link', { name: 'Due today' }).click();
    await page.getByText('No open task is due today.').waitFor();
  });

  it('shows why the API refuses to complete a task cancelled meanwhile, with its details, and drops it', async () => {
    await page.getByRole('link', { name: 'My tasks' }).click();
    await task(page, 'Quarterly review').waitFor();
    const cancelled = await ws.api('PUT', `/v1/tasks/${taskIds['Quarterly review']}`, { status: 'cancelled' });
    expect(cancelled.status).toBe(200);

    await page.getByRole('button', { name: 'Complete Quarterly review' }).click();
    await page.getByRole('button', { name: 'Complete task' }).click();
    const alert = page.getByRole('dialog').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('A cancelled task cannot be completed');
    expect(await alert.textContent()).toContain('status is cancelled');
    await screenshot(page, 'tasks-complete-refused-laptop');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByRole('dialog').count()).toBe(0);
    expect(await task(page, 'Quarterly review').count()).toBe(0);
  });
});

describe('activity feed', () => {
  it('shows who did what with links, and an activity another key logs arrives without a reload', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Activity' }).click();
    await page.getByText('Live: activities logged by others appear here').waitFor();
    await expect.poll(() => activity(page).count()).toBe(25);
    expect(await activity(page).first().textContent()).toContain('An API client wrote a note on Grace Hopper');

    const deal = await ws.api('POST', '/v1/deals', {
      title: 'Renewal 2027',
      value: 1200,
      pipeline_id: (await ws.api('GET', '/v1/pipelines')).body.data[0].id,
    });
    const logged = await bobApi('POST', '/v1/activities', {
      type: 'call',
      subject: 'Renewal terms',
      contact_id: grace,
      deal_id: deal.body.data.id,
      outcome: 'connected',
      duration: 15,
    });
    expect(logged.status).toBe(201);

    await expect.poll(() => activity(page).count()).toBe(26);
    const newest = activity(page).first();
    expect(await newest.textContent()).toContain('Bob Seller called Grace Hopper about the deal Renewal 2027');
    expect(await newest.textContent()).toContain('Connected · 15 min');
    expect(await newest.getByRole('link', { name: 'Renewal 2027' }).getAttribute('href')).toBe(
      `/dashboard/deals/${deal.body.data.id}`,
    );
    await screenshot(page, 'activity-laptop');

    await page.getByRole('button', { name: 'Show older activities' }).click();
    await expect.poll(() => activity(page).count()).toBe(27);
    expect(await activity(page).last().textContent()).toContain('Earlier touch 26');
    expect(await page.getByRole('button', { name: 'Show older activities' }).count()).toBe(0);
  });
});

describe('at laptop and phone sizes', () => {
  for (const [size, which] of [
    ['laptop', () => page],
    ['phone', () => phone],
  ] as const) {
    it(`shows the tasks views and the feed without sideways scrolling (${size})`, async () => {
      const p = which();
      for (const view of ['mine', 'overdue', 'assignee']) {
        await p.goto(`/dashboard/tasks?view=${view}`);
        await p.locator('li.task').first().waitFor();
        await expectNoSidewaysScroll(p, `tasks ${view}, ${size}`);
      }
      await screenshot(p, `tasks-by-assignee-${size}`);
      await p.goto('/dashboard/activity');
      await activity(p).first().waitFor();
      await expectNoSidewaysScroll(p, `activity, ${size}`);
      await screenshot(p, `activity-feed-${size}`);
    });
  }

  it('shows the empty states of a new workspace', async () => {
    const other = await app.workspace();
    const email = `zoe.${Date.now().toString(36)}@example.com`;
    await other.addUser('Zoe New', email);
    await setPassword(app.db, email);
    const context = await browser.newContext({ baseURL: app.base, viewport: SIZES.phone });
    const p = await context.newPage();
    await signInThroughPage(p, email);
    await p.goto('/dashboard/tasks');
    await p.getByText('No open tasks are assigned to you.').waitFor();
    await p.goto('/dashboard/tasks?view=overdue');
    await p.getByText('No open task is overdue.').waitFor();
    await p.goto('/dashboard/activity');
    await p.getByText('No activities have been logged yet.').waitFor();
    await expectNoSidewaysScroll(p, 'empty activity, phone');
    await screenshot(p, 'activity-empty-phone');
    await context.close();
  });

  it('had no script error and asked no other host for anything', () => {
    expect(problems).toEqual([]);
    const origin = new URL(app.base);
    expect(requested.length).toBeGreaterThan(10);
    expect(requested.filter((u) => new URL(u).host !== origin.host)).toEqual([]);
  });
});
