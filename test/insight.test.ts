// The Insight page's aggregates: open value per stage and currency, won/lost and median cycle per
// closing month, webhook success rate and response-time percentiles; exact figures from records
// made here (dates set in the database, as the API stamps them with the current time).
import { describe, expect, it } from 'vitest';
import { fillMonths, monthsEndingAt, windowStart } from '../src/schema/insight/insight.rules.ts';
import { gql, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const DAY = 86_400_000;

test.beforeAll(async ({ app: started, ws: main, other: neighbour }) => {
  app = started;
  ws = main;
  other = neighbour;
});

const ask = (key: string, query: string, variables?: Record<string, unknown>) => gql(app.base, key, query, variables);

async function newPipeline(w: TestWorkspace): Promise<{ id: string; stages: { id: string }[] }> {
  const r = await w.api('POST', '/v1/pipelines', {
    name: `Insight ${Math.random().toString(36).slice(2, 7)}`,
    stages: [{ name: 'Lead' }, { name: 'Offer' }, { name: 'Signed' }],
  });
  expect(r.status).toBe(201);
  return r.body.data;
}

/** A deal created `cycleDays` before `closedAt` and closed then with `status`; open when closedAt is null. */
async function deal(
  w: TestWorkspace,
  pipelineId: string,
  body: Record<string, unknown>,
  close?: { status: 'won' | 'lost'; closedAt: Date; cycleDays: number },
): Promise<string> {
  const r = await w.api('POST', '/v1/deals', { title: 'D', pipeline_id: pipelineId, ...body });
  expect(r.status).toBe(201);
  const id = r.body.data.id as string;
  if (close) {
    expect((await w.api('PUT', `/v1/deals/${id}`, { status: close.status })).status).toBe(200);
    await app.db.prisma.deal.update({
      where: { id },
      data: { closedAt: close.closedAt, createdAt: new Date(close.closedAt.getTime() - close.cycleDays * DAY) },
    });
  }
  return id;
}

describe('insight rules', () => {
  it('lists the months of a window across a year end, oldest first', () => {
    const now = new Date('2027-02-10T08:00:00Z');
    expect(monthsEndingAt(now, 4)).toEqual(['2026-11', '2026-12', '2027-01', '2027-02']);
    expect(windowStart(now, 4).toISOString()).toBe('2026-11-01T00:00:00.000Z');
  });

  it('fills months without closed deals with zeros and no rate', () => {
    expect(fillMonths(['2026-10', '2026-11'], [{ month: '2026-11', won: 3, lost: 1, median_days: 5.5 }])).toEqual([
      { month: '2026-10', won: 0, lost: 0, win_rate: null, median_cycle_days: null },
      { month: '2026-11', won: 3, lost: 1, win_rate: 0.75, median_cycle_days: 5.5 },
    ]);
  });
});

describe('pipelineValueByStage', () => {
  const QUERY = `query ($id: ID!) { pipelineValueByStage(pipelineId: $id) {
    stage_id name position amounts { currency value deal_count } } }`;

  it('sums open deals per stage and currency, won and lost ones left out', async () => {
    const p = await newPipeline(ws);
    const [lead, offer] = p.stages;
    await deal(ws, p.id, { stage_id: lead.id, value: 100, currency: 'USD' });
    await deal(ws, p.id, { stage_id: lead.id, value: 250.5, currency: 'USD' });
    await deal(ws, p.id, { stage_id: lead.id, value: 50, currency: 'EUR' });
    await deal(ws, p.id, { stage_id: lead.id, currency: 'EUR' });
    await deal(
      ws,
      p.id,
      { stage_id: offer.id, value: 1000, currency: 'USD' },
      {
        status: 'won',
        closedAt: new Date(),
        cycleDays: 1,
      },
    );
    const r = await ask(ws.key, QUERY, { id: p.id });
    expect(r.errors).toBeUndefined();
    expect(r.data.pipelineValueByStage).toEqual([
      {
        stage_id: lead.id,
        name: 'Lead',
        position: 1,
        amounts: [
          { currency: 'EUR', value: 50, deal_count: 2 },
          { currency: 'USD', value: 350.5, deal_count: 2 },
        ],
      },
      { stage_id: offer.id, name: 'Offer', position: 2, amounts: [] },
      { stage_id: p.stages[2].id, name: 'Signed', position: 3, amounts: [] },
    ]);
  });

  it('answers not_found for another workspace’s pipeline and forbidden without pipelines:read', async () => {
    const theirs = await newPipeline(other);
    expect((await ask(ws.key, QUERY, { id: theirs.id })).errors?.[0]?.extensions?.code).toBe('not_found');
    const dealsOnly = await ws.addKey({ scope: 'custom', permissions: ['deals:read'] });
    expect((await ask(dealsOnly.key, QUERY, { id: theirs.id })).errors?.[0]?.extensions?.code).toBe('forbidden');
  });
});

describe('dealOutcomesByMonth', () => {
  const QUERY = `query ($months: Int, $p: ID) { dealOutcomesByMonth(months: $months, pipelineId: $p) {
    month won lost win_rate median_cycle_days } }`;

  it('counts won and lost per closing month with the median days from creation to close', async () => {
    // A workspace of its own: the other tests' closed deals stay out of its months.
    const ws = await app.workspace();
    const p = await newPipeline(ws);
    const elsewhere = await newPipeline(ws);
    const now = new Date();
    const thisMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1, 12));
    const lastMonth = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 1, 15, 12));
    const longAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 3, 15, 12));
    await deal(ws, p.id, {}, { status: 'won', closedAt: thisMonth, cycleDays: 2 });
    await deal(ws, p.id, {}, { status: 'won', closedAt: thisMonth, cycleDays: 4 });
    await deal(ws, p.id, {}, { status: 'lost', closedAt: thisMonth, cycleDays: 10 });
    await deal(ws, p.id, {}, { status: 'won', closedAt: lastMonth, cycleDays: 7 });
    await deal(ws, p.id, {}, { status: 'lost', closedAt: longAgo, cycleDays: 1 });
    await deal(ws, p.id, {});
    await deal(ws, elsewhere.id, {}, { status: 'lost', closedAt: thisMonth, cycleDays: 30 });
    const theirs = await newPipeline(other);
    await deal(other, theirs.id, {}, { status: 'won', closedAt: thisMonth, cycleDays: 3 });

    const months = monthsEndingAt(now, 3);
    const r = await ask(ws.key, QUERY, { months: 3, p: p.id });
    expect(r.errors).toBeUndefined();
    expect(r.data.dealOutcomesByMonth).toEqual([
      { month: months[0], won: 0, lost: 0, win_rate: null, median_cycle_days: null },
      { month: months[1], won: 1, lost: 0, win_rate: 1, median_cycle_days: 7 },
      { month: months[2], won: 2, lost: 1, win_rate: 2 / 3, median_cycle_days: 4 },
    ]);

    // Every pipeline: the other pipeline's lost deal joins this month (median of 2, 4, 10, 30).
    const all = await ask(ws.key, QUERY, { months: 1 });
    expect(all.data.dealOutcomesByMonth).toEqual([
      { month: months[2], won: 2, lost: 2, win_rate: 0.5, median_cycle_days: 7 },
    ]);
  });

  it('refuses a month count out of range with the field named', async () => {
    const r = await ask(ws.key, QUERY, { months: 0 });
    expect(r.errors?.[0]?.extensions?.code).toBe('validation_error');
    expect(r.errors?.[0]?.extensions?.details?.months?.[0]).toMatch(/1 to 36/);
  });
});

