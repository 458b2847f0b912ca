// A company's page live in Chromium: a change saved elsewhere (the REST API) shows without a
// reload, but never under an open inline editor: the page says the company changed meanwhile, the
// editor's save is refused, and cancelling shows the change. Its lists follow its contacts, and a
// company merged away or deleted says so. Both window sizes without sideways scrolling.
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { expectNoSidewaysScroll, screenshot, SIZES, signedInPage } from './browser.ts';

let context: BrowserContext;
let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ws, context, page, close } = await signedInPage({ live: true }));
});

afterAll(() => close?.());

const unique = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

async function company(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await ws.api('POST', '/v1/companies', body);
  expect(res.status, res.text).toBe(201);
  return res.body.data;
}

let canary = 0;

/**
 * Waits until the page's live subscription is open: the page subscribes after it shows, and a
 * change committed before that never reaches it. So a change is made until one shows (the phone,
 * which the tests leave alone), and only then does a test go on.
 */
async function live(p: Page, id: string) {
  for (let tries = 0; tries < 30; tries++) {
    const phone = `+1415555${String(++canary).padStart(4, '0')}`;
    expect((await ws.api('PUT', `/v1/companies/${id}`, { phone })).status).toBe(200);
    const shown = p.locator('dl.company-fields').getByText(phone);
    if (
      await shown.waitFor({ timeout: 1_000 }).then(
        () => true,
        () => false,
      )
    )
      return;
  }
  throw new Error(`the page of ${id} never showed a change made elsewhere`);
}

/** Opens the company's page once it is live. */
async function open(p: Page, id: string, name: string) {
  await p.goto(`/dashboard/companies/${id}`);
  await p.getByRole('heading', { level: 1, name }).waitFor();
  await live(p, id);
}

const fields = (p: Page = page) => p.locator('dl.company-fields').textContent();

describe('a company’s page, live', () => {
  it('shows a change saved elsewhere at once, and a contact that joins it', async () => {
    const made = await company({ name: 'Umbrella', industry: 'Pharma' });
    await open(page, made.id, 'Umbrella');
    expect((await ws.api('PUT', `/v1/companies/${made.id}`, { industry: 'Biotech' })).status).toBe(200);
    await expect.poll(() => fields()).toContain('Biotech');

    const contacts = page.getByRole('region', { name: 'Contacts', exact: true });
    await contacts.getByText('No contacts work here yet.').waitFor();
    await ws.api('POST', '/v1/contacts', {
      first_name: 'Alice',
      last_name: 'Abernathy',
      email: `alice.${unique()}@example.com`,
      company_id: made.id,
    });
    await contacts.getByRole('link', { name: 'Alice Abernathy' }).waitFor();
  });

  it('holds a change back while a field is being edited: says so, refuses the save, shows it on cancel', async () => {
    const made = await company({ name: 'Cyberdyne', industry: 'Robotics' });
    await open(page, made.id, 'Cyberdyne');
    await page.getByRole('button', { name: 'Edit industry' }).click();
    await page.getByLabel('industry', { exact: true }).fill('Defence');
    expect((await ws.api('PUT', `/v1/companies/${made.id}`, { phone: '+14155550177' })).status).toBe(200);
    await page.getByRole('status').filter({ hasText: 'Someone else changed this company' }).waitFor();
    // The open editor keeps what was typed; the page does not show the change under it.
    expect(await page.getByLabel('industry', { exact: true }).inputValue()).toBe('Defence');
    expect(await fields()).not.toContain('+14155550177');
    await screenshot(page, 'company-live-held');

    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'this was not saved: cancel to see their change' }).waitFor();
    expect((await ws.api('GET', `/v1/companies/${made.id}`)).body.data).toMatchObject({
      industry: 'Robotics',
      phone: '+14155550177',
    });

    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => fields()).toContain('+14155550177');
    expect(await page.getByRole('status').filter({ hasText: 'Someone else changed' }).count()).toBe(0);
    // Now at the version shown, an edit saves.
    await page.getByRole('button', { name: 'Edit industry' }).click();
    await page.getByLabel('industry', { exact: true }).fill('Defence');
    await page.keyboard.press('Enter');
    await page.locator('dl.company-fields').getByText('Defence').waitFor();
    expect((await ws.api('GET', `/v1/companies/${made.id}`)).body.data.industry).toBe('Defence');
  });

  it('says so when the company is merged into another, linking the survivor, or deleted', async () => {
    const survivor = await company({ name: 'Wayne Enterprises' });
    const duplicate = await company({ name: 'Wayne Ent.' });
    await open(page, duplicate.id, 'Wayne Ent.');
    const merged = await ws.api('POST', '/v1/companies/merge', {
      primary_id: survivor.id,
      secondary_id: duplicate.id,
    });
    expect(merged.status, merged.text).toBe(200);
    const status = page.getByRole('status').filter({ hasText: 'This company was merged into' });
    await status.getByRole('link', { name: 'Wayne Enterprises' }).waitFor();
    expect(await page.getByRole('button', { name: 'Edit industry' }).count()).toBe(0);

    await status.getByRole('link', { name: 'Wayne Enterprises' }).click();
    await page.getByRole('heading', { level: 1, name: 'Wayne Enterprises' }).waitFor();
    await live(page, survivor.id);
    expect((await ws.api('DELETE', `/v1/companies/${survivor.id}`)).status).toBe(200);
    await page.getByRole('status').filter({ hasText: 'This company was deleted.' }).waitFor();
    await page.getByRole('link', { name: 'All companies' }).waitFor();
  });
});

describe('both window sizes', () => {
  for (const [name, viewport] of Object.entries(SIZES)) {
    it(`has no sideways scrolling on the ${name} (${viewport.width} px), held back or gone`, async () => {
      const sized = await context.newPage();
      await sized.setViewportSize(viewport);
      const made = await company({ name: 'Soylent Corporation', domain: `soylent-${unique()}.example` });
      await open(sized, made.id, 'Soylent Corporation');
      await sized.getByRole('button', { name: 'Edit industry' }).click();
      expect((await ws.api('PUT', `/v1/companies/${made.id}`, { industry: 'Food' })).status).toBe(200);
      await sized.getByRole('status').filter({ hasText: 'Someone else changed this company' }).waitFor();
      await expectNoSidewaysScroll(sized, 'held back', { slack: 1 });
      await screenshot(sized, `company-live-held-${name}`);

      expect((await ws.api('DELETE', `/v1/companies/${made.id}`)).status).toBe(200);
      await sized.getByRole('status').filter({ hasText: 'This company was deleted.' }).waitFor();
      // The editor it closed reads nothing again, so no "not found" either.
      expect(await sized.getByRole('alert').count()).toBe(0);
      await expectNoSidewaysScroll(sized, 'deleted', { slack: 1 });
      await screenshot(sized, `company-live-deleted-${name}`);
      await sized.close();
    });
  }
});
