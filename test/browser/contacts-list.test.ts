// The Contacts list in Chromium: filters and sort kept in the URL (restored on reload and Back), a
// saved view, bulk tagging, assignment and deletion with counted confirmations (checked through the
// API), and merging two contacts from a preview that shows the winning values; at a laptop's and a
// phone's size, without sideways scrolling.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { expectNoSidewaysScroll, screenshot, SIZES, signedInPage } from './browser.ts';

let context: BrowserContext;
let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
let bea: { id: string };
const run = Date.now().toString(36);

beforeAll(async () => {
  ({ ws, context, page, close } = await signedInPage());
  bea = await ws.addUser('Bea Seller', `bea.${run}@example.com`);
  await page.setViewportSize(SIZES.laptop);
});

afterAll(() => close?.());

type Row = { first_name: string; last_name?: string; status?: string; tags?: string[]; company?: string };

async function createContacts(rows: Row[]): Promise<{ id: string; first_name: string }[]> {
  const r = await ws.api('POST', '/v1/contacts/bulk', {
    contacts: rows.map((c, i) => ({ email: `${c.first_name.toLowerCase()}.${i}.${run}@example.com`, ...c })),
  });
  expect(r.body.data.failed).toBe(0);
  return r.body.data.contacts;
}

async function contactsWhere(where: Record<string, unknown>) {
  const { body } = await ws.api('POST', '/v1/contacts/query', { where, limit: 100 });
  return body.data as { id: string; first_name: string; tags: string[]; assigned_to: string | null }[];
}

const names = (p: Page) => p.locator('table.contacts-table tbody td:nth-child(2) a').allTextContents();

