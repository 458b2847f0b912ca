// Deals in the dashboard: the board shows open deals only, with column totals and the weighted
// forecast; won and lost deals under the "Show" filter (kept in the URL); a deal created from the
// board; the deal page with in-place edits, validation details, and won/lost with a reason. Both
// window sizes, no sideways scrolling, and the keyboard.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { atBothSizes, expectNoSidewaysScroll, PHONE_THEN_DESKTOP, screenshot, SIZES, signedInPage } from './browser.ts';

let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
let stages: { id: string; name: string; probability: number }[];
let pipelineId: string;
const dealIds = new Map<string, string>();
let graceId: string;

const column = (stageId: string) => page.locator(`section.column[data-stage-id="${stageId}"]`);
const card = (title: string) => page.locator('li.card', { hasText: title });
const money = (value: number) =>
  page.evaluate(
    (v) => new Intl.NumberFormat(undefined, { style: 'currency', currency: 'USD', maximumFractionDigits: 0 }).format(v),
    value,
  );

/** The forecast from the API's data: open deals' value × their stage's probability. */
async function forecastFromApi(): Promise<number> {
  const { body } = await ws.api('GET', `/v1/deals?pipeline_id=${pipelineId}&status=open&limit=100`);
  const probability = new Map(stages.map((s) => [s.id, s.probability]));
  return body.data.reduce(
    (sum: number, d: { value: number | null; stage_id: string }) =>
      sum + ((d.value ?? 0) * (probability.get(d.stage_id) ?? 0)) / 100,
    0,
  );
}

/** Two contacts, four open deals and an activity, made before the board first loads. */
async function seed(ws: TestWorkspace) {
  const { body } = await ws.api('GET', '/v1/pipelines');
  pipelineId = body.data[0].id;
  stages = body.data[0].stages;
  const grace = await ws.api('POST', '/v1/contacts', {
    first_name: 'Grace',
    last_name: 'Hopper',
    email: 'gh@example.com',
  });
  graceId = grace.body.data.id;
  const alan = await ws.api('POST', '/v1/contacts', {
    first_name: 'Alan',
    last_name: 'Turing',
    email: 'at@example.com',
  });
  for (const [title, value, stage] of [
    ['Mainframe lease', 40000, 0],
    ['Support plan', 6000, 0],
    ['Consulting', 15000, 1],
    ['Workshop', 2500, 2],
  ] as const) {
    const deal = await ws.api('POST', '/v1/deals', {
      title,
      value,
      pipeline_id: pipelineId,
      stage_id: stages[stage].id,
      contact_id: grace.body.data.id,
    });
    dealIds.set(title, deal.body.data.id);
  }
  const consulting = dealIds.get('Consulting');
  await ws.api('POST', `/v1/deals/${consulting}/contacts`, { contact_id: alan.body.data.id, role: 'champion' });
  await ws.api('POST', '/v1/activities', {
    type: 'call',
    subject: 'Scoping call',
    deal_id: consulting,
    duration: 30,
  });
}

beforeAll(async () => {
  ({ ws, page, close } = await signedInPage({ live: true, beforeSignIn: (s) => seed(s.ws) }));
  await page.getByText('Live: changes by others appear here').waitFor();
});

afterAll(() => close?.());

