// Two API processes and two delivery workers on one PostgreSQL and one Redis: the plan's rate
// limit holds across both instances, a subscription on one instance receives changes made on
// the other (through Redis: one lease holder publishes, every instance relays), and no
// delivery is attempted twice by different workers, while both workers do send.
import pg from 'pg';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../helpers/processes.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.ts';
import { receiver, until, type Receiver } from '../helpers/receiver.ts';
import { printSummary } from '../helpers/reliability-summary.ts';
import { seedWorkspace, startApi, startWorker, type ServiceProcess } from '../helpers/service-process.ts';
import { subscribe, type TestSubscription } from '../helpers/subscriptions.ts';

/** The standard plan: 100 requests per key per one-minute window. */
const STANDARD_PER_MINUTE = 100;
const EVENTS = 200;
/** Contacts whose live events are checked on both instances' subscriptions. */
const LIVE = 10;
/** The workers' PostgreSQL application_name (PGAPPNAME), which the claim log below records. */
const WORKER_NAMES = ['crm-worker-1', 'crm-worker-2'];
/** src/events/bus.ts and feed-lease.ts, with the default prefix `crm`. */
const LEASE_KEY = 'crm:event-feed:leader';
const CURSOR_KEY = 'crm:event-feed:cursor';
const topic = (workspaceId: string) => `crm:events:${workspaceId}`;

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let url: string;
let apis: ServiceProcess[] = [];
const workers: Child[] = [];
let rc: Receiver;
const subs: TestSubscription[] = [];
let spy: Redis | undefined;
let key: string;
let workspaceId: string;
let standardKey: string;
/** Answers to the two-worker test's deliveries wait for this: see that test. */
let bothClaimed: Promise<unknown> = Promise.resolve();

beforeAll(async () => {
  // A receiver that takes 30 ms to answer keeps attempts in flight, so both workers claim while
  // the other's claims are still open: a claim race would show as a second attempt.
  [pgs, redis, rc] = await Promise.all([
    startPrivatePostgres(),
    startPrivateRedis(),
    receiver((_n, hit) => ({
      status: 200,
      delayMs: 30,
      after: hit.json?.data?.contact?.first_name === 'Two' ? bothClaimed : undefined,
    })),
  ]);
  url = await pgs.createDatabase('crm');
  ({ id: workspaceId, key } = await seedWorkspace(url));
  standardKey = (await seedWorkspace(url, 'standard')).key;
  // Test-only claim log: every claim (attempts going up) with the session's application_name,
  // i.e. which worker made the attempt. Installed after the migrations (seedWorkspace).
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  await db.query(`
    CREATE TABLE test_claims (delivery_id text NOT NULL, attempts int NOT NULL, worker text NOT NULL);
    CREATE FUNCTION test_log_claim() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      INSERT INTO test_claims VALUES (NEW.id, NEW.attempts, current_setting('application_name'));
      RETURN NEW;
    END $$;
    CREATE TRIGGER test_log_claim AFTER UPDATE OF attempts ON webhook_deliveries
      FOR EACH ROW WHEN (NEW.attempts > OLD.attempts) EXECUTE FUNCTION test_log_claim();`);
  await db.end();
  const env = { REDIS_URL: redis.url, WEBHOOK_WORKER: 'false' };
  apis = await Promise.all([startApi(url, env), startApi(url, env)]);
  workers.push(...WORKER_NAMES.map((name) => startWorker(url, { PGAPPNAME: name })));
});
afterAll(async () => {
  await Promise.all(subs.map((s) => s.close()));
  spy?.disconnect();
  await Promise.all([...apis.map((a) => a.stop()), ...workers.map((w) => w.proc.kill('SIGKILL'))]);
  await rc?.close();
  await redis?.kill();
  await pgs?.destroy();
});

