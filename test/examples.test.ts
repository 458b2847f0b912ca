// The examples in docs/ run against the real service.
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { createReceiver, eventOf, verifyServiceSignature } from '../examples/verify-webhook.ts';
import { connect, onEvents, type LiveEvent } from '../examples/subscribe.ts';
import { uniqueEmail } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { until } from './helpers/receiver.ts';
import { startEventFeed } from '../src/events/feed.ts';

// Its own schema on PostgreSQL: a delivery worker here must not pick up other files' deliveries.
const test = withAppOptions({ isolated: true });
const it = test;

describe('docs/webhooks.md example receiver', () => {
  it('accepts real signed deliveries once per event id and refuses forged ones', async ({ app, ws }) => {
    const got: string[] = [];
    // The secret exists once the subscription does; point it at the receiver afterwards.
    const sub = await ws.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/x', events: ['contact.created'] });
    const secret: string = sub.body.data.secret;
    const receiver = createReceiver(secret, (e) => got.push(e.id));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await ws.api('PUT', `/v1/webhooks/${sub.body.data.id}`, { url });
    await ws.api('POST', '/v1/contacts', { first_name: 'Docs', email: uniqueEmail('docs') });
    const worker = app.worker();
    await until(async () => (await worker.runOnce(), got.length === 1), 10_000);
    expect(got).toHaveLength(1);
    const forged = await fetch(url, {
      method: 'POST',
      body: '{"id":"evt_x"}',
      headers: { 'x-service-signature': '00' },
    });
    expect(forged.status).toBe(401);
    expect(verifyServiceSignature(secret, 'body', undefined)).toBe(false);
    receiver.close();
  });
});

describe('docs/webhooks.md example receiver, form-encoded deliveries', () => {
  it('verifies the signatures over the raw form body and reads the event from its payload field', async ({
    app,
    ws,
  }) => {
    const got: { id: string; event: string }[] = [];
    const sub = await ws.api('POST', '/v1/webhooks', {
      url: 'http://127.0.0.1:9/x',
      events: ['contact.created'],
      content_type: 'form',
    });
    expect(sub.status).toBe(201);
    const secret: string = sub.body.data.secret;
    const receiver = createReceiver(secret, (e) => got.push(e));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    await ws.api('PUT', `/v1/webhooks/${sub.body.data.id}`, { url });
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Form', email: uniqueEmail('form') })).body
      .data;
    const worker = app.worker();
    await until(async () => (await worker.runOnce(), got.length === 1), 10_000);
    expect(got[0]).toMatchObject({ event: 'contact.created', data: { contact: { id: contact.id } } });
    receiver.close();
  });

  it('reads JSON bodies and form bodies alike, and refuses a form without a payload', () => {
    const event = { id: 'evt_1', event: 'contact.created', data: { contact: { id: 'con_1' } } };
    const form = new URLSearchParams({ payload: JSON.stringify(event) }).toString();
    expect(eventOf(form, 'application/x-www-form-urlencoded')).toEqual(event);
    expect(eventOf(JSON.stringify(event), 'application/json')).toEqual(event);
    expect(() => eventOf('other=1', 'application/x-www-form-urlencoded')).toThrow(/payload/);
  });
});

describe('docs/graphql.md example subscription', () => {
  it('receives contact.created over graphql-ws', async ({ app, ws }) => {
    const feed = startEventFeed({ sql: app.db.sql, bus: app.bus, intervalMs: 20 });
    const client = connect(app.base, ws.key);
    const events: LiveEvent[] = [];
    const stop = onEvents(client, ['contact.created'], (e) => events.push(e));
    // The subscription is live some time after connecting: create contacts until one arrives, so a
    // slow start only means another contact, never a missed assertion.
    const created: string[] = [];
    await until(
      async () => {
        const body = { first_name: 'Live', email: uniqueEmail('live') };
        created.push((await ws.api('POST', '/v1/contacts', body)).body.data.id);
        return events.length > 0;
      },
      20_000,
      250,
    );
    stop();
    await client.dispose();
    await feed.stop();
    expect(events[0]).toMatchObject({ event: 'contact.created' });
    expect(created).toContain((events[0].data.contact as { id: string }).id);
  });
});
