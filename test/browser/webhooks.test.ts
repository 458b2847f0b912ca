// The webhooks pages in Chromium against a local receiver: create with every setting, the secret
// shown once, a test send in the log, a failed delivery redelivered, and an edit.
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { receiver, type Receiver } from '../helpers/receiver.ts';
import { screenshot, signedInPage } from './browser.ts';

let app: TestApp;
let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
let hook: Receiver;
const nav = () => page.getByRole('navigation', { name: 'Main' });
/** The receiver fails while this is set. */
let failing = false;

beforeAll(async () => {
  hook = await receiver(() => (failing ? 500 : 200));
  // Its own schema on PostgreSQL: the delivery worker must not pick up other files' deliveries.
  ({ app, ws, page, close } = await signedInPage({ isolated: true }));
  app.worker({ pollMs: 100 }).start();
});

afterAll(async () => {
  await close?.();
  await hook?.close();
});

describe('webhooks pages', () => {
  let webhookUrl = '';

  it('creates a webhook with its settings and shows the signing secret once', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('link', { name: 'New webhook' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Orders');
    await page.getByLabel('URL', { exact: true }).fill(hook.url);
    await page.getByLabel('All deal events').check();
    await page.getByLabel('contact.created', { exact: true }).check();
    await page.getByLabel('HTTP method').selectOption('PUT');
    await page.getByLabel('Content type').selectOption('form');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header name').fill('X-Tenant');
    await page.getByLabel('Value', { exact: true }).fill('acme');
    await page.getByLabel('Timeout (seconds, 5–60)').fill('10');
    await page.getByLabel('Retries (0–10)').fill('0');
    await page.getByLabel('Seconds between retries').fill('7, 20');
    await page.getByLabel('Turn off after this many failures in a row (1–1000)').fill('50');
    await page.getByLabel('Payload').selectOption('record');
    await screenshot(page, 'webhook-form');
    // After a full-page screenshot (the window is resized for it) Chromium drops the next click on
    // this form; a click on the heading takes that place.
    await page.getByRole('heading', { level: 1 }).click();
    await page.getByRole('button', { name: 'Create webhook' }).click();

    const secret = (await page.getByTestId('webhook-secret').textContent())!;
    expect(secret.length).toBeGreaterThanOrEqual(16);
    await screenshot(page, 'webhook-created');
    await page.getByRole('link', { name: 'Open Orders' }).click();
    webhookUrl = page.url();
    expect(await page.content()).not.toContain(secret);

    const listed = await ws.api('GET', '/v1/webhooks');
    expect(listed.body.data).toHaveLength(1);
    expect(listed.body.data[0]).toMatchObject({
      name: 'Orders',
      http_method: 'PUT',
      content_type: 'form',
      headers: { 'X-Tenant': 'acme' },
      timeout_seconds: 10,
      retry_policy: { max_retries: 0, intervals_seconds: [7, 20] },
      auto_disable_after: 50,
      payload_format: 'record',
      active: true,
    });
    expect(listed.body.data[0].events).toContain('deal.stage_changed');
    expect(listed.body.data[0].events).toContain('contact.created');
    expect(listed.body.data[0].events.filter((e: string) => e.startsWith('contact.'))).toEqual(['contact.created']);

    // The list page shows it with its status.
    await nav().getByRole('link', { name: 'Webhooks' }).click();
    const row = page.getByRole('row', { name: /Orders/ });
    await expect.poll(() => row.textContent()).toContain('Active');
    expect(await row.textContent()).toContain(hook.url);
    await screenshot(page, 'webhooks');
  });

  it('sends a test and shows it in the delivery log with code, time and response body', async () => {
    await page.goto(webhookUrl);
    await page.getByRole('button', { name: 'Send test' }).click();
    await page.getByRole('heading', { name: 'Test send' }).waitFor();
    const row = page.locator('table.log tbody tr').first();
    await expect.poll(() => row.textContent()).toContain('test');
    const text = (await row.textContent())!;
    expect(text).toContain('delivered');
    expect(text).toContain('200');
    expect(text).toMatch(/\d+ ms/);
    // Attempts: a test send is one attempt.
    expect(await row.locator('td').nth(5).textContent()).toBe('1');
    await row.getByText(/characters/).click();
    expect((await row.locator('pre').textContent())!.length).toBe(1000);
    expect(hook.hits.some((h) => h.method === 'PUT' && h.headers['x-tenant'] === 'acme')).toBe(true);
    expect(hook.hits.every((h) => h.headers['content-type']?.startsWith('application/x-www-form-urlencoded'))).toBe(
      true,
    );
    await screenshot(page, 'webhook-log');
  });

  it('redelivers a failed delivery from the log', async () => {
    failing = true;
    const { body } = await ws.api('GET', '/v1/pipelines');
    await ws.api('POST', '/v1/deals', { title: 'Big order', pipeline_id: body.data[0].id, value: 1000 });
    await page.goto(webhookUrl);
    const failed = page.locator('table.log tbody tr[data-status="failed"]');
    await expect.poll(() => failed.count(), { timeout: 15_000 }).toBe(1);
    expect(await failed.textContent()).toContain('500');

    failing = false;
    await failed.getByRole('button', { name: /Redeliver/ }).click();
    const delivered = page.locator('table.log tbody tr[data-status="delivered"]', { hasText: 'deal.created' });
    await expect.poll(() => delivered.count(), { timeout: 15_000 }).toBe(1);
  });

  it('edits a setting', async () => {
    await page.goto(webhookUrl);
    await page.getByRole('link', { name: 'Edit settings' }).click();
    await page.getByLabel('Timeout (seconds, 5–60)').fill('45');
    await page.getByLabel('Active (deliveries are kept').uncheck();
    await screenshot(page, 'webhook-edit');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('button', { name: 'Send test' }).waitFor();
    expect(await page.locator('dl.settings').textContent()).toContain('45 s');
    expect(await page.getByText('Inactive').first().isVisible()).toBe(true);
    const listed = await ws.api('GET', '/v1/webhooks');
    // Unchanged settings survive the edit form's round trip.
    expect(listed.body.data[0]).toMatchObject({
      timeout_seconds: 45,
      active: false,
      name: 'Orders',
      content_type: 'form',
      retry_policy: { max_retries: 0, intervals_seconds: [7, 20] },
    });
    await nav().getByRole('link', { name: 'Webhooks' }).click();
    await expect.poll(() => page.getByRole('row', { name: /Orders/ }).textContent()).toContain('Inactive');
  });
});
