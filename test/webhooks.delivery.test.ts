// The delivery worker against real local receivers: signatures, envelopes, retries, timeouts,
// redirects, Retry-After, auto-disable and resume, test sends and redelivery.
import crypto from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { deliveryWorld } from './helpers/delivery-world.ts';
import type { DeliveryWorker } from '../src/webhooks/worker.ts';
import { recordOutcomes, type Outcome } from '../src/webhooks/queue.ts';

const world = deliveryWorld();
const { listen, subscribe, logs, drive } = world;
let app: TestApp;
let ws: TestWorkspace;
let worker: DeliveryWorker;
beforeAll(() => ({ app, ws, worker } = world));

describe('delivery', () => {
  it('signs the raw body, sends envelope A, custom headers and the Standard Webhooks headers', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['contact.created'], headers: { 'X-Custom': 'yes' } });
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Hook', email: uniqueEmail('hook') })).body
      .data;
    const hit = await drive(() => rc.hits[0]);
    expect(hit.headers['x-service-signature']).toBe(
      crypto.createHmac('sha256', sub.secret).update(hit.raw).digest('hex'),
    );
    expect(hit.json).toMatchObject({
      event: 'contact.created',
      workspace_id: ws.id,
      data: { contact: { id: contact.id, email: contact.email } },
    });
    expect(hit.json.id).toMatch(/^evt_/);
    expect(hit.headers).toMatchObject({
      'x-custom': 'yes',
      'x-service-event': 'contact.created',
      'x-service-event-id': hit.json.id,
      'webhook-id': hit.json.id,
      'content-type': 'application/json',
    });
    expect(() => new Webhook(sub.secret).verify(hit.raw, hit.headers as Record<string, string>)).not.toThrow();
    const [log] = await logs(sub.id);
    expect(log).toMatchObject({
      status: 'delivered',
      response_code: 200,
      attempts: 1,
      event: 'contact.created',
      test: false,
      request_body: hit.raw,
    });
    expect(log.response_body).toHaveLength(1000);
    expect(typeof log.response_time_ms).toBe('number');
  });

  it('record format (envelope B), PUT and form content type', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, {
      events: ['contact.created'],
      payload_format: 'record',
      http_method: 'PUT',
      content_type: 'form',
    });
    const email = uniqueEmail('rec');
    await ws.api('POST', '/v1/contacts', { first_name: 'Rec', email });
    const hit = await drive(() => rc.hits[0]);
    expect(hit.method).toBe('PUT');
    expect(hit.headers['content-type']).toBe('application/x-www-form-urlencoded');
    const body = JSON.parse(new URLSearchParams(hit.raw).get('payload')!);
    expect(body).toMatchObject({
      event: 'contact.created',
      webhook_id: sub.id,
      account_id: ws.id,
      data: { email, first_name: 'Rec' },
    });
    expect(body.timestamp).toMatch(/\.\d{3}Z$/);
  });

  it('500 then 200: two attempts with the same event id', async () => {
    const rc = await listen((n) => (n === 1 ? 500 : 200));
    const sub = await subscribe(rc.url, {
      events: ['contact.updated'],
      retry_policy: { max_retries: 3, intervals_seconds: [1] },
    });
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'R', email: uniqueEmail() })).body.data;
    await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'retry me' });
    await drive(() => rc.hits.length >= 2);
    expect(rc.hits[0].json.id).toBe(rc.hits[1].json.id);
    expect(rc.hits[0].headers['webhook-id']).toBe(rc.hits[1].headers['webhook-id']);
    const [log] = await drive(async () => (await logs(sub.id)).filter((l) => l.status === 'delivered'));
    expect(log).toMatchObject({ attempts: 2, retries: 1, response_code: 200 });
  });

  it('always 500: exactly 1 + max_retries attempts, then failed', async () => {
    const rc = await listen(() => 500);
    const sub = await subscribe(rc.url, {
      events: ['contact.deleted'],
      retry_policy: { max_retries: 2, intervals_seconds: [1, 1] },
    });
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Gone', email: uniqueEmail() })).body.data;
    await ws.api('DELETE', `/v1/contacts/${c.id}`);
    const failed = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'), 20_000);
    expect(failed).toMatchObject({ attempts: 3, response_code: 500, error: 'receiver answered 500' });
    await new Promise((r) => setTimeout(r, 1200));
    await worker.runOnce();
    expect(rc.hits).toHaveLength(3);
  });

  it('a hanging receiver times out and the timeout is logged', async () => {
    const rc = await listen(() => 'hang');
    const sub = await subscribe(rc.url, {
      events: ['activity.logged'],
      timeout_seconds: 5,
      retry_policy: { max_retries: 0 },
    });
    await ws.api('POST', '/v1/activities', { type: 'note', subject: 'slow' });
    const failed = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'), 20_000);
    expect(failed.error).toMatch(/timed out after 5 s/);
    expect(failed.response_time_ms).toBeGreaterThanOrEqual(4900);
  });

  it('a redirect is a failure and is not followed', async () => {
    const target = await listen();
    const rc = await listen(() => ({ status: 301, headers: { location: target.url } }));
    const sub = await subscribe(rc.url, { events: ['contact.created'], retry_policy: { max_retries: 0 } });
    await ws.api('POST', '/v1/contacts', { first_name: 'Redir', email: uniqueEmail() });
    const failed = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'));
    expect(failed).toMatchObject({ response_code: 301, error: 'redirect (301) not followed' });
    expect(target.hits).toHaveLength(0);
  });

  it('429 with Retry-After waits as asked', async () => {
    const rc = await listen((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '2' } } : 200));
    const sub = await subscribe(rc.url, {
      events: ['contact.created'],
      retry_policy: { max_retries: 2, intervals_seconds: [1] },
    });
    await ws.api('POST', '/v1/contacts', { first_name: 'Busy', email: uniqueEmail() });
    await drive(() => rc.hits.length >= 2);
    const gap = rc.hits[1].at - rc.hits[0].at;
    expect(gap).toBeGreaterThanOrEqual(1900);
    expect((await logs(sub.id))[0]).toMatchObject({ status: 'delivered', attempts: 2 });
  });

  it('an inactive subscription keeps the count that turned it off, whatever attempts under way answer', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['activity.logged'], auto_disable_after: 2 });
    await app.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: { active: false, disabledAt: new Date(), consecutiveFailures: 3 },
    });
    const row = await app.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: sub.id } });
    // Attempts that were under way when it turned inactive, recorded afterwards.
    const attempt = (ok: boolean): Outcome => ({
      claim: {
        id: 'dlv_under_way',
        subscription_id: sub.id,
        event_id: null,
        attempts: 1,
        previous_attempt_at: null,
        lease_expired: false,
      },
      sub: row,
      requestBody: null,
      result: { ok, statusCode: ok ? 200 : 500, responseTimeMs: 3, responseBody: null, retryAfter: null, error: null },
      attempted: true,
    });
    for (const outcome of [attempt(true), attempt(false), attempt(true)]) {
      await recordOutcomes(app.db.prisma, [outcome]);
      const off = (await ws.api('GET', `/v1/webhooks/${sub.id}`)).body.data;
      expect(off).toMatchObject({ active: false, consecutive_failures: 3 });
    }
    const on = await ws.api('PUT', `/v1/webhooks/${sub.id}`, { active: true });
    expect(on.body.data).toMatchObject({ active: true, consecutive_failures: 0 });
  });

  it('turns a subscription inactive past auto_disable_after failures, keeps and resumes its deliveries', async () => {
    let healthy = false;
    const rc = await listen(() => (healthy ? 200 : 500));
    const sub = await subscribe(rc.url, {
      events: ['activity.logged'],
      auto_disable_after: 2,
      retry_policy: { max_retries: 3, intervals_seconds: [1] },
    });
    for (let i = 0; i < 2; i++) await ws.api('POST', '/v1/activities', { type: 'note', subject: `n${i}` });
    await drive(async () => (await ws.api('GET', `/v1/webhooks/${sub.id}`)).body.data.active === false, 20_000);
    const off = (await ws.api('GET', `/v1/webhooks/${sub.id}`)).body.data;
    // Attempts already in flight when the threshold is crossed still count.
    expect(off.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(off.disabled_at).not.toBeNull();
    const pending = (await logs(sub.id)).filter((l) => l.status === 'pending');
    expect(pending.length).toBeGreaterThan(0);
    const hitsWhenOff = rc.hits.length;
    await new Promise((r) => setTimeout(r, 1200));
    await worker.runOnce();
    expect(rc.hits.length).toBe(hitsWhenOff);

    healthy = true;
    const on = await ws.api('PUT', `/v1/webhooks/${sub.id}`, { active: true });
    expect(on.body.data).toMatchObject({ active: true, consecutive_failures: 0, disabled_at: null });
    await ws.api('POST', '/v1/activities', { type: 'note', subject: 'after' });
    await drive(
      () => rc.hits.some((h) => h.raw.includes('"after"')) && rc.hits.filter((h) => h.raw.includes('"n1"')).length > 0,
    );
    const kept = await drive(async () => {
      const l = await logs(sub.id);
      return l.every((x) => x.status !== 'pending') ? l : null;
    });
    expect(kept!.filter((l: { status: string }) => l.status === 'delivered').length).toBeGreaterThanOrEqual(2);
  });

  it('sends nothing to inactive subscriptions or for unsubscribed events, and respects filters', async () => {
    const rc = await listen();
    await subscribe(rc.url, { events: ['contact.created'], active: false });
    await subscribe(rc.url, { events: ['deal.won'] });
    await subscribe(rc.url, { events: ['contact.created'], filters: { status: 'customer' } });
    await ws.api('POST', '/v1/contacts', { first_name: 'Lead', email: uniqueEmail(), status: 'lead' });
    const customer = (
      await ws.api('POST', '/v1/contacts', { first_name: 'Cust', email: uniqueEmail(), status: 'customer' })
    ).body.data;
    await drive(() => rc.hits.length >= 1);
    await worker.runOnce();
    expect(rc.hits.map((h) => h.json.data.contact.id)).toEqual([customer.id]);
  });
});

