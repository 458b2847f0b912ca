// Every attempt of a delivery is kept: retries, redeliveries and test sends each leave their
// time, code, error and duration in the log entry's attempt_history (REST and GraphQL), which a
// page of entries loads in one query, and which carries nothing of a receiver's reply.
import { beforeAll, describe, expect, it } from 'vitest';
import { gql, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { deliveryWorld } from './helpers/delivery-world.ts';
import type { DeliveryWorker } from '../src/webhooks/worker.ts';
import { MOST_ATTEMPTS_KEPT } from '../src/webhooks/attempt-log.ts';
import { LIST_SIZES } from '../src/graphql/cost.ts';

const statements: string[] = [];
const world = deliveryWorld({ onQuery: (e) => statements.push(e.query) });
const { listen, subscribe, logs, drive } = world;
let app: TestApp;
let ws: TestWorkspace;
let worker: DeliveryWorker;
beforeAll(() => ({ app, ws, worker } = world));
const newContact = () => ws.api('POST', '/v1/contacts', { first_name: 'Attempt', email: uniqueEmail('attempt') });

/** A reply body that must never show up in an attempt. */
const REPLY = 'receiver-reply-with-contact-data';

describe('attempt history', () => {
  it('keeps every attempt of a retried delivery, oldest first; the entry repeats the last', async () => {
    const answers = [500, 503, 200];
    const rc = await listen((n) => ({ status: answers[n - 1] ?? 200, body: `${REPLY} ${n}` }));
    const sub = await subscribe(rc.url, { retry_policy: { max_retries: 3, intervals_seconds: [1] } });
    await newContact();
    const entry = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'delivered'));
    expect(rc.hits).toHaveLength(3);
    expect(entry).toMatchObject({ attempts: 3, response_code: 200, error: null });
    const history = entry.attempt_history as any[];
    expect(history.map((a) => [a.attempt, a.kind, a.delivered, a.response_code, a.error])).toEqual([
      [1, 'first', false, 500, 'receiver answered 500'],
      [2, 'retry', false, 503, 'receiver answered 503'],
      [3, 'retry', true, 200, null],
    ]);
    // Each attempt's time is when it started: about when the receiver saw it, a second or more apart.
    const times = history.map((a) => Date.parse(a.attempted_at));
    for (let i = 0; i < 3; i++) {
      expect(Math.abs(times[i] - rc.hits[i].at)).toBeLessThan(1000);
      expect(history[i].response_time_ms).toEqual(expect.any(Number));
    }
    expect(times[1] - times[0]).toBeGreaterThanOrEqual(900);
    expect(entry.last_attempt_at).toBe(history[2].attempted_at);
    expect(entry.response_time_ms).toBe(history[2].response_time_ms);
    expect(JSON.stringify(history)).not.toContain(REPLY);
  });

  it('a failed delivery keeps each failure; its redelivery is a new entry whose attempt is a redelivery', async () => {
    let healthy = false;
    const rc = await listen(() => (healthy ? 200 : 500));
    const sub = await subscribe(rc.url, { retry_policy: { max_retries: 1, intervals_seconds: [1] } });
    await newContact();
    const failed = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'));
    expect(failed.attempt_history.map((a: any) => [a.kind, a.response_code])).toEqual([
      ['first', 500],
      ['retry', 500],
    ]);
    healthy = true;
    const again = await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${failed.id}/redeliver`);
    expect(again.status).toBeLessThan(300);
    const redelivered = await drive(async () =>
      (await logs(sub.id)).find((l) => l.id === again.body.data.id && l.status === 'delivered'),
    );
    expect(redelivered.attempt_history).toEqual([
      expect.objectContaining({ attempt: 1, kind: 'redelivery', delivered: true, response_code: 200, error: null }),
    ]);
    // The first entry's history is untouched.
    expect((await logs(sub.id)).find((l) => l.id === failed.id).attempt_history).toEqual(failed.attempt_history);
  });

  it('a test send is one attempt of kind test; a connection failure is recorded with no code', async () => {
    const rc = await listen(() => 200);
    const sub = await subscribe(rc.url, { events: ['contact.created', 'deal.won'] });
    const sent = await ws.api('POST', `/v1/webhooks/${sub.id}/test`);
    expect(sent.status).toBe(200);
    const entries = await logs(sub.id);
    expect(entries).toHaveLength(2);
    for (const e of entries)
      expect(e.attempt_history).toEqual([
        expect.objectContaining({ attempt: 1, kind: 'test', delivered: true, response_code: 200 }),
      ]);

    // Nothing listens there any more: the test send fails without an answer.
    await rc.close();
    expect((await ws.api('POST', `/v1/webhooks/${sub.id}/test`)).status).toBe(200);
    const refused = (await logs(sub.id)).filter((l) => l.status === 'failed');
    expect(refused).toHaveLength(2);
    for (const e of refused) {
      expect(e.attempt_history).toEqual([
        expect.objectContaining({ kind: 'test', delivered: false, response_code: null, error: e.error }),
      ]);
      expect(e.error).toMatch(/^connection failed/);
    }
  });

  it("a key that may not read the event's data gets the history but no reply body", async () => {
    const rc = await listen(() => ({ status: 500, body: REPLY }));
    const sub = await subscribe(rc.url, { retry_policy: { max_retries: 0 } });
    await newContact();
    await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'));
    const webhooksOnly = await ws.addKey({ scope: 'custom', permissions: ['webhooks:read'] });
    const [entry] = await logs(sub.id, webhooksOnly.api);
    expect(entry.response_body).toBeNull();
    expect(entry.request_body).toBeNull();
    expect(entry.attempt_history).toEqual([
      expect.objectContaining({ kind: 'first', response_code: 500, error: 'receiver answered 500' }),
    ]);
    expect(JSON.stringify(entry)).not.toContain(REPLY);
  });
});

describe('bounds', () => {
  it('a history holds at most 1 + largest accepted max_retries + 1 attempts, as cost analysis counts it', async () => {
    const rc = await listen();
    const most = MOST_ATTEMPTS_KEPT - 2;
    expect(
      (
        await ws.api('POST', '/v1/webhooks', {
          url: rc.url,
          events: ['contact.created'],
          retry_policy: { max_retries: most },
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await ws.api('POST', '/v1/webhooks', {
          url: rc.url,
          events: ['contact.created'],
          retry_policy: { max_retries: most + 1 },
        })
      ).status,
    ).toBe(400);
    expect(LIST_SIZES['WebhookDelivery.attempt_history']).toBe(MOST_ATTEMPTS_KEPT);
  });
});

describe('loading', () => {
  /** The SQL statements one GraphQL page of a subscription's log costs (after a warm-up call). */
  async function statementsFor(webhookId: string): Promise<{ sql: string[]; nodes: any[] }> {
    const query =
      'query ($id: ID!) { webhookLogs(webhookId: $id, limit: 100) {' +
      ' nodes { id attempt_history { attempt kind response_code } } } }';
    await gql(app.base, ws.key, query, { id: webhookId });
    const start = statements.length;
    const r = await gql(app.base, ws.key, query, { id: webhookId });
    expect(r.errors).toBeUndefined();
    return {
      sql: statements.slice(start).filter((sql) => !/"(api_keys|workspaces)"/.test(sql)),
      nodes: r.data.webhookLogs.nodes,
    };
  }

  // The page's own query does not select the relation: Pothos loads it for all the page's entries
  // at once (their ids in one query, the attempts in one more), never per entry.
  it('a page of entries loads every history in one query, whatever the page size', async () => {
    const counts: number[] = [];
    for (const n of [2, 8]) {
      const rc = await listen(() => 200);
      const sub = await subscribe(rc.url);
      for (let i = 0; i < n; i++) await newContact();
      await drive(async () => (await logs(sub.id)).filter((l) => l.status === 'delivered').length === n);
      const { sql, nodes } = await statementsFor(sub.id);
      expect(nodes).toHaveLength(n);
      for (const node of nodes)
        expect(node.attempt_history).toEqual([{ attempt: 1, kind: 'first', response_code: 200 }]);
      expect(sql.filter((s) => s.includes('webhook_delivery_attempts'))).toHaveLength(1);
      counts.push(sql.length);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});
