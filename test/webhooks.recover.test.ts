// POST /v1/webhooks/:id/recover and recoverWebhookEvents: a window of events queued again for one
// subscription with their own ids, as redeliveries in its log; its names and filters respected,
// deliveries still scheduled not doubled, bad windows refused.
import { beforeAll, describe, expect, it } from 'vitest';
import { RECOVER_MAX } from '../src/schema/webhook/webhook.recover.ts';
import { gql, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { deliveryWorld } from './helpers/delivery-world.ts';

const world = deliveryWorld();
const { listen, subscribe, logs, drive } = world;
let app: TestApp;
let ws: TestWorkspace;
beforeAll(() => ({ app, ws } = world));

const newContact = (status = 'lead') =>
  ws.api('POST', '/v1/contacts', { first_name: 'Lost', email: uniqueEmail('lost'), status });

describe('recover', () => {
  it('sends every matching event of the window again, with its own id, as redeliveries', async () => {
    const rc = await listen();
    // From before the subscription existed: never meant for it, so never recovered for it.
    const since = new Date().toISOString();
    await newContact('customer');
    await world.worker.runOnce();
    await new Promise((done) => setTimeout(done, 5));
    const sub = await subscribe(rc.url, { events: ['contact.created'], filters: { status: 'customer' } });
    await newContact('customer');
    await newContact('lead');
    await newContact('customer');
    await ws.api('POST', '/v1/companies', { name: 'Not subscribed' });
    await drive(() => rc.hits.length >= 2);
    const first = rc.hits.map((h) => h.json.id);
    expect(first).toHaveLength(2);
    const until = new Date(Date.now() + 1000).toISOString();

    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/recover`, { since, until });
    expect(r.status, JSON.stringify(r.body)).toBe(202);
    expect(r.body.data).toEqual({ queued: 2, skipped_pending: 0, has_more: false, next_since: null });
    await drive(() => rc.hits.length >= 4);
    expect(rc.hits.slice(2).map((h) => h.json.id)).toEqual(first);
    const entries = await logs(sub.id);
    expect(entries.filter((l) => l.attempt_history?.[0]?.kind === 'redelivery')).toHaveLength(2);

    // A window before anything happened queues nothing; GraphQL says the same as REST.
    const g = await gql(
      app.base,
      ws.key,
      `mutation($id: ID!, $input: WebhookRecoverInput!) {
        recoverWebhookEvents(id: $id, input: $input) { queued skipped_pending has_more next_since } }`,
      { id: sub.id, input: { since: '2020-01-01T00:00:00Z', until: since } },
    );
    expect(g.data?.recoverWebhookEvents).toEqual({ queued: 0, skipped_pending: 0, has_more: false, next_since: null });
  });

  it('does not queue an event twice while its delivery is still scheduled', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['contact.created'] });
    const since = new Date().toISOString();
    await newContact();
    // Not driven: the delivery is still pending.
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/recover`, {
      since,
      until: new Date(Date.now() + 1000).toISOString(),
    });
    expect(r.body.data).toMatchObject({ queued: 0, skipped_pending: 1 });
    await drive(() => rc.hits.length >= 1);
    await new Promise((done) => setTimeout(done, 300));
    await world.worker.runOnce();
    expect(rc.hits).toHaveLength(1);

    // Fanned out and waiting for a retry: still to come, so not queued again either.
    const down = await listen(() => 503);
    const failing = await subscribe(down.url, {
      events: ['contact.created'],
      retry_policy: { max_retries: 3, intervals_seconds: [600] },
    });
    const from = new Date().toISOString();
    await newContact();
    await drive(() => down.hits.length >= 1);
    const again = await ws.api('POST', `/v1/webhooks/${failing.id}/recover`, {
      since: from,
      until: new Date(Date.now() + 1000).toISOString(),
    });
    expect(again.body.data).toMatchObject({ queued: 0, skipped_pending: 1 });
  });

  it('refuses a window that is not one, and another workspace’s subscription', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['contact.created'] });
    const now = Date.now();
    for (const [body, field] of [
      [{}, 'since'],
      [{ since: new Date(now).toISOString(), until: new Date(now - 1000).toISOString() }, 'until'],
      [{ since: new Date(now - 1000).toISOString(), until: new Date(now + 3_600_000).toISOString() }, 'until'],
      [{ since: 'yesterday', until: new Date(now).toISOString() }, 'since'],
    ] as const) {
      const r = await ws.api('POST', `/v1/webhooks/${sub.id}/recover`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(r.body.error.details ?? {})).toContain(field);
    }
    const other = await app.workspace();
    const theirs = await other.api('POST', `/v1/webhooks/${sub.id}/recover`, {
      since: new Date(now - 60_000).toISOString(),
      until: new Date(now).toISOString(),
    });
    expect(theirs.status).toBe(404);
  });

  it(`queues at most ${RECOVER_MAX} a call and names where the next one starts`, async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['task.created'] });
    // RECOVER_MAX + 1 events already fanned out, a millisecond apart, written straight to the log.
    // An hour ago: within any retention (the retention test prunes old events of every workspace).
    const start = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
    await app.db.prisma.webhookSubscription.update({ where: { id: sub.id }, data: { createdAt: new Date(start) } });
    await app.db.prisma.$transaction([
      app.db.prisma.$executeRaw`
        INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, data, created_at)
        SELECT 'evt_recover_' || n, ${ws.id}, 'task.created', 'task', 'task_recover_' || n, 1, '{}'::jsonb,
          ${new Date(start)}::timestamptz + n * interval '1 millisecond'
        FROM generate_series(0, ${RECOVER_MAX}) AS n`,
      // Fanned out already: off the dispatcher's queue.
      app.db.prisma.$executeRaw`
        DELETE FROM event_dispatch_queue q USING events e WHERE e.seq = q.seq AND e.id LIKE 'evt_recover_%'`,
    ]);
    const window = { since: new Date(start).toISOString(), until: new Date(start + 60_000).toISOString() };
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/recover`, window);
    expect(r.body.data).toEqual({
      queued: RECOVER_MAX,
      skipped_pending: 0,
      has_more: true,
      next_since: new Date(start + RECOVER_MAX).toISOString(),
    });
    const rest = await ws.api('POST', `/v1/webhooks/${sub.id}/recover`, { ...window, since: r.body.data.next_since });
    expect(rest.body.data).toEqual({ queued: 1, skipped_pending: 0, has_more: false, next_since: null });
    const queued = await app.db.prisma.webhookDelivery.count({ where: { subscriptionId: sub.id, redelivery: true } });
    expect(queued).toBe(RECOVER_MAX + 1);
  });
});
