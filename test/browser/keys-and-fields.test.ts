// The API keys and custom fields pages in Chromium: a key created on the page works against /v1
// from the browser until it is revoked there; a field defined on the page is accepted by the API.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestWorkspace } from '../helpers/app.ts';
import { screenshot, signedInPage } from './browser.ts';

let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ ws, page, close } = await signedInPage({
    // So that the Copy button can write (and the test read) the clipboard.
    beforeSignIn: ({ app, context }) =>
      context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: app.base }),
  }));
});

afterAll(() => close?.());

/** A request from the page with a key: the session cookie goes along and must not matter. */
function fetchWithKey(key: string, method: string, path: string, body?: unknown) {
  return page.evaluate(
    async ({ key, method, path, body }) => {
      const r = await fetch(path, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
      return r.status;
    },
    { key, method, path, body },
  );
}

describe('API keys page', () => {
  it('creates a custom key shown once that works with fetch on /v1 within its permissions until revoked', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('Reporting');
    await page.getByLabel('Custom').check();
    await page.getByLabel('contacts read').check();
    await page.getByLabel('deals write').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByTestId('new-api-key');
    const key = (await shown.textContent())!;
    expect(key).toMatch(/^crm_live_/);
    await page.getByRole('button', { name: 'Copy' }).click();
    await expect
      .poll(() =>
        page
          .getByRole('status')
          .filter({ hasText: /clipboard|Ctrl\+C/ })
          .textContent(),
      )
      .toBe('Copied to the clipboard.');
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
    await screenshot(page, 'api-keys');

    const beforeUse = Date.now();
    expect(await fetchWithKey(key, 'GET', '/v1/contacts')).toBe(200);
    expect(await fetchWithKey(key, 'GET', '/v1/deals')).toBe(200);
    expect(await fetchWithKey(key, 'POST', '/v1/contacts', { first_name: 'No', email: 'no@example.com' })).toBe(403);

    const afterUse = Date.now();

    // Listed with its prefix, scope and use; the key itself appears nowhere after a reload.
    const row = page.getByRole('row', { name: /Reporting/ });
    const lastUsed = row.getByRole('cell').nth(4);
    // Recording the use is best effort, after the answer: reload until it shows.
    await expect
      .poll(async () => {
        await page.reload();
        return lastUsed.textContent();
      })
      .not.toBe('Never');
    expect(await row.textContent()).toContain(key.slice(0, 12));
    expect(await row.textContent()).toContain('contacts:read, deals:write');
    // The time of the use, as the page formats times (to the minute).
    const minutes = await page.evaluate(
      ({ from, to }) => {
        const format = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
        const out = new Set<string>();
        for (let t = from - 60_000; t <= to + 60_000; t += 30_000) out.add(format.format(new Date(t)));
        return [...out];
      },
      { from: beforeUse, to: afterUse },
    );
    expect(minutes).toContain(await lastUsed.textContent());
    expect(await page.content()).not.toContain(key);

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke Reporting' }).click();
    await expect.poll(() => row.textContent()).toContain('Revoked');
    expect(await fetchWithKey(key, 'GET', '/v1/contacts')).toBe(401);
  });

  it('creates a read-only key with an expiry date', async () => {
    await page.getByLabel('Name').fill('Auditor');
    await page.getByLabel('Read only').check();
    await page.getByLabel('Expires on').fill('2099-12-31');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.getByTestId('new-api-key').textContent())!;
    const row = page.getByRole('row', { name: /Auditor/ });
    await expect.poll(() => row.textContent()).toContain('Expires');
    expect(await row.textContent()).toContain('2099');
    expect(await fetchWithKey(key, 'GET', '/v1/contacts')).toBe(200);
    expect(await fetchWithKey(key, 'POST', '/v1/contacts', { first_name: 'No', email: 'no@example.com' })).toBe(403);
  });

  it('creates a full-access key that can write', async () => {
    await page.getByLabel('Name').fill('Integration');
    await page.getByLabel('Full access').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'New key “Integration”' }).count()).toBe(1);
    const key = (await page.getByTestId('new-api-key').textContent())!;
    await expect.poll(() => page.getByRole('row', { name: /Integration/ }).textContent()).toContain('Full access');
    expect(await fetchWithKey(key, 'POST', '/v1/contacts', { first_name: 'Yes', email: 'yes@example.com' })).toBe(201);
  });

  it('shows the server’s field errors', async () => {
    await page.getByLabel('Name').fill('Nothing allowed');
    await page.getByLabel('Custom').check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('permission');
  });
});

describe('custom fields page', () => {
  it('defines a select field the API then accepts, and removes it', async () => {
    await page.getByRole('link', { name: 'Custom fields' }).click();
    await page.getByLabel('Key').fill('industry');
    await page.getByLabel('Label').fill('Industry');
    await page.getByLabel('Type').selectOption('select');
    await page.getByLabel('Options').fill('saas, retail');
    await page.getByRole('button', { name: 'Add field' }).click();
    const row = page.getByRole('row', { name: /industry/ });
    await expect.poll(() => row.textContent()).toContain('saas, retail');
    await screenshot(page, 'custom-fields');

    const created = await ws.api('POST', '/v1/contacts', {
      first_name: 'Cy',
      email: 'cy@example.com',
      custom_fields: { industry: 'retail' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.custom_fields).toEqual({ industry: 'retail' });

    await row.getByRole('button', { name: 'Remove' }).click();
    await row.getByRole('button', { name: 'Remove industry' }).click();
    await expect.poll(() => page.getByText('No custom fields yet.').isVisible()).toBe(true);
    const after = await ws.api('POST', '/v1/contacts', {
      first_name: 'Di',
      email: 'di@example.com',
      custom_fields: { industry: 'retail' },
    });
    expect(after.body.data.custom_fields).toEqual({});
  });
});

describe('audit log page', () => {
  it('lists the writes made on the other pages, newest first, with who made them and the fields changed', async () => {
    await page.getByRole('link', { name: 'Audit log' }).click();
    await expect.poll(() => page.getByRole('heading', { name: 'Audit log' }).isVisible()).toBe(true);
    const table = page.getByRole('table');
    await expect.poll(() => table.getByRole('row').count()).toBeGreaterThan(2);
    // The key created and revoked, and the custom field, by the signed-in user through the dashboard.
    const text = (await table.textContent()) ?? '';
    expect(text).toContain('api key created');
    expect(text).toContain('api key revoked');
    expect(text).toContain('custom field created');
    expect(text).toContain('Dashboard');
    await page.getByLabel('Kind of record').selectOption('custom_field');
    await expect.poll(async () => ((await table.textContent()) ?? '').includes('api key created')).toBe(false);
    expect((await table.textContent()) ?? '').toContain('custom field created');
    await screenshot(page, 'audit-log');
  });

  it('filters by record id once the id is entered, not at every keystroke', async () => {
    await page.getByLabel('Kind of record').selectOption('');
    const asked: string[] = [];
    page.on('request', (r) => {
      const body = r.url().endsWith('/graphql') ? (r.postData() ?? '') : '';
      const id = /"record_id":"([^"]*)"/.exec(body)?.[1];
      if (id !== undefined) asked.push(id);
    });
    await page.getByLabel('Record id').pressSequentially('nomatch');
    await page.getByLabel('Record id').press('Enter');
    await expect.poll(() => page.getByText('No writes match.').isVisible()).toBe(true);
    expect(asked).toEqual(['nomatch']);
  });
});
