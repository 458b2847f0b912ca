// Companies in Chromium: a new company from the list (the API's field errors shown first), fields
// edited in place that never overwrite someone else's change unseen, its contacts and deals as links,
// its timeline in words, the list's search and sort kept in the URL, and both window sizes without
// sideways scrolling.
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

const unique = () => Date.now().toString(36) + Math.random().toString(36).slice(2, 6);

async function company(body: Record<string, unknown>): Promise<{ id: string; name: string }> {
  const res = await ws.api('POST', '/v1/companies', body);
  expect(res.status).toBe(201);
  return res.body.data;
}

describe('a new company', () => {
  it('shows the API’s field errors, then opens the saved company on its page', async () => {
    await page.goto('/dashboard/companies');
    await page.getByRole('link', { name: 'New company' }).click();
    await page.getByRole('heading', { level: 1, name: 'New company' }).waitFor();
    // No name and a negative size: both refused by the API, each named.
    await page.getByLabel('Employees').fill('-5');
    await page.getByRole('button', { name: 'Create company' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/name|size/);

    const domain = `initech-${unique()}.example`;
    await page.getByLabel('Name').fill('Initech');
    await page.getByLabel('Domain').fill(`https://www.${domain}/about`);
    await page.getByLabel('Industry').fill('Software');
    await page.getByLabel('Employees').fill('120');
    await page.getByLabel('Tags').fill('b2b, printers');
    await page.getByRole('button', { name: 'Create company' }).click();
    await page.getByRole('heading', { level: 1, name: 'Initech' }).waitFor();
    const id = page.url().split('/').pop();
    const saved = (await ws.api('GET', `/v1/companies/${id}`)).body.data;
    expect(saved).toMatchObject({
      name: 'Initech',
      domain,
      industry: 'Software',
      size: 120,
      tags: ['b2b', 'printers'],
    });
  });
});

describe('a company’s page', () => {
  it('edits fields in place from the keyboard, and refuses to overwrite a change saved meanwhile', async () => {
    const made = await company({ name: 'Globex', industry: 'Energy' });
    await page.goto(`/dashboard/companies/${made.id}`);
    await page.getByRole('heading', { level: 1, name: 'Globex' }).waitFor();
    await page.getByRole('button', { name: 'Edit industry' }).focus();
    await page.keyboard.press('Enter');
    await page.getByLabel('industry', { exact: true }).fill('Utilities');
    await page.keyboard.press('Enter');
    await page.locator('dl.settings').getByText('Utilities').waitFor();
    // Focus returns to the Edit button, so the next edit is one key away.
    expect(await page.evaluate(() => document.activeElement?.getAttribute('aria-label'))).toBe('Edit industry');
    expect((await ws.api('GET', `/v1/companies/${made.id}`)).body.data.industry).toBe('Utilities');

    // A blank name is the API's to refuse, and its words are shown.
    await page.getByRole('button', { name: 'Edit name' }).click();
    await page.getByLabel('name', { exact: true }).fill('');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'name' }).waitFor();
    await page.keyboard.press('Escape');

    // Opened for an edit, then changed by someone else before it is saved.
    await page.getByRole('button', { name: 'Edit industry' }).click();
    expect((await ws.api('PUT', `/v1/companies/${made.id}`, { phone: '+14155550100' })).status).toBe(200);
    await page.getByLabel('industry', { exact: true }).fill('Nuclear');
    await page.keyboard.press('Enter');
    await page.getByRole('alert').filter({ hasText: 'Someone else changed this company' }).waitFor();
    const now = (await ws.api('GET', `/v1/companies/${made.id}`)).body.data;
    expect(now).toMatchObject({ industry: 'Utilities', phone: '+14155550100' });
    // Read again, the page shows their change, and an edit then applies.
    await page.reload();
    await page.locator('dl.settings').getByText('+14155550100').waitFor();
    await page.getByRole('button', { name: 'Edit industry' }).click();
    await page.getByLabel('industry', { exact: true }).fill('Nuclear');
    await page.keyboard.press('Enter');
    await page.locator('dl.settings').getByText('Nuclear').waitFor();
    expect((await ws.api('GET', `/v1/companies/${made.id}`)).body.data).toMatchObject({
      industry: 'Nuclear',
      phone: '+14155550100',
    });
  });

  it('lists its contacts and deals as links, activities with its contacts, and its timeline in words', async () => {
    const made = await company({ name: 'Hooli', domain: `hooli-${unique()}.example` });
    const contact = (
      await ws.api('POST', '/v1/contacts', {
        first_name: 'Gavin',
        last_name: 'Belson',
        email: `gavin.${unique()}@example.com`,
        company_id: made.id,
        job_title: 'CEO',
      })
    ).body.data;
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const deal = (
      await ws.api('POST', '/v1/deals', {
        title: 'Nucleus licence',
        value: 5000,
        pipeline_id: pipeline.id,
        company_id: made.id,
        contact_id: contact.id,
      })
    ).body.data;
    await ws.api('POST', '/v1/activities', { type: 'call', subject: 'Compression demo', contact_id: contact.id });
    await ws.api('PUT', `/v1/companies/${made.id}`, { industry: 'Search' });

    await page.goto(`/dashboard/companies/${made.id}`);
    const contacts = page.getByRole('region', { name: 'Contacts', exact: true });
    const contactLink = contacts.getByRole('link', { name: 'Gavin Belson' });
    await contactLink.waitFor();
    expect(await contactLink.getAttribute('href')).toBe(`/dashboard/contacts/${contact.id}`);
    const dealLink = page
      .getByRole('region', { name: 'Deals', exact: true })
      .getByRole('link', { name: 'Nucleus licence' });
    expect(await dealLink.getAttribute('href')).toBe(`/dashboard/deals/${deal.id}`);
    await page.getByRole('region', { name: 'Activities' }).getByText('Compression demo').waitFor();

    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.getByText('Updated industry').waitFor();
    await timeline.getByText('Company created').waitFor();
    const lines = await timeline.locator('li .summary').allTextContents();
    expect(lines.length).toBeGreaterThanOrEqual(3);
    // Words, not event codes such as deal.created.
    for (const line of lines) expect(line).not.toMatch(/\b[a-z]+\.[a-z_]+\b/);
    await screenshot(page, 'company');

    // The contact's page shows its company as a link back here.
    await contactLink.click();
    await page.getByRole('heading', { level: 1, name: 'Gavin Belson' }).waitFor();
    await page.locator('dl.settings').getByRole('link', { name: 'Hooli' }).click();
    await page.getByRole('heading', { level: 1, name: 'Hooli' }).waitFor();
  });

  it('merges a duplicate into it, after a confirmation: its contacts move over and it is gone', async () => {
    const word = `dup${unique()}`;
    const primary = await company({ name: `Umbrella ${word}`, industry: 'Pharma' });
    const duplicate = await company({ name: `Umbrella Corp ${word}`, tags: ['raccoon-city'] });
    const contact = (
      await ws.api('POST', '/v1/contacts', {
        first_name: 'Albert',
        last_name: 'Wesker',
        email: `wesker.${unique()}@example.com`,
        company_id: duplicate.id,
      })
    ).body.data;
    await page.goto(`/dashboard/companies/${primary.id}`);
    await page.getByText('No contacts work here yet.').waitFor();
    await page.getByText('Merge another company into this one').click();
    await page.getByLabel('Find the duplicate').fill(word);
    await page.getByLabel('Find the duplicate').press('Enter');
    // The company shown is not offered as its own duplicate.
    const choices = page.getByRole('group', { name: /Company to merge into/ }).getByRole('radio');
    await choices.first().waitFor();
    expect(await choices.count()).toBe(1);
    await page.getByRole('radio', { name: `Umbrella Corp ${word}` }).check();
    await page.getByRole('button', { name: 'Merge into this company' }).click();
    await page.getByRole('button', { name: `Merge and delete “Umbrella Corp ${word}”` }).click();
    await page.getByRole('status').filter({ hasText: 'Merged' }).waitFor();
    await page
      .getByRole('region', { name: 'Contacts', exact: true })
      .getByRole('link', { name: 'Albert Wesker' })
      .waitFor();
    await page.locator('dl.settings').getByText('raccoon-city').waitFor();
    expect((await ws.api('GET', `/v1/companies/${duplicate.id}`)).status).toBe(404);
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).body.data.company_id).toBe(primary.id);
    await page.getByRole('region', { name: 'Timeline' }).getByText(`Merged with Umbrella Corp ${word}`).waitFor();
  });

  it('says so when the company does not exist', async () => {
    await page.goto('/dashboard/companies/com_missing');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('heading', { level: 1 }).count()).toBe(0);
  });
});

