// PostgreSQL restarted under 500 webhook-producing writes: the service recovers without a
// restart of its own, every write it accepted is stored with its event, every event the
// database holds is delivered, compared by event id (duplicates allowed, always with the same
// event id and contact), and the writes it could not
// take got a retryable 503 with the error envelope, never a 500 or a hang.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { receiver, until, type Receiver } from '../helpers/receiver.ts';
import { printSummary } from '../helpers/reliability-summary.ts';
import { seedWorkspace, startApi, type ServiceProcess } from '../helpers/service-process.ts';
import { subscribe, type TestSubscription } from '../helpers/subscriptions.ts';

const WRITES = 500;
/** One write starts every this many ms: the restart falls mid-way through the stream. */
const PACE_MS = 8;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let pgs: PrivatePostgres;
let rc: Receiver;
let api: ServiceProcess;
let key: string;
let url: string;
let sub: TestSubscription | undefined;

beforeAll(async () => {
  pgs = await startPrivatePostgres();
  url = await pgs.createDatabase('crm');
  key = (await seedWorkspace(url)).key;
  rc = await receiver(() => 200);
  api = await startApi(url);
});
afterAll(async () => {
  await sub?.close();
  await api?.stop();
  await rc?.close();
  await pgs?.destroy();
});

describe('PostgreSQL restarted during 500 writes', () => {
  it('keeps every accepted write and delivers its event; refused writes get a retryable 503', async () => {
    const client = api.api(key);
    const hook = await client('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'], timeout_seconds: 5 });
    expect(hook.status, hook.text).toBe(201);
    sub = subscribe(
      api.base,
      { authorization: `Bearer ${key}` },
      'subscription { events(types: ["contact.created"]) { id data } }',
    );
    // The subscription is live before the outage: it has seen a change made after it was opened
    // (it connects in the background, so a change may come before it listens: then another).
    const live = sub;
    const beforeIds: string[] = [];
    const seenBefore = async () => {
      for (let n = 0; n < 15; n++) {
        const before = await client('POST', '/v1/contacts', {
          first_name: 'Before',
          email: `before.restart.${n}@example.com`,
        });
        expect(before.status, before.text).toBe(201);
        beforeIds.push(before.body.data.id);
        if (
          await live
            .waitFor((d) => d.events.data.contact.id === before.body.data.id, 1_000)
            .then(
              () => true,
              () => false,
            )
        )
          return true;
      }
      return false;
    };
    expect(await seenBefore()).toBe(true);

    const accepted: string[] = [];
    const refused: { status: number; code?: string; retryAfter: string | null }[] = [];
    let restart: Promise<void> | undefined;
    const writes: Promise<void>[] = [];
    for (let i = 0; i < WRITES; i++) {
      if (i === WRITES / 4) {
        restart = (async () => {
          await pgs.stop();
          await sleep(1_500);
          await pgs.start();
        })();
      }
      writes.push(
        (async () => {
          const r = await client('POST', '/v1/contacts', {
            first_name: 'Restart',
            email: `restart.${i}@example.com`,
          }).catch((err: Error) => {
            throw new Error(`write ${i} got no answer (${err.message}); service output: ${api.output().slice(-3000)}`);
          });
          if (r.status === 201) accepted.push(r.body.data.id);
          else refused.push({ status: r.status, code: r.body?.error?.code, retryAfter: r.headers.get('retry-after') });
        })(),
      );
      await sleep(PACE_MS);
    }
    const outcomes = await Promise.allSettled(writes);
    await restart;
    expect(
      outcomes.filter((o) => o.status === 'rejected').map((o) => String((o as PromiseRejectedResult).reason)),
    ).toEqual([]);

    // The outage was real (some writes refused), and so was the load on both sides of it.
    expect(refused.length).toBeGreaterThan(0);
    expect(accepted.length).toBeGreaterThan(WRITES / 4);
    for (const r of refused) expect(r).toMatchObject({ status: 503, code: 'service_unavailable' });
    expect(refused.every((r) => Number(r.retryAfter) >= 1)).toBe(true);

    // Recovered without a restart: every accepted write reads back, and new writes work.
    const after = await client('POST', '/v1/contacts', { first_name: 'After', email: 'after.restart@example.com' });
    expect(after.status).toBe(201);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const stored = await db.query<{ id: string }>('SELECT id FROM contacts WHERE id = ANY($1)', [accepted]);
    // Every event the database holds (the webhook existed before the first write): those of the
    // accepted writes, of the writes before and after, and of any refused write that had
    // committed before its answer failed. Each must be delivered.
    const events = (
      await db.query<{ id: string; contact: string }>(
        `SELECT id, entity_id AS contact FROM events WHERE type = 'contact.created'`,
      )
    ).rows;
    await db.end();
    expect(stored.rowCount).toBe(accepted.length);
    // One event per accepted write, none lost in the restart.
    const eventOf = new Map(events.map((e) => [e.contact, e.id]));
    expect(events.length).toBe(eventOf.size);
    expect(accepted.filter((id) => !eventOf.has(id))).toEqual([]);

    // Every produced event is delivered (compared by event id); a repeat keeps its event id and contact.
    const produced = new Set(events.map((e) => e.id));
    const deliveredIds = () => new Set(rc.hits.map((h) => h.json.id as string));
    await until(() => [...produced].every((id) => deliveredIds().has(id)), 60_000, 200);
    const delivered = deliveredIds();
    expect([...produced].filter((id) => !delivered.has(id))).toEqual([]);
    expect([...delivered].filter((id) => !produced.has(id))).toEqual([]);
    const contactOf = new Map(events.map((e) => [e.id, e.contact]));
    expect(rc.hits.filter((h) => contactOf.get(h.json.id) !== h.json.data.contact.id).map((h) => h.json.id)).toEqual(
      [],
    );

    // The live event feed survived too: the subscription opened before the restart sees a new change.
    await sub.waitFor((d) => d.events.data.contact.id === after.body.data.id, 15_000);
    // Events of none of the accepted writes nor of the writes around the outage: refused writes that had committed.
    const others = new Set([...accepted, ...beforeIds, after.body.data.id]);
    const committedRefused = events.filter((e) => !others.has(e.contact)).length;
    expect(committedRefused).toBeLessThanOrEqual(refused.length);
    printSummary('postgres-restart', {
      faults: 1,
      faultKind: 'PostgreSQL fast shutdown, 1.5 s down, restarted; the service kept running',
      produced: produced.size,
      delivered: delivered.size,
      duplicates: rc.hits.length - delivered.size,
      details:
        `writes ${WRITES}: accepted ${accepted.length}, refused ${refused.length} (503 + Retry-After), ` +
        `events also of ${beforeIds.length + 1} writes around it and ${committedRefused} refused after commit`,
    });
  });
});