describe('webhookDeliveryStats', () => {
  const QUERY = `query ($days: Int) { webhookDeliveryStats(days: $days) {
    webhook_id name url deliveries delivered failed pending success_rate p50_ms p95_ms } }`;

  it('sums each subscription’s recent deliveries with the share delivered and p50/p95 response times', async () => {
    const w = await other.api('POST', '/v1/webhooks', {
      name: 'Orders',
      url: 'https://hooks.example.com/orders',
      events: ['deal.won'],
    });
    const quiet = await other.api('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/quiet',
      events: ['deal.won'],
    });
    expect([w.status, quiet.status]).toEqual([201, 201]);
    const sub = w.body.data.id as string;
    const rows: [string, number | null, number][] = [
      ['delivered', 100, 0],
      ['delivered', 400, 1],
      ['delivered', 200, 2],
      ['delivered', 300, 3],
      ['failed', 1000, 4],
      ['pending', null, 5],
      // Older than the period: left out.
      ['failed', 5000, 10 * 24],
    ];
    await app.db.prisma.webhookDelivery.createMany({
      data: rows.map(([status, ms, hoursAgo], i) => ({
        id: `whd_insight_${i}_${Date.now()}`,
        workspaceId: other.id,
        subscriptionId: sub,
        event: 'deal.won',
        status,
        responseTimeMs: ms,
        createdAt: new Date(Date.now() - hoursAgo * 3_600_000),
      })),
    });

    const r = await ask(other.key, QUERY, { days: 7 });
    expect(r.errors).toBeUndefined();
    expect(r.data.webhookDeliveryStats).toEqual([
      {
        webhook_id: sub,
        name: 'Orders',
        url: 'https://hooks.example.com/orders',
        deliveries: 6,
        delivered: 4,
        failed: 1,
        pending: 1,
        success_rate: 0.8,
        // Of 100, 200, 300, 400, 1000: the middle one, and 400 + 0.8 × (1000 − 400).
        p50_ms: 300,
        p95_ms: 880,
      },
      {
        webhook_id: quiet.body.data.id,
        name: null,
        url: 'https://hooks.example.com/quiet',
        deliveries: 0,
        delivered: 0,
        failed: 0,
        pending: 0,
        success_rate: null,
        p50_ms: null,
        p95_ms: null,
      },
    ]);
    // Another workspace sees none of them.
    expect((await ask(ws.key, QUERY, {})).data.webhookDeliveryStats).toEqual([]);
  });

  it('needs webhooks:read', async () => {
    const dealsOnly = await other.addKey({ scope: 'custom', permissions: ['deals:read'] });
    expect((await ask(dealsOnly.key, QUERY, {})).errors?.[0]?.extensions?.code).toBe('forbidden');
  });
});
