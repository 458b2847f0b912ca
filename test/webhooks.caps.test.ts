// Outbound caps: test sends and redeliveries per workspace, requests per destination host, and
// the worker's deliveries, which wait (neither fail nor get lost) when a cap is spent. Refusals
// are 429 + Retry-After on REST and extensions.code rate_limited (+ retry_after) on GraphQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPTED_EVENTS } from '../src/events/outbox.ts';
import { DEFAULT_OUTBOUND_CAPS } from '../src/webhooks/outbound-limits.ts';
import { gql, startTestApp, uniqueEmail, type TestApp } from './helpers/app.ts';
import { receiver, until, type Receiver } from './helpers/receiver.ts';

let rc: Receiver;
const apps: TestApp[] = [];
// A host name of this run only (resolved to the local receiver), so the per-host buckets are
// this file's own even in a Redis shared with other test files.
const run = `${process.pid}-${Date.now().toString(36)}`;
let hosts = 0;
const newHost = () => `caps-${run}-${++hosts}.test`;
const resolve = async () => ['127.0.0.1'];

beforeAll(async () => {
  rc = await receiver(() => 200);
});
afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  await rc.close();
});

async function appWith(caps: Partial<typeof DEFAULT_OUTBOUND_CAPS> = {}, isolated = false) {
  const app = await startTestApp({
    resolve,
    isolated,
    webhooks: { webhookCaps: { ...DEFAULT_OUTBOUND_CAPS, ...caps } },
  });
  apps.push(app);
  return app;
}
/** The receiver's URL under a host name of its own. */
const urlOn = (host: string) => rc.url.replace('127.0.0.1', host);
const hitsOn = (host: string) => rc.hits.filter((h) => h.headers.host?.startsWith(host)).length;

