// The Insight page in Chromium: empty states first; then deals won and lost and webhook deliveries
// made through the API (one endpoint answering 200, one 500), and each chart drawn on a canvas with
// its table showing the figures: open value per stage and currency, won/lost, win rate and median
// cycle of this month, each endpoint's deliveries and success rate. An API error shown in place.
// Both window sizes without sideways scrolling, and the tables opened by keyboard.
import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp, TestWorkspace } from '../helpers/app.ts';
import { receiver, type Receiver } from '../helpers/receiver.ts';
import { atBothSizes, signedInPage } from './browser.ts';

let app: TestApp;
let page: Page;
let ws: TestWorkspace;
let close: () => Promise<void>;
let ok: Receiver;
let broken: Receiver;
let pipelineId: string;
let stages: { id: string; name: string }[];
const webhooks = new Map<string, string>();
const DAY = 86_400_000;

const section = (name: string) => page.locator(`section[data-chart="${name}"]`);
const money = (value: number, currency: string) =>
  page.evaluate(
    ([v, c]) =>
      new Intl.NumberFormat(undefined, { style: 'currency', currency: c, maximumFractionDigits: 0 }).format(v),
    [value, currency] as [number, string],
  );
/** The cells of a table row, as text. */
const cells = (row: Locator) => row.locator('th, td').allTextContents();

/** Every canvas of a section has been given a size by the chart library. */
async function chartsDrawn(name: string, count: number) {
  const canvases = section(name).locator('canvas');
  await expect.poll(() => canvases.count()).toBe(count);
  for (const canvas of await canvases.all()) {
    const box = await canvas.boundingBox();
    expect(box?.width, `${name} canvas width`).toBeGreaterThan(100);
    expect(box?.height, `${name} canvas height`).toBeGreaterThan(100);
    expect(await canvas.getAttribute('role')).toBe('img');
  }
}

/** A wait for each named section's charts (how many canvases it draws), to run again at each window size. */
const drawn = (charts: Record<string, number>) => async () => {
  for (const [chart, count] of Object.entries(charts)) await chartsDrawn(chart, count);
};

/** A deal made through the API; closed ones are then dated as if created `cycleDays` before they closed. */
async function deal(body: Record<string, unknown>, close?: { status: 'won' | 'lost'; cycleDays: number }) {
  const r = await ws.api('POST', '/v1/deals', { title: 'Deal', pipeline_id: pipelineId, ...body });
  expect(r.status).toBe(201);
  if (!close) return;
  const closed = await ws.api('PUT', `/v1/deals/${r.body.data.id}`, { status: close.status });
  expect(closed.status).toBe(200);
  const closedAt = new Date(closed.body.data.closed_at);
  await app.db.prisma.deal.update({
    where: { id: r.body.data.id },
    data: { createdAt: new Date(closedAt.getTime() - close.cycleDays * DAY) },
  });
}

beforeAll(async () => {
  [ok, broken] = await Promise.all([receiver(() => 200), receiver(() => 500)]);
  ({ app, ws, page, close } = await signedInPage({
    // Its own schema on PostgreSQL: the delivery worker must not pick up other files' deliveries.
    isolated: true,
    // The charts must draw under the page's Content-Security-Policy (no inline styles or scripts).
    beforeSignIn: ({ context }) =>
      context.addInitScript(() => {
        const seen: string[] = [];
        (window as unknown as { cspViolations: string[] }).cspViolations = seen;
        document.addEventListener('securitypolicyviolation', (e) =>
          seen.push(`${e.violatedDirective} ${e.blockedURI}`),
        );
      }),
  }));
  app.worker({ pollMs: 100 }).start();
  const { body } = await ws.api('GET', '/v1/pipelines');
  pipelineId = body.data[0].id;
  stages = body.data[0].stages;
});

afterAll(async () => {
  await close?.();
  await ok?.close();
  await broken?.close();
});

