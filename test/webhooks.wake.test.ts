// New events wake the delivery worker at once: the statement that queues them notifies
// `crm_events` (LISTEN/NOTIFY, PostgreSQL; the embedded database polls), so an event reaches its receiver
// without waiting for the worker's poll. The worker here polls once a minute: every delivery within
// the test's seconds came by notification. On PostgreSQL, a listening connection that ends is
// opened again, and the worker looks for what it may have missed meanwhile.
import pg from 'pg';
import { describe, expect } from 'vitest';
import { EVENTS_CHANNEL } from '../src/db/notifications.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';
import { createLogger } from '../src/logger.ts';
import type { Db } from '../src/db/client.ts';
import type { TestApp } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { until, type Receiver } from './helpers/receiver.ts';

let app: TestApp;
let rc: Receiver;

// Its own schema on PostgreSQL: a delivery worker here must not pick up other files' deliveries.
const test = withAppOptions({ isolated: true });
test.beforeAll(async ({ app: started, listen }) => {
  app = started;
  rc = await listen(() => 200);
});

const A_MINUTE = 60_000;

describe.runIf(process.env.DATABASE_URL)('new events wake the delivery worker', () => {
  test('each event reaches its receiver without waiting for a poll', async ({ ws }) => {
    const sub = await ws.api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] });
    expect(sub.status, sub.text).toBe(201);
    const worker = app.worker({ pollMs: A_MINUTE, listen: true });
    worker.start();
    try {
      // The first pass runs at start; after it the worker sleeps for its minute unless woken.
      for (let i = 1; i <= 3; i++) {
        const r = await ws.api('POST', '/v1/contacts', { first_name: `Woken ${i}`, email: `woken${i}@x.io` });
        expect(r.status).toBe(201);
        expect(await until(() => rc.hits.length >= i, 15_000)).toBe(true);
        expect(rc.hits[i - 1].json).toMatchObject({
          event: 'contact.created',
          data: { contact: { first_name: `Woken ${i}` } },
        });
      }
    } finally {
      await worker.stop();
    }
  });

  test.runIf(process.env.DATABASE_URL)(
    'on PostgreSQL, a listening connection that ends is opened again',
    async ({ ws }) => {
      const sub = await ws.api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.updated'] });
      expect(sub.status, sub.text).toBe(201);
      const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Relisten', email: 'relisten@x.io' })).body
        .data;
      const worker = app.worker({ pollMs: A_MINUTE, listen: true });
      worker.start();
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL });
      await admin.connect();
      try {
        const listeners = () =>
          admin.query<{ pid: number }>(
            `SELECT pid FROM pg_stat_activity WHERE query = $1 AND pid <> pg_backend_pid()`,
            [`LISTEN "${EVENTS_CHANNEL}"`],
          );
        const before = (await until(async () => (await listeners()).rows.at(0) && (await listeners()).rows)) || [];
        expect(before.length).toBeGreaterThan(0);
        await admin.query('SELECT pg_terminate_backend(pid) FROM unnest($1::int[]) pid', [before.map((r) => r.pid)]);
        const old = new Set(before.map((r) => r.pid));
        expect(await until(async () => (await listeners()).rows.some((r) => !old.has(r.pid)), 15_000)).toBe(true);
        const updated = () => rc.hits.filter((h) => (h.json as { event?: string })?.event === 'contact.updated');
        const r = await ws.api('PUT', `/v1/contacts/${contact.id}`, { last_name: 'Again' });
        expect(r.status).toBe(200);
        expect(await until(() => updated().length >= 1, 15_000)).toBe(true);
        expect(updated()[0].json).toMatchObject({ data: { contact: { id: contact.id, last_name: 'Again' } } });
      } finally {
        await admin.end();
        await worker.stop();
      }
    },
  );

  test('a notification that comes while a fan-out pass runs is not lost until the next poll', async ({ ws }) => {
    const sub = await ws.api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] });
    expect(sub.status, sub.text).toBe(201);
    const before = rc.hits.length;
    let onNotify: (() => void) | undefined;
    let passes = 0;
    // The second fan-out pass reads an empty queue; the event is then written and its notification
    // arrives before the pass has finished: the worker must look again, not sleep its minute.
    const prisma = new Proxy(app.db.prisma, {
      get(target, prop, receiver) {
        const value = Reflect.get(target, prop, receiver);
        if (prop !== '$transaction') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          const result = await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          if (typeof args[0] === 'function' && ++passes === 2) {
            const r = await ws.api('POST', '/v1/contacts', { first_name: 'Mid-pass', email: 'midpass@x.io' });
            expect(r.status).toBe(201);
            onNotify?.();
          }
          return result;
        };
      },
    }) as Db;
    const worker = new DeliveryWorker({
      ...app.webhooks,
      prisma,
      logger: createLogger('silent'),
      pollMs: A_MINUTE,
      listen: async (_channel, notify) => {
        onNotify = notify;
        return async () => {};
      },
    });
    worker.start();
    try {
      // The first pass (at start) finds nothing and sleeps; a notification starts the second.
      expect(await until(() => passes >= 1, 5_000)).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
      onNotify?.();
      expect(await until(() => rc.hits.length > before, 10_000)).toBe(true);
      expect(rc.hits.at(-1)?.json).toMatchObject({ data: { contact: { first_name: 'Mid-pass' } } });
    } finally {
      await worker.stop(1000);
    }
  });
});
