// Recording on a company's page in Chromium: a note in Markdown (shown formatted, never run), an
// activity and a follow-up task, each on the page's lists and timeline and stored on the company;
// the task list links the task to the company; both window sizes without sideways scrolling.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { expectNoSidewaysScroll, screenshot, SIZES, signedInPage } from './browser.ts';

let context: BrowserContext;
let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ws, context, page, close } = await signedInPage());
});

afterAll(() => close?.());

async function company(name: string): Promise<{ id: string; name: string }> {
  const res = await ws.api('POST', '/v1/companies', { name });
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('recording on a company’s page', () => {
  it('adds a note, logs an activity and creates a task, all shown on the page and stored on the company', async () => {
    const made = await company('Vandelay Industries');
    await page.goto(`/dashboard/companies/${made.id}`);
    await page.getByRole('heading', { level: 1, name: 'Vandelay Industries' }).waitFor();

    const text = 'Imports **latex**.\n\n- call Art\n\n<img src="x" onerror="window.__noteRan = true">';
    await page.getByLabel('Add a note').fill(text);
    await page.getByRole('button', { name: 'Add note' }).click();
    const note = page.locator('ol.notes li').first();
    await note.locator('strong', { hasText: 'latex' }).waitFor();
    expect(await note.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __noteRan?: boolean }).__noteRan)).toBeUndefined();
    const notes = (await ws.api('GET', `/v1/companies/${made.id}/notes`)).body.data;
    expect(notes).toEqual([expect.objectContaining({ content: text, company_id: made.id, contact_id: null })]);

    await page.getByText('Log an activity').click();
    await page.getByLabel('Kind').selectOption('meeting');
    await page.getByLabel('Subject').fill('Latex sourcing');
    await page.getByLabel('Subject').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Logged the meeting.' }).waitFor();
    await page.getByRole('region', { name: 'Activities' }).getByText('Latex sourcing').waitFor();
    const activities = (await ws.api('GET', `/v1/companies/${made.id}/activities`)).body.data;
    expect(activities).toEqual([expect.objectContaining({ type: 'meeting', company_id: made.id })]);

    await page.getByText('Add a follow-up task').click();
    await page.getByLabel('Task').fill('Send the catalogue');
    await page.getByLabel('Task').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Added the task “Send the catalogue”.' }).waitFor();
    const tasks = (await ws.api('GET', `/v1/tasks?related_to_type=company&related_to_id=${made.id}`)).body.data;
    expect(tasks.map((t: { title: string }) => t.title)).toEqual(['Send the catalogue']);

    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Note added').waitFor();
    await timeline.getByText(/meeting logged/i).waitFor();
    await timeline.getByText('Task created').waitFor();
    await screenshot(page, 'company-records');

    // The task list names the company as a link to its page.
    await page.goto('/dashboard/tasks?view=assignee');
    const task = page.locator('li.task', { hasText: 'Send the catalogue' });
    const link = task.getByRole('link', { name: 'Vandelay Industries' });
    await link.waitFor();
    expect(await link.getAttribute('href')).toBe(`/dashboard/companies/${made.id}`);
  });
});

describe('both window sizes', () => {
  for (const [name, viewport] of Object.entries(SIZES)) {
    it(`has no sideways scrolling on the ${name} (${viewport.width} px) with the forms open`, async () => {
      const sized = await context.newPage();
      await sized.setViewportSize(viewport);
      const made = await company('Kramerica Industries International Holdings');
      await ws.api('POST', `/v1/companies/${made.id}/notes`, {
        content: `A rather long note without spaces: ${'oil-tanker-bladder-'.repeat(8)}`,
      });
      await ws.api('POST', '/v1/activities', { type: 'call', subject: 'Coffee table book', company_id: made.id });
      await sized.goto(`/dashboard/companies/${made.id}`);
      await sized.getByRole('region', { name: 'Activities' }).getByText('Coffee table book').waitFor();
      await sized.getByText('Log an activity').click();
      await sized.getByText('Add a follow-up task').click();
      await sized.getByLabel('Task').waitFor();
      await expectNoSidewaysScroll(sized, 'forms open', { slack: 1 });
      await screenshot(sized, `company-records-${name}`);
      await sized.close();
    });
  }
});