describe('test sends', () => {
  it('15 aliased testWebhook calls on a subscription to all events: one test sent, the rest rate_limited', async () => {
    const app = await appWith();
    const ws = await app.workspace({ plan: 'standard' });
    const host = newHost();
    const sub = (await ws.api('POST', '/v1/webhooks', { url: urlOn(host), events: [...ACCEPTED_EVENTS] })).body.data;
    const aliases = Array.from({ length: 15 }, (_, i) => `t${i}: testWebhook(id: "${sub.id}") { event status }`).join(
      '\n',
    );
    const r = await gql(app.base, ws.key, `mutation { ${aliases} }`);
    expect(hitsOn(host)).toBe(ACCEPTED_EVENTS.length);
    expect(hitsOn(host)).toBeLessThanOrEqual(DEFAULT_OUTBOUND_CAPS.testSendsPerMinute);
    // Mutation fields are non-null, so the first refusal ends the document: later aliases never run.
    expect(r.data).toBeNull();
    expect(r.errors).toHaveLength(1);
    for (const e of r.errors!) {
      expect(e.extensions).toMatchObject({ code: 'rate_limited', status: 429 });
      expect(e.extensions!.retry_after).toBeGreaterThanOrEqual(1);
    }
    // The same workspace stays refused over REST, with the wait in Retry-After.
    const again = await ws.api('POST', `/v1/webhooks/${sub.id}/test`);
    expect(again.status).toBe(429);
    expect(again.body.error.code).toBe('rate_limited');
    expect(Number(again.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(hitsOn(host)).toBe(ACCEPTED_EVENTS.length);
  });

  it('test sends to one host are capped across workspaces', async () => {
    const app = await appWith({ hostSendsPerMinute: 10 });
    const host = newHost();
    const [a, b] = [await app.workspace(), await app.workspace()];
    const events = ['contact.created', 'contact.updated', 'deal.created', 'task.created'];
    const subA = (await a.api('POST', '/v1/webhooks', { url: urlOn(host), events })).body.data;
    const subB = (await b.api('POST', '/v1/webhooks', { url: urlOn(host), events })).body.data;
    expect((await a.api('POST', `/v1/webhooks/${subA.id}/test`)).status).toBe(200);
    expect((await b.api('POST', `/v1/webhooks/${subB.id}/test`)).status).toBe(200);
    const refused = await b.api('POST', `/v1/webhooks/${subB.id}/test`);
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(
      new RegExp(`at most 10 webhook requests to ${host.replace(/\./g, '\\.')} per minute`),
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(hitsOn(host)).toBe(8);
  });
});

describe('redeliveries', () => {
  it('beyond the workspace cap: 429 with Retry-After, nothing queued', async () => {
    const app = await appWith({ redeliveriesPerMinute: 2 }, true);
    const ws = await app.workspace();
    const host = newHost();
    const sub = (await ws.api('POST', '/v1/webhooks', { url: urlOn(host), events: ['contact.created'] })).body.data;
    await ws.api('POST', '/v1/contacts', { first_name: 'Re', email: uniqueEmail('re') });
    const worker = app.worker();
    const logs = async () => (await ws.api('GET', `/v1/webhooks/${sub.id}/logs?limit=100`)).body.data as any[];
    const [first] = (await until(async () => {
      await worker.runOnce();
      const l = await logs();
      return l[0]?.status === 'delivered' ? l : null;
    }))!;
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${first.id}/redeliver`));
    expect(answers.map((r) => r.status)).toEqual([202, 202, 429]);
    expect(answers[2].body.error.code).toBe('rate_limited');
    expect(Number(answers[2].headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await logs()).toHaveLength(3);
  });
});

describe('background deliveries', () => {
  it('beyond the host cap wait for room: not failed, not lost, the attempt not counted', async () => {
    const app = await appWith({ hostSendsPerMinute: 5 }, true);
    const ws = await app.workspace();
    const host = newHost();
    const sub = (
      await ws.api('POST', '/v1/webhooks', {
        url: urlOn(host),
        events: ['contact.created'],
        retry_policy: { max_retries: 0 },
      })
    ).body.data;
    for (let i = 0; i < 8; i++)
      await ws.api('POST', '/v1/contacts', { first_name: `Cap${i}`, email: uniqueEmail('cap') });
    const worker = app.worker();
    const rows = () => app.db.prisma.webhookDelivery.findMany({ where: { subscriptionId: sub.id } });
    await until(async () => {
      await worker.runOnce();
      return (await rows()).length === 8 && hitsOn(host) === 5;
    });
    await worker.runOnce();
    expect(hitsOn(host)).toBe(5);
    const all = await rows();
    expect(all.filter((d) => d.status === 'delivered')).toHaveLength(5);
    const waiting = all.filter((d) => d.status !== 'delivered');
    expect(waiting).toHaveLength(3);
    for (const d of waiting) {
      expect(d).toMatchObject({ status: 'pending', attempts: 0, error: null, lockedUntil: null });
      expect(d.nextAttemptAt!.getTime()).toBeGreaterThan(Date.now());
    }
  });

  it('beyond the workspace cap wait the same way; another workspace to the same host is not held back', async () => {
    const app = await appWith({ workspaceDeliveriesPerMinute: 2 }, true);
    const host = newHost();
    const [busy, quiet] = [await app.workspace(), await app.workspace()];
    const subBusy = (await busy.api('POST', '/v1/webhooks', { url: urlOn(host), events: ['contact.created'] })).body
      .data;
    const subQuiet = (await quiet.api('POST', '/v1/webhooks', { url: urlOn(host), events: ['contact.created'] })).body
      .data;
    for (let i = 0; i < 4; i++)
      await busy.api('POST', '/v1/contacts', { first_name: `Busy${i}`, email: uniqueEmail('busy') });
    await quiet.api('POST', '/v1/contacts', { first_name: 'Quiet', email: uniqueEmail('quiet') });
    const worker = app.worker();
    const count = (subscriptionId: string, status: string) =>
      app.db.prisma.webhookDelivery.count({ where: { subscriptionId, status } });
    await until(async () => {
      await worker.runOnce();
      return (await count(subBusy.id, 'delivered')) === 2 && (await count(subQuiet.id, 'delivered')) === 1;
    });
    await worker.runOnce();
    expect(await count(subBusy.id, 'delivered')).toBe(2);
    expect(await count(subBusy.id, 'pending')).toBe(2);
    expect(await count(subBusy.id, 'failed')).toBe(0);
  });
});
