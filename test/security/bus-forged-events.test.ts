// Anyone who can write to Redis can publish on a workspace's event channel. A message that is not
// an event's shape (no data, data not an object, no sequence or timestamp) is dropped, rather than
// given to every subscriber of the workspace, whose filters and fields would fail on it and end
// their subscriptions with an internal error.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect } from 'vitest';
import { createEventBus } from '../../src/events/bus.ts';
import { withAppOptions } from '../helpers/fixtures.ts';
import { subscribe, type TestSubscription } from '../helpers/subscriptions.ts';

const { REDIS_URL } = process.env;
const prefix = `crm-test-${randomUUID()}`;
const test = withAppOptions(() => ({ bus: createEventBus(REDIS_URL ?? null, { prefix }) }));
const open: TestSubscription[] = [];
const raw = REDIS_URL ? new Redis(REDIS_URL) : null;
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()));
  raw?.disconnect();
});

const CHANGED = 'subscription ($id: ID) { companyChanged(id: $id) { id event company_id sequence timestamp data } }';
const EVENTS = 'subscription { events { id event sequence timestamp data } }';

describe.skipIf(!REDIS_URL)('forged messages on a workspace event channel', () => {
  test('are dropped: open subscriptions stay open and receive the next real event', async ({ app, ws }) => {
    const companyId = 'com_forged';
    const probe = {
      event: 'company.updated',
      workspaceId: ws.id,
      entityType: 'company',
      entityId: companyId,
      sequence: 1,
      data: { company: { id: companyId } },
    };
    const subs = [
      subscribe(app.base, { authorization: `Bearer ${ws.key}` }, CHANGED, { id: companyId }),
      subscribe(app.base, { authorization: `Bearer ${ws.key}` }, EVENTS),
    ];
    open.push(...subs);
    for (const s of subs) await s.ready(app.bus, probe);
    const base = { id: 'evt_forged', workspaceId: ws.id, entityType: 'company', entityId: companyId };
    const forged = [
      { ...base, event: 'company.updated' },
      { ...base, event: 'company.updated', data: null, sequence: 1, timestamp: new Date().toISOString() },
      { ...base, event: 'contact.updated', data: 'x', sequence: 1, timestamp: new Date().toISOString() },
      { ...base, event: 'company.updated', data: { company: {} }, sequence: 'one', timestamp: 'never' },
    ];
    for (const f of forged) await raw!.publish(`${prefix}:events:${ws.id}`, JSON.stringify(f));
    const real = { ...probe, id: 'evt_real', timestamp: new Date().toISOString(), sequence: 2 };
    app.bus.publish(real);
    for (const s of subs) {
      await s.waitFor((d) => Object.values(d as Record<string, { id: string }>)[0].id === 'evt_real', 10_000);
      expect(s.errors).toEqual([]);
    }
  });
});