describe('the board', () => {
  it('shows open deals with column totals and the weighted forecast computed from the API data', async () => {
    await page.setViewportSize(SIZES.laptop);
    expect(await column(stages[0].id).getByTestId('deal-count').textContent()).toBe('2');
    expect(await column(stages[0].id).getByTestId('column-total').textContent()).toBe(await money(46000));
    const expected = await forecastFromApi();
    expect(expected).toBeGreaterThan(0);
    await expect.poll(() => page.getByTestId('forecast').textContent()).toBe(await money(expected));
    await atBothSizes(page, 'deals-board');
  });

  it('a won deal leaves its open column, its total changes, and the Won filter (in the URL) shows it', async () => {
    await page.getByRole('button', { name: 'Mark Support plan won' }).click();
    await page.getByLabel('Why it was won').fill('Renewed early');
    await page.getByRole('button', { name: 'Mark won' }).click();
    await expect.poll(() => card('Support plan').count()).toBe(0);
    expect(await column(stages[0].id).getByTestId('deal-count').textContent()).toBe('1');
    expect(await column(stages[0].id).getByTestId('column-total').textContent()).toBe(await money(40000));
    await expect.poll(() => page.getByTestId('forecast').textContent()).toBe(await money(await forecastFromApi()));

    await page.getByLabel('Won', { exact: true }).check();
    const row = page.locator('table.closed-deals tbody tr', { hasText: 'Support plan' });
    await row.waitFor();
    expect(await row.textContent()).toContain('Renewed early');
    expect(new URL(page.url()).search).toBe('?status=won');
    await page.reload();
    await row.waitFor();
    expect(await page.getByLabel('Won', { exact: true }).isChecked()).toBe(true);
    await atBothSizes(page, 'deals-won');

    await page.getByLabel('Lost', { exact: true }).check();
    await page.getByText('No lost deals in this pipeline.').waitFor();
    await page.getByLabel('Open', { exact: true }).check();
    await card('Mainframe lease').waitFor();
    expect(new URL(page.url()).search).toBe('');
  });

  it('creates a deal from the board in a dialog, with a contact found by search', async () => {
    await page.getByRole('button', { name: 'New deal' }).click();
    const dialog = page.getByRole('dialog', { name: 'New deal' });
    await dialog.getByLabel('Title').fill('Data migration');
    await dialog.getByLabel('Value').fill('9000');
    await dialog.getByLabel('Stage').selectOption({ label: stages[1].name });
    await dialog.getByRole('combobox', { name: 'Contact (optional)' }).fill('Turing');
    await dialog.getByRole('option', { name: /Turing/ }).click();
    await dialog.getByRole('status').filter({ hasText: 'Chosen: Alan Turing' }).waitFor();
    await atBothSizes(page, 'deals-new-dialog');
    await dialog.getByRole('button', { name: 'Create deal' }).click();

    await expect.poll(() => column(stages[1].id).locator('li.card', { hasText: 'Data migration' }).count()).toBe(1);
    const { body } = await ws.api('GET', `/v1/deals?pipeline_id=${pipelineId}&status=open&limit=100`);
    const created = body.data.find((d: { title: string }) => d.title === 'Data migration');
    expect(created).toMatchObject({ value: 9000, stage_id: stages[1].id });
    const contacts = await ws.api('GET', `/v1/contacts/${created.contact_id}`);
    expect(contacts.body.data.last_name).toBe('Turing');
    dealIds.set('Data migration', created.id);
    await expect.poll(() => page.getByTestId('forecast').textContent()).toBe(await money(await forecastFromApi()));
  });

  it('shows the API’s validation details when a new deal is refused', async () => {
    await page.getByRole('button', { name: 'New deal' }).click();
    const dialog = page.getByRole('dialog', { name: 'New deal' });
    await dialog.getByLabel('Title').fill('Negative');
    await dialog.getByLabel('Value').fill('-5');
    await dialog.getByRole('button', { name: 'Create deal' }).click();
    const alert = dialog.getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('li').textContent()).toContain('value');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('drags a card from its title and from its edge', async () => {
    await card('Workshop').getByRole('link', { name: 'Workshop' }).dragTo(column(stages[3].id));
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await expect.poll(() => column(stages[3].id).locator('li.card', { hasText: 'Workshop' }).count()).toBe(1);

    const box = await card('Workshop').boundingBox();
    await card('Workshop').dragTo(column(stages[2].id), { sourcePosition: { x: (box?.width ?? 20) - 4, y: 4 } });
    await page.getByRole('button', { name: 'Move', exact: true }).click();
    await expect.poll(() => column(stages[2].id).locator('li.card', { hasText: 'Workshop' }).count()).toBe(1);
  });

  it('works from the keyboard: the filter, a new deal, and the move select', async () => {
    const open = page.getByLabel('Open', { exact: true });
    await open.focus();
    await page.keyboard.press('ArrowRight');
    await page.locator('table.closed-deals').waitFor();
    expect(new URL(page.url()).search).toBe('?status=won');
    await page.keyboard.press('ArrowLeft');
    await card('Workshop').waitFor();

    await page.getByRole('button', { name: 'New deal' }).focus();
    await page.keyboard.press('Enter');
    const title = page.getByRole('dialog', { name: 'New deal' }).getByLabel('Title');
    await expect.poll(() => title.evaluate((input) => input === document.activeElement)).toBe(true);
    await page.keyboard.type('Keyboard deal');
    await page.keyboard.press('Enter');
    await card('Keyboard deal').waitFor();
    expect(await column(stages[0].id).locator('li.card', { hasText: 'Keyboard deal' }).count()).toBe(1);

    const select = page.getByLabel('Move Keyboard deal to');
    await select.focus();
    await select.selectOption({ label: stages[1].name });
    const move = page.getByRole('button', { name: 'Move', exact: true });
    await expect.poll(() => move.evaluate((b) => b === document.activeElement)).toBe(true);
    await page.keyboard.press('Enter');
    await expect.poll(() => column(stages[1].id).locator('li.card', { hasText: 'Keyboard deal' }).count()).toBe(1);
  });
});

describe('the deal page', () => {
  it('opens from the card title with its fields, contacts and roles, stage history and activities', async () => {
    await card('Consulting').getByRole('link', { name: 'Consulting' }).click();
    await page.getByRole('heading', { level: 1, name: 'Consulting' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/dashboard/deals/${dealIds.get('Consulting')}`);
    const contacts = page.locator('section', { has: page.getByRole('heading', { name: 'Contacts' }) });
    await expect.poll(() => contacts.textContent()).toContain('Alan Turing · champion');
    expect(await contacts.textContent()).toContain('Grace Hopper');
    const history = page.locator('section', { has: page.getByRole('heading', { name: 'Stage history' }) });
    expect(await history.textContent()).toContain(`Created in ${stages[1].name}`);
    const activities = page.locator('section', { has: page.getByRole('heading', { name: 'Activities' }) });
    await expect.poll(() => activities.textContent()).toContain('Scoping call');
    await atBothSizes(page, 'deal-page');
  });

  it('edits the value in place, showing the API’s validation details for a bad one', async () => {
    await page.getByRole('button', { name: 'Edit value' }).click();
    await page.getByLabel('value', { exact: true }).fill('-1');
    await page.keyboard.press('Enter');
    const alert = page.locator('form.inline-edit').getByRole('alert');
    await alert.waitFor();
    expect(await alert.locator('li').textContent()).toContain('value');
    await page.getByLabel('value', { exact: true }).fill('25000');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('deal-value').textContent()).toBe(await money(25000));
    const { body } = await ws.api('GET', `/v1/deals/${dealIds.get('Consulting')}`);
    expect(body.data.value).toBe(25000);
  });

  it('edits the title, close date and owner from the keyboard; Escape cancels', async () => {
    const focused = () => page.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    await page.getByRole('button', { name: 'Edit title' }).focus();
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('title');
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Consulting retainer');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { level: 1, name: 'Consulting retainer', exact: true }).waitFor();
    await expect.poll(focused).toBe('Edit title');

    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('title');
    await page.keyboard.type(' (draft)');
    await page.keyboard.press('Escape');
    await expect.poll(focused).toBe('Edit title');
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Consulting retainer');

    await page.getByRole('button', { name: 'Edit expected close date' }).click();
    await page.getByLabel('expected close date').fill('2027-03-31');
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('Edit expected close date');
    await page.getByRole('button', { name: 'Edit owner' }).click();
    await page.getByLabel('owner', { exact: true }).selectOption({ label: 'Ada Owner' });
    await page.keyboard.press('Enter');
    await expect.poll(focused).toBe('Edit owner');
    expect(await page.locator('dl.deal-fields').textContent()).toContain('Ada Owner');

    const { body } = await ws.api('GET', `/v1/deals/${dealIds.get('Consulting')}`);
    expect(body.data).toMatchObject({ title: 'Consulting retainer', expected_close_date: '2027-03-31' });
    expect(body.data.owner_id).toBeTruthy();
  });

  it('marks the deal lost with a reason, which the API stores', async () => {
    await page.getByRole('button', { name: 'Mark lost' }).click();
    await page.getByLabel('Why it was lost').fill('Budget frozen');
    await page.getByRole('button', { name: 'Mark lost' }).last().click();
    await expect.poll(() => page.getByTestId('deal-status').textContent()).toBe('lost');
    await page.getByRole('button', { name: 'Reopen' }).waitFor();
    const { body } = await ws.api('GET', `/v1/deals/${dealIds.get('Consulting')}`);
    expect(body.data).toMatchObject({ status: 'lost', lost_reason: 'Budget frozen' });
    await atBothSizes(page, 'deal-page-lost');

    await page.getByRole('link', { name: 'Pipeline' }).first().click();
    await card('Mainframe lease').waitFor();
    expect(await card('Consulting retainer').count()).toBe(0);
  });

  it('says so when the deal does not exist', async () => {
    await page.goto('/dashboard/deals/deal_missing');
    await page.getByRole('alert').waitFor();
    await atBothSizes(page, 'deal-page-missing');
  });
});

describe('the deal page: contacts, activities and the stage', () => {
  const section = (name: string) => page.locator('section', { has: page.getByRole('heading', { name, exact: true }) });

  it('adds a contact with a role, found through the search combobox, and removes one', async () => {
    const id = dealIds.get('Mainframe lease');
    await page.goto(`/dashboard/deals/${id}`);
    await page.getByRole('heading', { level: 1, name: 'Mainframe lease' }).waitFor();
    const search = page.getByRole('combobox', { name: 'Contact', exact: true });
    await search.fill('Turing');
    await page.getByRole('option', { name: /Alan Turing/ }).waitFor();
    expect(await search.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => search.inputValue()).toBe('Alan Turing (at@example.com)');
    await page.getByLabel('Role').fill('technical buyer');
    await page.getByRole('button', { name: 'Add to deal' }).click();
    await expect.poll(() => section('Contacts').textContent()).toContain('Alan Turing · technical buyer');
    expect(await search.inputValue()).toBe('');
    const added = (await ws.api('GET', `/v1/deals/${id}`)).body.data.contacts;
    expect(added).toEqual(
      expect.arrayContaining([expect.objectContaining({ last_name: 'Turing', role: 'technical buyer' })]),
    );
    await atBothSizes(page, 'deal-contacts');

    await page.getByRole('button', { name: 'Remove Alan Turing from the deal' }).click();
    await expect.poll(() => section('Contacts').textContent()).not.toContain('Alan Turing');
    const left = (await ws.api('GET', `/v1/deals/${id}`)).body.data.contacts;
    expect(left.map((c: { last_name: string }) => c.last_name)).toEqual(['Hopper']);
  });

  it('says when no contact matches', async () => {
    await page.getByRole('combobox', { name: 'Contact', exact: true }).fill('Nobody-at-all');
    await page.getByText('No contact matches.').waitFor();
    expect(await page.getByRole('button', { name: 'Add to deal' }).isDisabled()).toBe(true);
  });

  it('logs an activity on the deal from the keyboard', async () => {
    const summary = section('Activities').getByText('Log an activity');
    await summary.focus();
    await page.keyboard.press('Enter');
    await section('Activities').getByLabel('Kind').selectOption('meeting');
    await section('Activities').getByLabel('Subject').fill('Pricing review');
    await section('Activities').getByLabel('What was said').fill('Agreed on a three-year term.');
    await section('Activities').getByLabel('What was said').press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => section('Activities').locator('ol.timeline').textContent()).toContain('Pricing review');
    const { body } = await ws.api('GET', `/v1/activities?deal_id=${dealIds.get('Mainframe lease')}`);
    expect(body.data).toEqual([
      expect.objectContaining({ type: 'meeting', subject: 'Pricing review', deal_id: dealIds.get('Mainframe lease') }),
    ]);
    await atBothSizes(page, 'deal-activity-logged');
  });

  it('moves the deal to another stage with the stage select', async () => {
    await page.getByRole('button', { name: 'Edit stage' }).click();
    await page.getByLabel('stage', { exact: true }).selectOption({ label: stages[2].name });
    await page.keyboard.press('Enter');
    await expect.poll(() => page.getByTestId('deal-stage').textContent()).toBe(stages[2].name);
    await expect.poll(() => section('Stage history').textContent()).toContain(`${stages[0].name} → ${stages[2].name}`);
    const { body } = await ws.api('GET', `/v1/deals/${dealIds.get('Mainframe lease')}`);
    expect(body.data.stage_id).toBe(stages[2].id);
  });

  it('creates a deal from a contact’s page with the contact prefilled', async () => {
    await page.goto(`/dashboard/contacts/${graceId}`);
    await page.getByRole('heading', { level: 1, name: 'Grace Hopper' }).waitFor();
    await page.getByRole('button', { name: 'New deal' }).click();
    const dialog = page.getByRole('dialog', { name: 'New deal' });
    await dialog.getByLabel('Title').fill('Compiler training');
    expect(await dialog.getByRole('combobox', { name: 'Contact (optional)' }).inputValue()).toMatch(/^Grace Hopper/);
    await dialog.getByLabel('Stage').selectOption({ label: stages[1].name });
    await atBothSizes(page, 'contact-new-deal');
    await dialog.getByRole('button', { name: 'Create deal' }).click();
    await page.getByRole('heading', { level: 1, name: 'Compiler training' }).waitFor();
    const id = new URL(page.url()).pathname.split('/').pop();
    const { body } = await ws.api('GET', `/v1/deals/${id}`);
    expect(body.data).toMatchObject({ title: 'Compiler training', contact_id: graceId, stage_id: stages[1].id });
  });

  it('picks the second match with the keyboard only, and Escape closes only the list', async () => {
    for (const last_name of ['Jackson', 'Winston']) {
      await ws.api('POST', '/v1/contacts', { first_name: 'Mary', last_name, email: `${last_name}@example.com` });
    }
    const url = `/dashboard/deals/${dealIds.get('Workshop')}`;
    const search = page.getByRole('combobox', { name: 'Contact', exact: true });
    const options = page.getByRole('listbox', { name: 'Contact: matches' }).getByRole('option');
    for (const [suffix, viewport] of PHONE_THEN_DESKTOP) {
      await page.setViewportSize(viewport);
      await page.goto(url);
      await page.getByRole('heading', { level: 1, name: 'Workshop' }).waitFor();
      await search.focus();
      await page.keyboard.type('Mary');
      await expect.poll(() => options.count()).toBe(2);
      expect(await search.getAttribute('aria-expanded')).toBe('true');
      await page.keyboard.press('ArrowDown');
      const second = options.nth(1);
      expect(await second.getAttribute('aria-selected')).toBe('true');
      expect(await search.getAttribute('aria-activedescendant')).toBe(await second.getAttribute('id'));
      await screenshot(page, `deal-contact-keyboard-${suffix}`);
      await expectNoSidewaysScroll(page, 'deal-contact-keyboard');
      const picked = (await second.textContent())!;
      await page.keyboard.press('Enter');
      await expect.poll(() => search.inputValue()).toBe(picked);
      expect(await search.getAttribute('aria-expanded')).toBe('false');
      await page.getByText(`Chosen: ${picked.replace(/ \(.*/, '')}`).waitFor();

      // Typing again drops the pick and opens the list; Escape closes the list and nothing else.
      await page.keyboard.type(' ');
      await page.keyboard.press('Backspace');
      await expect.poll(() => search.getAttribute('aria-expanded')).toBe('true');
      expect(await page.getByRole('button', { name: 'Add to deal' }).isDisabled()).toBe(true);
      await page.keyboard.press('Escape');
      await expect.poll(() => search.getAttribute('aria-expanded')).toBe('false');
      expect(await options.count()).toBe(0);
      expect(new URL(page.url()).pathname).toBe(url);
      expect(await search.evaluate((e) => e === document.activeElement)).toBe(true);
      expect(await search.inputValue()).toBe(picked);
    }
  });

  it('picks a match with a click', async () => {
    const search = page.getByRole('combobox', { name: 'Contact', exact: true });
    await search.fill('Mary Winston');
    await page.getByRole('option', { name: /Mary Winston/ }).click();
    await expect.poll(() => search.inputValue()).toBe('Mary Winston (winston@example.com)');
    await page.getByText('Chosen: Mary Winston').waitFor();
  });
});