describe('filters and sort', () => {
  it('are kept in the URL, restored on reload and with Back', async () => {
    await createContacts([
      { first_name: 'Carla', last_name: 'Zed', status: 'lead', tags: ['alpha'] },
      { first_name: 'Bruno', last_name: 'Young', status: 'lead', tags: ['alpha'] },
      { first_name: 'Anna', last_name: 'Xu', status: 'customer', tags: ['alpha'] },
      { first_name: 'Dora', last_name: 'Wolf', status: 'lead', tags: ['beta'] },
    ]);
    await page.goto('/dashboard/contacts');
    await page.locator('summary', { hasText: 'Filters' }).click();
    await page.getByLabel('Status').selectOption('lead');
    await page.getByLabel('Tag', { exact: true }).fill('alpha');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL(/status=lead&tag=alpha/);
    await expect.poll(() => names(page)).toEqual(['Bruno Young', 'Carla Zed']);
    await page.getByLabel('Sort by').selectOption('name');
    await page.waitForURL(/sort=name/);
    await expect.poll(() => names(page)).toEqual(['Bruno Young', 'Carla Zed']);
    await page.getByLabel('Sort by').selectOption('-name');
    await page.waitForURL(/sort=-name/);
    await expect.poll(() => names(page)).toEqual(['Carla Zed', 'Bruno Young']);
    expect(await page.locator('caption').textContent()).toBe('2 contacts in this view');
    await screenshot(page, 'contacts-list-filtered');

    await page.reload();
    await expect.poll(() => names(page)).toEqual(['Carla Zed', 'Bruno Young']);
    await expect.poll(() => page.getByLabel('Status').inputValue()).toBe('lead');
    await expect.poll(() => page.getByLabel('Tag', { exact: true }).inputValue()).toBe('alpha');
    await expect.poll(() => page.getByLabel('Sort by').inputValue()).toBe('-name');

    await page.goBack();
    await page.waitForURL(/sort=name$/);
    await expect.poll(() => names(page)).toEqual(['Bruno Young', 'Carla Zed']);
    await expect.poll(() => page.getByLabel('Sort by').inputValue()).toBe('name');
    await page.goBack();
    await page.waitForURL((u) => !u.search.includes('sort='));
    await expect.poll(() => page.getByLabel('Sort by').inputValue()).toBe('-created_at');
    await page.goBack();
    await page.waitForURL((u) => u.search === '');
    await expect.poll(() => page.getByLabel('Status').inputValue()).toBe('');
  });

  it('saves a view under a name and restores it from its link', async () => {
    await page.goto('/dashboard/contacts?tag=alpha&sort=name');
    await expect.poll(() => names(page)).toEqual(['Anna Xu', 'Bruno Young', 'Carla Zed']);
    await page.getByRole('button', { name: 'Save view…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Save this view' });
    await dialog.getByLabel('Name').fill('Alpha by name');
    await dialog.getByRole('button', { name: 'Save view' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const link = page.getByRole('navigation', { name: 'Saved views' }).getByRole('link', { name: 'Alpha by name' });
    expect(await link.getAttribute('aria-current')).toBe('page');

    await page.goto('/dashboard/contacts');
    await link.click();
    await page.waitForURL(/\?tag=alpha&sort=name$/);
    await expect.poll(() => names(page)).toEqual(['Anna Xu', 'Bruno Young', 'Carla Zed']);
    const stored = await page.evaluate(() =>
      Object.keys(localStorage)
        .filter((k) => k.startsWith('crm.dashboard.contact-views.'))
        .map((k) => localStorage.getItem(k)),
    );
    expect(stored).toEqual([JSON.stringify([{ name: 'Alpha by name', query: '?tag=alpha&sort=name' }])]);
  });
});

describe('bulk actions', () => {
  it('tags 3 of 6 contacts after a counted confirmation; Escape cancels a dialog', async () => {
    const made = await createContacts(
      ['Ema', 'Finn', 'Gus', 'Hana', 'Ivo', 'Jan'].map((n) => ({ first_name: n, last_name: 'Bulk', tags: ['bulk'] })),
    );
    await page.goto('/dashboard/contacts?tag=bulk&sort=first_name');
    await expect.poll(() => names(page)).toHaveLength(6);
    for (const n of ['Finn', 'Hana', 'Jan']) await page.getByLabel(`Select ${n} Bulk`).check();
    const bar = page.getByRole('region', { name: 'Selected contacts' });
    expect(await bar.textContent()).toContain('3 selected');

    // Keyboard: the dialog opens with focus inside, and Escape closes it with nothing done.
    await bar.getByRole('button', { name: 'Delete…' }).focus();
    await page.keyboard.press('Enter');
    const del = page.getByRole('dialog', { name: 'Delete 3 contacts?' });
    await del.waitFor();
    expect(await page.evaluate(() => document.activeElement?.closest('dialog') !== null)).toBe(true);
    await page.keyboard.press('Escape');
    await del.waitFor({ state: 'hidden' });
    expect(await contactsWhere({ tags: { contains: 'bulk' } })).toHaveLength(6);

    await bar.getByRole('button', { name: 'Add tag…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Add a tag' });
    await dialog.getByLabel('Tag').fill('hot');
    expect(await dialog.textContent()).toContain('Add the tag “hot” to 3 contacts?');
    await screenshot(page, 'contacts-list-bulk-dialog');
    await dialog.getByRole('button', { name: 'Add tag' }).click();
    await page.getByRole('status').filter({ hasText: 'Tagged 3 contacts.' }).waitFor();
    const hot = await contactsWhere({ tags: { contains: 'hot' } });
    expect(hot.map((c) => c.first_name).sort()).toEqual(['Finn', 'Hana', 'Jan']);
    expect(hot.every((c) => c.tags.includes('bulk'))).toBe(true);
    expect(made).toHaveLength(6);
    // The list shows the new tags.
    await expect.poll(() => page.locator('table.contacts-table tbody').textContent()).toContain('bulk, hot');
  });

  it('assigns to an active user and names the contacts it could not change', async () => {
    const [gone] = await createContacts([
      { first_name: 'Kim', last_name: 'Gone', tags: ['assign'] },
      { first_name: 'Lou', last_name: 'Here', tags: ['assign'] },
    ]);
    await page.goto('/dashboard/contacts?tag=assign');
    await expect.poll(() => names(page)).toHaveLength(2);
    await page.getByLabel('Select all on this page').check();
    // Deleted by someone else after the list was read.
    expect((await ws.api('DELETE', `/v1/contacts/${gone.id}`)).status).toBeLessThan(300);
    await page.getByRole('button', { name: 'Assign to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Assign to a user' });
    await dialog.getByLabel('User').selectOption({ label: 'Bea Seller' });
    expect(await dialog.textContent()).toContain('Assign 2 contacts to Bea Seller?');
    await dialog.getByRole('button', { name: 'Assign' }).click();
    await page.getByRole('status').filter({ hasText: 'Assigned 1 contact. 1 contact could not be changed:' }).waitFor();
    expect(await page.getByRole('alert').filter({ hasText: 'Kim Gone' }).count()).toBe(1);
    expect((await contactsWhere({ tags: { contains: 'assign' } }))[0].assigned_to).toBe(bea.id);
  });

  it('deletes all 55 matching contacts (more than a page) after “Delete 55 contacts?”', async () => {
    await createContacts(Array.from({ length: 55 }, (_, i) => ({ first_name: `Purge${i}`, tags: ['purge'] })));
    await createContacts([{ first_name: 'Keeper', tags: ['keep'] }]);
    await page.goto('/dashboard/contacts?tag=purge');
    await expect.poll(() => names(page)).toHaveLength(50);
    await page.getByLabel('Select all on this page').check();
    await page.getByRole('button', { name: 'Select all 55 matching contacts' }).click();
    const bar = page.getByRole('region', { name: 'Selected contacts' });
    expect(await bar.textContent()).toContain('All 55 contacts matching');
    await bar.getByRole('button', { name: 'Delete…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete 55 contacts?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Delete 55 contacts' }).click();
    await page.getByRole('status').filter({ hasText: 'Deleted 55 contacts.' }).waitFor();
    expect(await contactsWhere({ tags: { contains: 'purge' } })).toHaveLength(0);
    expect(await contactsWhere({ tags: { contains: 'keep' } })).toHaveLength(1);
    await page.getByText('No contact matches this view.').waitFor();
  });
});

describe('merging two contacts', () => {
  it('previews the winning values per strategy, merges and lands on the surviving contact', async () => {
    const [kept, other] = await createContacts([
      { first_name: 'Grace', last_name: 'Hopper', company: 'Navy', tags: ['x'] },
      { first_name: 'Gracie', last_name: 'Murray', company: 'Yale', tags: ['y'] },
    ]);
    await ws.api('PUT', `/v1/contacts/${other.id}`, { phone: '+15550100', job_title: 'Professor' });
    await page.goto(`/dashboard/contacts/${kept.id}`);
    await page.getByRole('link', { name: 'Merge with another contact…' }).click();
    await page.getByRole('heading', { level: 1, name: 'Merge a contact into Grace Hopper' }).waitFor();
    const search = page.getByRole('combobox', { name: /Contact to merge into this one/ });
    await search.fill('Murray');
    const option = page.locator('#merge-contact-options option').first();
    await option.waitFor({ state: 'attached' });
    await search.fill((await option.getAttribute('value')) ?? '');
    await page.waitForURL(new RegExp(`with=${other.id}`));

    const result = (field: string) => page.locator(`tr[data-field="${field}"] td.result`).textContent();
    await expect.poll(() => result('company')).toBe('Navy');
    expect(await result('first_name')).toBe('Grace');
    expect(await result('phone')).toBe('+15550100');
    expect(await result('tags')).toBe('x, y');
    expect(await page.locator('tr[data-field="company"] td.wins').textContent()).toBe('Navy');

    await page.getByLabel('The merged contact’s').check();
    await page.waitForURL(/strategy=prefer_secondary/);
    await expect.poll(() => result('company')).toBe('Yale');
    expect(await result('first_name')).toBe('Gracie');
    expect(await result('email')).toContain('grace.');
    await expectNoSidewaysScroll(page, 'merge preview', { slack: 1 });
    await screenshot(page, 'contact-merge-preview');

    await page.getByRole('button', { name: 'Merge…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Merge Gracie Murray into Grace Hopper?' });
    await dialog.getByRole('button', { name: 'Merge contacts' }).click();
    await page.waitForURL(new RegExp(`/dashboard/contacts/${kept.id}$`));
    await page.getByRole('heading', { level: 1, name: 'Gracie Murray' }).waitFor();
    const merged = (await ws.api('GET', `/v1/contacts/${kept.id}`)).body.data;
    expect(merged).toMatchObject({
      first_name: 'Gracie',
      last_name: 'Murray',
      company: 'Yale',
      phone: '+15550100',
      job_title: 'Professor',
    });
    expect(merged.email).toMatch(/^grace\./);
    expect([...merged.tags].sort()).toEqual(['x', 'y']);
    expect((await ws.api('GET', `/v1/contacts/${other.id}`)).status).toBe(404);
  });
});

describe('window sizes', () => {
  for (const [size, viewport] of Object.entries(SIZES)) {
    it(`list, selection and merge preview fit a ${size} without sideways scrolling`, async () => {
      const p = await context.newPage();
      await p.setViewportSize(viewport);
      await p.goto('/dashboard/contacts?tag=alpha&sort=name');
      await expect.poll(() => names(p)).toHaveLength(3);
      await p.getByLabel('Select Anna Xu').check();
      await p.getByRole('region', { name: 'Selected contacts' }).waitFor();
      await expectNoSidewaysScroll(p, 'list with a selection', { slack: 1 });
      await screenshot(p, `contacts-list-${size}`);
      const [a, b] = await contactsWhere({ tags: { contains: 'alpha' } });
      await p.goto(`/dashboard/contacts/${a.id}/merge?with=${b.id}`);
      await p.locator('tr[data-field="tags"] td.result').waitFor();
      await expectNoSidewaysScroll(p, 'merge preview', { slack: 1 });
      await screenshot(p, `contact-merge-${size}`);
      await p.close();
    });
  }
});
