// The pipeline board in two browser contexts: a deal dragged in one moves in the other without a
// reload (dealChanged subscription); the keyboard alternative, won and lost (leaving the open board
// live in the other browser), and the contact pages.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { dashboardUser, newContext, screenshot, signInThroughPage, startAppAndBrowser } from './browser.ts';

let app: TestApp;
let browser: Browser;
let close: () => Promise<void>;
let contexts: BrowserContext[];
let mover: Page;
let watcher: Page;
let ws: TestWorkspace;
let stages: { id: string; name: string }[];
let pipelineId: string;

const column = (page: Page, stageId: string) => page.locator(`section.column[data-stage-id="${stageId}"]`);
const card = (page: Page, title: string) => page.locator('li.card', { hasText: title });
const liveNote = (page: Page) => page.getByText('Live: changes by others appear here');

beforeAll(async () => {
  ({ app, browser, close } = await startAppAndBrowser({ live: true }));
  ws = await app.workspace();
  const { body } = await ws.api('GET', '/v1/pipelines');
  pipelineId = body.data[0].id;
  stages = body.data[0].stages;
  const contact = await ws.api('POST', '/v1/contacts', {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'grace@example.com',
    company: 'Navy',
  });
  for (const [title, value] of [
    ['Cobol licence', 5000],
    ['Compiler support', 12000],
    ['Training', 800],
  ] as const) {
    await ws.api('POST', '/v1/deals', {
      title,
      value,
      pipeline_id: pipelineId,
      stage_id: stages[0].id,
      contact_id: contact.body.data.id,
    });
  }
  const { email } = await dashboardUser(app, ws);
  contexts = await Promise.all([newContext(browser, app.base), newContext(browser, app.base)]);
  [mover, watcher] = await Promise.all(contexts.map((c) => c.newPage()));
  await Promise.all([signInThroughPage(mover, email), signInThroughPage(watcher, email)]);
  await Promise.all([liveNote(mover).waitFor(), liveNote(watcher).waitFor()]);
});

afterAll(() => close?.());

describe('pipeline board', () => {
  it('shows stages as columns with counts and totals, and deals as cards', async () => {
    const first = column(mover, stages[0].id);
    expect(await first.getByTestId('deal-count').textContent()).toBe('3');
    expect(await first.locator('.totals').textContent()).toContain('17,800');
    expect(await first.locator('li.card').count()).toBe(3);
    await screenshot(mover, 'pipeline-board');
  });

  it('moves a dragged card with a note, and the other browser sees it move without a reload', async () => {
    const target = column(mover, stages[1].id);
    await card(mover, 'Cobol licence').dragTo(target);
    await mover.getByLabel('Note for the stage history').fill('Budget approved');
    await screenshot(mover, 'pipeline-move-dialog');
    await mover.getByRole('button', { name: 'Move', exact: true }).click();

    await expect
      .poll(() => column(mover, stages[1].id).locator('li.card', { hasText: 'Cobol licence' }).count())
      .toBe(1);
    await expect
      .poll(() => column(watcher, stages[1].id).locator('li.card', { hasText: 'Cobol licence' }).count())
      .toBe(1);
    expect(await column(watcher, stages[1].id).getByTestId('deal-count').textContent()).toBe('1');
    expect(await column(watcher, stages[0].id).getByTestId('deal-count').textContent()).toBe('2');

    const deals = await ws.api('GET', `/v1/deals?stage_id=${stages[1].id}`);
    const moved = await ws.api('GET', `/v1/deals/${deals.body.data[0].id}`);
    expect(moved.body.data.stage_history.at(-1)).toMatchObject({ to_stage_id: stages[1].id, note: 'Budget approved' });
  });

  it('moves a card from the keyboard with the "Move to…" select', async () => {
    const select = mover.getByLabel('Move Training to');
    await select.focus();
    await select.selectOption({ label: stages[2].name });
    const move = mover.getByRole('button', { name: 'Move', exact: true });
    expect(await move.evaluate((b) => b === document.activeElement)).toBe(true);
    await mover.keyboard.press('Enter');
    await expect.poll(() => column(watcher, stages[2].id).locator('li.card', { hasText: 'Training' }).count()).toBe(1);
  });

  it('marks a deal won, and shows deals created by API clients as they arrive', async () => {
    await mover.getByRole('button', { name: 'Mark Compiler support won' }).click();
    await mover.getByLabel('Why it was won').fill('Best offer');
    await mover.getByRole('button', { name: 'Mark won' }).click();
    // Won deals leave the open board.
    await expect.poll(() => card(watcher, 'Compiler support').count()).toBe(0);

    await ws.api('POST', '/v1/deals', { title: 'Arrived live', value: 1, pipeline_id: pipelineId });
    await expect.poll(() => card(watcher, 'Arrived live').count()).toBe(1);
  });

  it('marks a deal lost with a reason, which the other browser sees and the API stores', async () => {
    await mover.getByRole('button', { name: 'Mark Cobol licence lost' }).click();
    await mover.getByLabel('Why it was lost').fill('Went with a competitor');
    await mover.getByRole('button', { name: 'Mark lost' }).click();
    await expect.poll(() => card(watcher, 'Cobol licence').count()).toBe(0);
    await watcher.getByLabel('Lost', { exact: true }).check();
    await watcher.locator('table.closed-deals tbody tr', { hasText: 'Went with a competitor' }).waitFor();
    await screenshot(watcher, 'pipeline-closed');
    await watcher.getByLabel('Open', { exact: true }).check();

    const deals = await ws.api('GET', `/v1/deals?stage_id=${stages[1].id}`);
    const lost = deals.body.data.find((d: { title: string }) => d.title === 'Cobol licence');
    expect(lost).toMatchObject({ status: 'lost', lost_reason: 'Went with a competitor' });
  });
});

describe('contacts pages', () => {
  it('searches contacts and opens a contact with its timeline', async () => {
    await ws.api('POST', '/v1/contacts', {
      first_name: 'Alan',
      last_name: 'Turing',
      email: 'alan@example.com',
      company: 'Bletchley',
    });
    await mover.getByRole('link', { name: 'Contacts' }).click();
    await mover.getByRole('link', { name: 'Alan Turing' }).waitFor();
    await mover.getByLabel('Search contacts').fill('hopper');
    await mover.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => mover.locator('tbody tr').count()).toBe(1);
    await screenshot(mover, 'contacts');

    await mover.getByRole('link', { name: 'Grace Hopper' }).click();
    await mover.getByRole('heading', { name: 'Timeline' }).waitFor();
    const timeline = mover.locator('ol.timeline');
    await expect.poll(() => timeline.textContent()).toContain('Contact created');
    expect(await mover.getByRole('heading', { level: 1 }).textContent()).toBe('Grace Hopper');
    expect(await mover.locator('section', { hasText: 'Deals' }).first().textContent()).toContain('Cobol licence');
    await screenshot(mover, 'contact');
  });
});