describe('two API instances and two workers on one PostgreSQL and Redis', () => {
  it("holds the plan's rate limit across both instances", async () => {
    const clients = apis.map((a) => a.api(standardKey));
    const started = Date.now();
    // Both instances at once, more than the plan allows in a minute.
    const statuses = await Promise.all(
      Array.from({ length: STANDARD_PER_MINUTE + 50 }, (_, i) =>
        clients[i % 2]('GET', '/v1/contacts?limit=1').then((r) => r.status),
      ),
    );
    const elapsed = Date.now() - started;
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // One window opens with the first request; a run longer than a minute may touch one more.
    const windows = Math.floor(elapsed / 60_000) + 1;
    expect(accepted).toBeLessThanOrEqual(STANDARD_PER_MINUTE * windows);
    expect(accepted).toBeGreaterThan(0);
    console.log(
      `several instances: rate limit ${accepted} of ${statuses.length} accepted across 2 instances ` +
        `in ${elapsed} ms (limit ${STANDARD_PER_MINUTE}/min)`,
    );
  });

  it('subscriptions on both instances receive every change made on either, once, through Redis', async () => {
    const query = 'subscription { events(types: ["contact.created"]) { id data } }';
    subs.push(...apis.map((a) => subscribe(a.base, { authorization: `Bearer ${key}` }, query)));
    const clients = apis.map((a) => a.api(key));
    // What the lease holder publishes on the workspace's Redis channel, seen from outside.
    const onChannel: { id: string; contactId: string }[] = [];
    spy = new Redis(redis.url);
    spy.on('message', (_channel: string, message: string) => {
      const e = JSON.parse(message);
      onChannel.push({ id: e.id, contactId: e.data?.contact?.id });
    });
    await spy.subscribe(topic(workspaceId));

    const got = (s: TestSubscription, contactId: string) =>
      s.received.filter((d) => d.events.data.contact.id === contactId);
    // Live events are not replayed: create contacts until both subscriptions are listening.
    let ready = false;
    for (let i = 0; i < 20 && !ready; i++) {
      const r = await clients[1]('POST', '/v1/contacts', { first_name: 'Ready', email: `ready.${i}@example.com` });
      expect(r.status, r.text).toBe(201);
      ready = await until(() => subs.every((s) => got(s, r.body.data.id).length > 0), 1_000, 10);
    }
    expect(ready).toBe(true);

    // Each contact made on one instance or the other: every subscription sees changes of both.
    const made: { contactId: string; on: number }[] = [];
    for (let i = 0; i < LIVE; i++) {
      const r = await clients[i % 2]('POST', '/v1/contacts', {
        first_name: 'Across',
        email: `across.${i}@example.com`,
      });
      expect(r.status, r.text).toBe(201);
      made.push({ contactId: r.body.data.id, on: i % 2 });
    }
    await until(() => subs.every((s) => made.every((m) => got(s, m.contactId).length > 0)), 15_000, 20);
    // Time for a second copy to show up, had two instances published the same event.
    await new Promise((r) => setTimeout(r, 500));

    for (const s of subs) {
      expect(s.errors).toEqual([]);
      // Every contact made after the subscriptions listened arrives exactly once...
      expect(made.map((m) => got(s, m.contactId).length)).toEqual(made.map(() => 1));
      // ...and so does everything else it received (the tries while it was starting).
      const ids = s.received.map((d) => d.events.id as string);
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Through Redis: every event was published once on the workspace's channel, with the ids
    // the subscriptions got; with REDIS_URL the bus has no in-process path (src/events/bus.ts).
    for (const m of made) {
      const published = onChannel.filter((e) => e.contactId === m.contactId);
      expect(published, `contact ${m.contactId} on the Redis channel`).toHaveLength(1);
      for (const s of subs) expect(got(s, m.contactId)[0].events.id).toBe(published[0].id);
    }
    const admin = new Redis(redis.url);
    try {
      // Both instances relay from Redis: each has subscribed to the channel (plus the spy).
      const [, subscribers] = (await admin.pubsub('NUMSUB', topic(workspaceId))) as [string, number | string];
      expect(Number(subscribers)).toBe(3);
      // One publisher: the feed lease is held by one instance (a single key), and its saved
      // cursor follows the event log to its head. The subscription on the other instance got
      // every event too, so it can only have come through Redis.
      expect(await admin.get(LEASE_KEY)).toMatch(/^[0-9a-f-]{36}$/);
      expect(await admin.pttl(LEASE_KEY)).toBeGreaterThan(0);
      const db = new pg.Client({ connectionString: url });
      await db.connect();
      const head = (await db.query<{ seq: string }>('SELECT max(seq)::text AS seq FROM events')).rows[0].seq;
      await db.end();
      expect(await until(async () => (await admin.get(CURSOR_KEY)) === head, 5_000, 50)).toBe(true);
    } finally {
      admin.disconnect();
    }
    console.log(
      `several instances: ${LIVE} contacts made on both instances, ` +
        'each received once by the subscription on either instance ' +
        `(${subs.map((s) => s.received.length).join(' + ')} results), ` +
        `${onChannel.length} events on the Redis channel, one feed lease holder`,
    );
  });

  it('two workers both deliver, and never send one delivery twice', async () => {
    const clients = apis.map((a) => a.api(key));
    const hook = await clients[0]('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] });
    expect(hook.status, hook.text).toBe(201);
    // The receiver holds every answer until both workers have claimed one of this subscription's
    // deliveries. A worker holds at most half its slots (32) for one subscription, so with 200 to
    // send the other always finds some left: both take part however fast either of them is.
    const claimLog = new pg.Client({ connectionString: url });
    await claimLog.connect();
    const workersClaiming = async () =>
      Number(
        (
          await claimLog.query<{ n: string }>(
            `SELECT count(DISTINCT c.worker) AS n FROM test_claims c
            JOIN webhook_deliveries d ON d.id = c.delivery_id WHERE d.subscription_id = $1`,
            [hook.body.data.id],
          )
        ).rows[0].n,
      );
    bothClaimed = until(async () => (await workersClaiming()) >= 2, 60_000, 50).finally(() => claimLog.end());
    const writes = [];
    for (let batch = 0; batch < EVENTS / 50; batch++) {
      const rows = Array.from({ length: 50 }, (_, i) => ({
        first_name: 'Two',
        email: `two.${batch}.${i}@example.com`,
      }));
      writes.push(clients[batch % 2]('POST', '/v1/contacts/bulk', { contacts: rows }));
    }
    for (const r of await Promise.all(writes)) expect(r.status, r.text).toBe(201);

    // (An earlier test's last contact may be delivered too: its event can be fanned out after the subscription exists.)
    const ours = () => rc.hits.filter((h) => h.json.data.contact.first_name === 'Two');
    await until(() => ours().length >= EVENTS, 60_000, 50);
    // Time for a second copy to show up, had any delivery been claimed twice.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(ours()).toHaveLength(EVENTS);
    const eventIds = rc.hits.map((h) => h.json.id as string);
    expect(new Set(eventIds).size).toBe(eventIds.length);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query<{ attempts: number; n: string }>(
      'SELECT attempts, count(*) AS n FROM webhook_deliveries GROUP BY attempts',
    );
    // Which worker claimed each attempt (the test's claim log), by event id.
    const claims = (
      await db.query<{ event_id: string; worker: string; attempts: number }>(
        'SELECT d.event_id, c.worker, c.attempts FROM test_claims c JOIN webhook_deliveries d ON d.id = c.delivery_id',
      )
    ).rows;
    await db.end();
    expect(rows.map((r) => ({ attempts: r.attempts, n: Number(r.n) }))).toEqual([{ attempts: 1, n: eventIds.length }]);
    // One claim per delivery, each the first attempt, each by one of the two workers.
    expect(claims).toHaveLength(eventIds.length);
    expect(new Set(claims.map((c) => c.event_id)).size).toBe(claims.length);
    expect(claims.filter((c) => c.attempts !== 1 || !WORKER_NAMES.includes(c.worker))).toEqual([]);
    const workerOf = new Map(claims.map((c) => [c.event_id, c.worker]));
    const sentBy = WORKER_NAMES.map((name) => ours().filter((h) => workerOf.get(h.json.id) === name).length);
    expect(sentBy.reduce((x, y) => x + y, 0)).toBe(EVENTS);
    // Both workers took part: with one idle, "never twice" would prove nothing.
    for (const n of sentBy) expect(n).toBeGreaterThan(0);
    for (const w of workers) expect(w.proc.exitCode, w.output()).toBeNull();
    printSummary('several-instances', {
      faults: 0,
      faultKind: 'none: 2 API instances + 2 workers sharing PostgreSQL and Redis',
      produced: EVENTS,
      delivered: new Set(ours().map((h) => h.json.id)).size,
      duplicates: ours().length - new Set(ours().map((h) => h.json.id)).size,
      details:
        `worker 1 sent ${sentBy[0]}, worker 2 sent ${sentBy[1]}, every delivery claimed once (attempts = 1); ` +
        `live events: ${LIVE} contacts each received once on both instances via Redis`,
    });
  });
});
