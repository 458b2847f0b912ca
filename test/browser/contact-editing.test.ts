// Contacts made and changed in Chromium: a new contact from the list (the API's field errors shown
// first), an edit in place that never overwrites someone else's change unseen, notes in Markdown
// shown formatted without running anything a note holds, and both window sizes without sideways
// scrolling.
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

async function contactByEmail(address: string) {
  const { body } = await ws.api('POST', '/v1/contacts/query', { where: { email: { eq: address } } });
  return body.data[0];
}

describe('a new contact', () => {
  it('shows the API’s field errors, then opens the saved contact on its page', async () => {
    await page.goto('/dashboard/contacts');
    await page.getByRole('link', { name: 'New contact' }).click();
    await page.getByLabel('First name').fill('Katherine');
    await page.getByLabel('Email').fill('not an email');
    await page.getByRole('button', { name: 'Create contact' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('email');

    const address = `katherine.${Date.now().toString(36)}@example.com`;
    await page.getByLabel('Email').fill(address);
    await page.getByLabel('Last name').fill('Johnson');
    await page.getByLabel('Status').selectOption('customer');
    await page.getByLabel('Tags').fill('nasa, vip');
    await page.getByRole('button', { name: 'Create contact' }).click();
    await page.getByRole('heading', { level: 1, name: 'Katherine Johnson' }).waitFor();
    const saved = await contactByEmail(address);
    expect(saved).toMatchObject({ first_name: 'Katherine', last_name: 'Johnson', status: 'customer' });
    expect(saved.tags).toEqual(['nasa', 'vip']);
    expect(page.url()).toContain(`/dashboard/contacts/${saved.id}`);
  });
});

describe('a contact’s page', () => {
  it('edits in place, and refuses to overwrite a change saved meanwhile in another window', async () => {
    const address = `dorothy.${Date.now().toString(36)}@example.com`;
    const made = await ws.api('POST', '/v1/contacts', { first_name: 'Dorothy', last_name: 'Vaughan', email: address });
    const id = made.body.data.id;
    await page.goto(`/dashboard/contacts/${id}`);
    await page.getByRole('button', { name: 'Edit contact' }).click();
    await page.getByLabel('Job title').fill('Supervisor');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('button', { name: 'Edit contact' }).waitFor();
    expect(await page.locator('dl.settings').textContent()).toContain('Supervisor');
    expect((await ws.api('GET', `/v1/contacts/${id}`)).body.data.job_title).toBe('Supervisor');

    // Opened for an edit, then changed by someone else before it is saved.
    await page.getByRole('button', { name: 'Edit contact' }).click();
    expect((await ws.api('PUT', `/v1/contacts/${id}`, { phone: '+15550100' })).status).toBe(200);
    await page.getByLabel('Job title').fill('Programmer');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByRole('alert').filter({ hasText: 'Someone else changed this contact' }).waitFor();
    const now = (await ws.api('GET', `/v1/contacts/${id}`)).body.data;
    expect(now).toMatchObject({ job_title: 'Supervisor', phone: '+15550100' });
  });

  it('shows a change saved elsewhere without a reload, and holds it back while the form is open', async () => {
    const address = `katherine.${Date.now().toString(36)}@example.com`;
    const made = await ws.api('POST', '/v1/contacts', {
      first_name: 'Katherine',
      last_name: 'Johnson',
      email: address,
    });
    const id = made.body.data.id;
    await page.goto(`/dashboard/contacts/${id}`);
    await page.getByRole('button', { name: 'Edit contact' }).waitFor();
    // The page subscribes after it shows, and a change committed before that never reaches it:
    // a change is made until one shows, and only then does the test go on.
    let live = false;
    for (let tries = 1; !live && tries <= 30; tries++) {
      expect((await ws.api('PUT', `/v1/contacts/${id}`, { job_title: `Analyst ${tries}` })).status).toBe(200);
      const shown = page.locator('dl.settings').getByText(`Analyst ${tries}`);
      live = await shown.waitFor({ timeout: 1_000 }).then(
        () => true,
        () => false,
      );
    }
    expect(live, 'the page shows a change made elsewhere').toBe(true);
    expect((await ws.api('PUT', `/v1/contacts/${id}`, { job_title: 'Mathematician' })).status).toBe(200);
    await expect.poll(() => page.locator('dl.settings').textContent()).toContain('Mathematician');

    await page.getByRole('button', { name: 'Edit contact' }).click();
    expect((await ws.api('PUT', `/v1/contacts/${id}`, { phone: '+15550199' })).status).toBe(200);
    await page.getByRole('status').filter({ hasText: 'Someone else changed this contact' }).waitFor();
    // The open form keeps what it was filled with; cancelling shows the other change.
    await page.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.locator('dl.settings').textContent()).toContain('+15550199');
  });

  it('adds notes in Markdown, shown formatted, and nothing a note holds runs', async () => {
    const address = `mary.${Date.now().toString(36)}@example.com`;
    const made = await ws.api('POST', '/v1/contacts', { first_name: 'Mary', last_name: 'Jackson', email: address });
    const id = made.body.data.id;
    await page.goto(`/dashboard/contacts/${id}`);
    const text = [
      'Called about **the wind tunnel**.',
      '',
      '- follow up',
      '- send [the report](https://example.com/report)',
      '',
      '<img src="x" onerror="window.__noteRan = true"> [click](javascript:window.__noteRan=true)',
    ].join('\n');
    await page.getByLabel('Add a note').fill(text);
    await page.getByRole('button', { name: 'Add note' }).click();
    const note = page.locator('ol.notes li').first();
    await note.locator('strong', { hasText: 'the wind tunnel' }).waitFor();
    expect(await note.locator('li').count()).toBe(2);
    expect(await note.locator('a[href="https://example.com/report"]').count()).toBe(1);
    // The HTML is shown as text; the javascript: link has no target.
    expect(await note.locator('img').count()).toBe(0);
    expect(await note.textContent()).toContain('<img src="x"');
    for (const href of await note.locator('a').evaluateAll((as) => as.map((a) => a.getAttribute('href') ?? '')))
      expect(href.toLowerCase()).not.toContain('javascript:');
    await note
      .getByRole('link', { name: 'click' })
      .click({ trial: false })
      .catch(() => {});
    expect(await page.evaluate(() => (window as unknown as { __noteRan?: boolean }).__noteRan)).toBeUndefined();
    const stored = await ws.api('GET', `/v1/contacts/${id}/notes`);
    expect(stored.body.data[0].content).toBe(text);
    // The timeline tells it in words, without event codes.
    await page.goto(`/dashboard/contacts/${id}`);
    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline.locator('li').first().waitFor();
    expect(await timeline.locator('code').count()).toBe(0);
  });
});

describe('recording on a contact’s page', () => {
  it('logs an activity and adds a follow-up task, both on the contact’s timeline, by keyboard', async () => {
    const address = `christine.${Date.now().toString(36)}@example.com`;
    const made = await ws.api('POST', '/v1/contacts', { first_name: 'Christine', last_name: 'Darden', email: address });
    const id = made.body.data.id;
    await page.goto(`/dashboard/contacts/${id}`);
    await page.getByText('Log an activity').click();
    await page.getByLabel('Kind').selectOption('meeting');
    await page.getByLabel('Subject').fill('Sonic boom review');
    await page.getByLabel('What was said').fill('Agreed on the next wind tunnel slot.');
    await page.getByLabel('Subject').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Logged the meeting.' }).waitFor();
    const activities = (await ws.api('GET', `/v1/activities?contact_id=${id}`)).body.data;
    expect(activities).toHaveLength(1);
    expect(activities[0]).toMatchObject({ type: 'meeting', subject: 'Sonic boom review', contact_id: id });

    await page.getByText('Add a follow-up task').click();
    await page.getByLabel('Task').fill('Send the test report');
    await page.getByLabel('Task').press('Enter');
    await page.getByRole('status').filter({ hasText: 'Added the task “Send the test report”.' }).waitFor();
    const tasks = (await ws.api('GET', `/v1/tasks?related_to_type=contact&related_to_id=${id}`)).body.data;
    expect(tasks.map((t: { title: string }) => t.title)).toEqual(['Send the test report']);
    // An empty title is the API's to refuse, and its words are shown.
    await page.getByLabel('Task').press('Enter');
    await page.getByRole('alert').filter({ hasText: 'title' }).waitFor();

    const timeline = page.getByRole('region', { name: 'Timeline' });
    await timeline
      .getByText(/meeting/i)
      .first()
      .waitFor();
    await timeline.getByText(/task/i).first().waitFor();
  });
});

describe('both window sizes', () => {
  for (const [name, viewport] of Object.entries(SIZES)) {
    it(`has no sideways scrolling on the ${name} (${viewport.width} px)`, async () => {
      const sized = await context.newPage();
      await sized.setViewportSize(viewport);
      const made = await ws.api('POST', '/v1/contacts', {
        first_name: 'Annie',
        last_name: 'Easley',
        email: `annie.${name}.${Date.now().toString(36)}@example.com`,
        company: 'Lewis Research Center',
      });
      await ws.api('POST', `/v1/contacts/${made.body.data.id}/notes`, {
        content: 'A long line without spaces: https://example.com/a/very/long/path/that/keeps/going/and/going',
      });
      for (const [path, label] of [
        ['/dashboard/contacts', 'contacts'],
        ['/dashboard/contacts/new', 'contact-new'],
        [`/dashboard/contacts/${made.body.data.id}`, 'contact'],
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