describe('the companies list', () => {
  it('searches with the API’s company search and sorts, both kept in the URL', async () => {
    const word = `zq${unique()}`;
    for (const name of ['Mu', 'Alpha', 'Zeta']) await company({ name: `${name} ${word}`, industry: 'Testing' });
    const names = async () =>
      (await page.locator('table.companies-table tbody td:first-child a').allTextContents()).filter((n) =>
        n.endsWith(word),
      );

    await page.goto('/dashboard/companies');
    await page.getByText(`Zeta ${word}`).waitFor();
    // Newest first by default.
    expect(await names()).toEqual([`Zeta ${word}`, `Alpha ${word}`, `Mu ${word}`]);
    await page.getByLabel('Sort').selectOption('name_asc');
    await expect.poll(names).toEqual([`Alpha ${word}`, `Mu ${word}`, `Zeta ${word}`]);
    expect(new URL(page.url()).searchParams.get('sort')).toBe('name_asc');
    await page.reload();
    await expect.poll(names).toEqual([`Alpha ${word}`, `Mu ${word}`, `Zeta ${word}`]);
    expect(await page.getByLabel('Sort').inputValue()).toBe('name_asc');
    await page.getByLabel('Sort').selectOption('name_desc');
    await expect.poll(names).toEqual([`Zeta ${word}`, `Mu ${word}`, `Alpha ${word}`]);

    await page.getByLabel('Search companies').fill(word.slice(0, -2));
    await page.getByLabel('Search companies').press('Enter');
    await page.getByText(`3 companies match “${word.slice(0, -2)}”`).waitFor();
    expect((await names()).sort()).toEqual([`Alpha ${word}`, `Mu ${word}`, `Zeta ${word}`]);
    expect(new URL(page.url()).searchParams.get('q')).toBe(word.slice(0, -2));
    await screenshot(page, 'companies-search');
    await page.getByLabel('Search companies').fill(`nothing${word}`);
    await page.getByLabel('Search companies').press('Enter');
    await page.getByText('No company matches.').waitFor();
  });
});

describe('both window sizes', () => {
  for (const [name, viewport] of Object.entries(SIZES)) {
    it(`has no sideways scrolling on the ${name} (${viewport.width} px)`, async () => {
      const sized = await context.newPage();
      await sized.setViewportSize(viewport);
      const made = await company({
        name: 'Massive Dynamic International Holdings',
        domain: `massive-dynamic-with-a-rather-long-domain-${name}-${unique()}.example`,
        industry: 'Research and development',
        size: 12000,
      });
      await ws.api('POST', '/v1/contacts', {
        first_name: 'Nina',
        last_name: 'Sharp',
        email: `nina.sharp.with.a.long.address.${unique()}@example.com`,
        company_id: made.id,
      });
      for (const [path, label] of [
        ['/dashboard/companies', 'companies'],
        ['/dashboard/companies/new', 'company-new'],
        [`/dashboard/companies/${made.id}`, 'company'],
      ]) {
        await sized.goto(path);
        await sized.getByRole('heading', { level: 1 }).waitFor();
        await sized.waitForLoadState('networkidle');
        await expectNoSidewaysScroll(sized, path, { slack: 1 });
        await screenshot(sized, `${label}-${name}`);
      }
      await sized.close();
    });
  }
});