describe('test sends and redelivery', () => {
  it('POST /test sends one signed sample per event now and logs test: true', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url, { events: ['task.created', 'deal.won'] });
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/test`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((x: { event: string }) => x.event).sort()).toEqual(['deal.won', 'task.created']);
    expect(
      r.body.data.every(
        (x: { status: string; response_code: number }) => x.status === 'delivered' && x.response_code === 200,
      ),
    ).toBe(true);
    expect(rc.hits.map((h) => h.json.event).sort()).toEqual(['deal.won', 'task.created']);
    for (const h of rc.hits)
      expect(h.headers['x-service-signature']).toBe(
        crypto.createHmac('sha256', sub.secret).update(h.raw).digest('hex'),
      );
    const l = await logs(sub.id);
    expect(l.filter((x) => x.test)).toHaveLength(2);
    expect((await ws.api('POST', '/v1/webhooks/wh_nope/test')).status).toBe(404);
  });

  it('redeliver sends a delivered or failed event again with the same event id', async () => {
    let up = false;
    const rc = await listen(() => (up ? 200 : 503));
    const sub = await subscribe(rc.url, { events: ['contact.created'], retry_policy: { max_retries: 0 } });
    await ws.api('POST', '/v1/contacts', { first_name: 'Late', email: uniqueEmail() });
    const failed = await drive(async () => (await logs(sub.id)).find((l) => l.status === 'failed'));
    up = true;
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${failed.id}/redeliver`);
    expect(r.status).toBe(202);
    expect(r.body.data).toMatchObject({ status: 'pending', event_id: failed.event_id, attempts: 0 });
    await drive(() => rc.hits.length >= 2);
    expect(rc.hits[1].json.id).toBe(rc.hits[0].json.id);
    const again = await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${r.body.data.id}/redeliver`);
    expect([202, 409]).toContain(again.status);
    expect((await ws.api('POST', `/v1/webhooks/${sub.id}/logs/dlv_nope/redeliver`)).status).toBe(404);
  });
});