describe('the Insight page', () => {
  it('says so when there is nothing to chart yet', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Insight' }).click();
    await page.getByRole('heading', { name: 'Insight', level: 1 }).waitFor();
    await section('pipeline-value').getByText('This pipeline has no open deals.').waitFor();
    await section('win-rate').getByText('No deal closed in the last 12 months.').waitFor();
    await section('webhook-deliveries').getByText('No webhook delivery in the last 7 days.').waitFor();
    expect(await page.locator('canvas').count()).toBe(0);
    await atBothSizes(page, 'insight-empty');
  });

  it('charts the deals and deliveries made through the API, with the same figures in the tables', async () => {
    for (const [name, url] of [
      ['Fulfilment', ok.url],
      ['Legacy ERP', broken.url],
    ]) {
      const r = await ws.api('POST', '/v1/webhooks', {
        name,
        url,
        events: ['deal.created'],
        retry_policy: { max_retries: 0, intervals_seconds: [60] },
      });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      webhooks.set(name, r.body.data.id);
    }
    await deal({ stage_id: stages[0].id, value: 1000, currency: 'USD' });
    await deal({ stage_id: stages[0].id, value: 500, currency: 'USD' });
    await deal({ stage_id: stages[1].id, value: 300, currency: 'EUR' });
    await deal({ value: 9000 }, { status: 'won', cycleDays: 2 });
    await deal({ value: 9000 }, { status: 'won', cycleDays: 4 });
    await deal({ value: 9000 }, { status: 'won', cycleDays: 6 });
    await deal({ value: 9000 }, { status: 'lost', cycleDays: 10 });
    // Seven deal.created events to each endpoint: delivered to one, failed (no retries) at the other.
    const finished = async (name: string, status: string) => {
      const r = await ws.api('GET', `/v1/webhooks/${webhooks.get(name)}/logs?status=${status}&limit=100`);
      return r.body.data.length;
    };
    await expect.poll(() => finished('Fulfilment', 'delivered'), { timeout: 20_000 }).toBe(7);
    await expect.poll(() => finished('Legacy ERP', 'failed'), { timeout: 20_000 }).toBe(7);

    await page.reload();
    await chartsDrawn('pipeline-value', 2);
    await chartsDrawn('win-rate', 2);
    await chartsDrawn('webhook-deliveries', 2);

    // Pipeline value: USD and EUR apart, won and lost deals left out.
    const value = section('pipeline-value');
    expect(await value.locator('figcaption').allTextContents()).toEqual(['EUR', 'USD']);
    expect(await cells(value.locator(`tr[data-stage="${stages[0].name}"]`))).toEqual([
      stages[0].name,
      `${await money(0, 'EUR')} (0 deals)`,
      `${await money(1500, 'USD')} (2 deals)`,
    ]);
    expect(await cells(value.locator(`tr[data-stage="${stages[1].name}"]`))).toEqual([
      stages[1].name,
      `${await money(300, 'EUR')} (1 deal)`,
      `${await money(0, 'USD')} (0 deals)`,
    ]);

    // This month: 3 won, 1 lost, 75 %, median of 2, 4, 6 and 10 days.
    const now = new Date();
    const month = `${now.getUTCFullYear()}-${String(now.getUTCMonth() + 1).padStart(2, '0')}`;
    const rows = section('win-rate').locator('tbody tr');
    expect(await rows.count()).toBe(12);
    const thisMonth = await cells(section('win-rate').locator(`tr[data-month="${month}"]`));
    expect(thisMonth.slice(1)).toEqual(['3', '1', '75%', '5.0']);
    expect(await cells(rows.first())).toEqual([expect.any(String), '0', '0', '—', '—']);

    // Deliveries per endpoint: all delivered at one, all failed at the other.
    const hooks = section('webhook-deliveries');
    const good = await cells(hooks.locator(`tr[data-webhook="${webhooks.get('Fulfilment')}"]`));
    expect(good.slice(0, 6)).toEqual(['Fulfilment', '7', '7', '0', '0', '100%']);
    expect(good[6]).toMatch(/^\d+ ms$/);
    expect(good[7]).toMatch(/^\d+ ms$/);
    const bad = await cells(hooks.locator(`tr[data-webhook="${webhooks.get('Legacy ERP')}"]`));
    expect(bad.slice(0, 6)).toEqual(['Legacy ERP', '7', '0', '7', '0', '0%']);

    await atBothSizes(page, 'insight', {
      beforeScreenshot: drawn({ 'pipeline-value': 2, 'win-rate': 2, 'webhook-deliveries': 2 }),
    });
    expect(await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations)).toEqual([]);
  });

  it('opens a chart’s table from the keyboard', async () => {
    const summary = section('win-rate').getByText('Table of win rate and sales cycle by month');
    await summary.focus();
    await page.keyboard.press('Enter');
    expect(await section('win-rate').locator('details').getAttribute('open')).not.toBeNull();
    expect(await section('win-rate').getByRole('columnheader', { name: 'Win rate' }).isVisible()).toBe(true);
    // On to the next section: its Days choice, then its table.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.closest('label')?.textContent)).toMatch(/^Days/);
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(
      'Table of webhook deliveries by endpoint',
    );
    await page.keyboard.press('Enter');
    await atBothSizes(page, 'insight-tables', { beforeScreenshot: drawn({ 'webhook-deliveries': 2 }) });
  });

  it('shows the error the API gives for a chart, and the others still', async () => {
    await page.route('**/graphql', async (route) => {
      if (!route.request().postData()?.includes('webhookDeliveryStats')) return route.fallback();
      await route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          errors: [
            {
              message: 'The request has invalid fields',
              extensions: { code: 'validation_error', details: { days: ['must be a whole number from 1 to 90'] } },
            },
          ],
        }),
      });
    });
    await section('webhook-deliveries').getByLabel('Days').selectOption('30');
    const alert = section('webhook-deliveries').getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('must be a whole number from 1 to 90');
    await chartsDrawn('pipeline-value', 2);
    await page.unroute('**/graphql');
  });
});
