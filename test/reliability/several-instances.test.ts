// Two API processes and two delivery workers on one PostgreSQL and one Redis: the plan's rate
// limit holds across both instances, a subscription on one instance receives changes made on
// the other, and no delivery is attempted twice by different workers.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../helpers/processes.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.ts';
import { receiver, until, type Receiver } from '../helpers/receiver.ts';
import { seedWorkspace, startApi, startWorker, type ServiceProcess } from '../helpers/service-process.ts';
import { subscribe, type TestSubscription } from '../helpers/subscriptions.ts';

/** The standard plan: 100 requests per key per one-minute window. */
const STANDARD_PER_MINUTE = 100;
const EVENTS = 200;

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let url: string;
let apis: ServiceProcess[] = [];
const workers: Child[] = [];
let rc: Receiver;
let sub: TestSubscription | undefined;
let key: string;
let standardKey: string;

beforeAll(async () => {
  [pgs, redis, rc] = await Promise.all([startPrivatePostgres(), startPrivateRedis(), receiver(() => 200)]);
  url = await pgs.createDatabase('crm');
  key = (await seedWorkspace(url)).key;
  standardKey = (await seedWorkspace(url, 'standard')).key;
  const env = { REDIS_URL: redis.url, WEBHOOK_WORKER: 'false' };
  apis = await Promise.all([startApi(url, env), startApi(url, env)]);
  workers.push(startWorker(url), startWorker(url));
});
afterAll(async () => {
  await sub?.close();
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
    const statuses = await Promise.all(Array.from({ length: STANDARD_PER_MINUTE + 50 }, (_, i) => clients[i % 2]('GET', '/v1/contacts?limit=1').then((r) => r.status)));
    const elapsed = Date.now() - started;
    const accepted = statuses.filter((s) => s === 200).length;
    expect(statuses.filter((s) => s !== 200 && s !== 429)).toEqual([]);
    // One window opens with the first request; a run longer than a minute may touch one more.
    const windows = Math.floor(elapsed / 60_000) + 1;
    expect(accepted).toBeLessThanOrEqual(STANDARD_PER_MINUTE * windows);
    expect(accepted).toBeGreaterThan(0);
    console.log(`several instances: rate limit ${accepted} of ${statuses.length} accepted across 2 instances in ${elapsed} ms (limit ${STANDARD_PER_MINUTE}/min)`);
  });

  it('a subscription on instance 1 receives a change made on instance 2', async () => {
    sub = subscribe(apis[0].base, { authorization: `Bearer ${key}` }, 'subscription { events(types: ["contact.created"]) { id data } }');
    const other = apis[1].api(key);
    let received = false;
    // The first tries may land before the subscription is listening; live events are not replayed.
    for (let i = 0; i < 20 && !received; i++) {
      const r = await other('POST', '/v1/contacts', { first_name: 'Across', email: `across.${i}@example.com` });
      expect(r.status, r.text).toBe(201);
      received = await sub.waitFor((d) => d.events.data.contact.id === r.body.data.id, 1_000).then(() => true, () => false);
    }
    expect(received).toBe(true);
    expect(sub.errors).toEqual([]);
  });

  it('two workers never send one delivery twice', async () => {
    const clients = apis.map((a) => a.api(key));
    const hook = await clients[0]('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] });
    expect(hook.status, hook.text).toBe(201);
    const writes = [];
    for (let batch = 0; batch < EVENTS / 50; batch++) {
      const rows = Array.from({ length: 50 }, (_, i) => ({ first_name: 'Two', email: `two.${batch}.${i}@example.com` }));
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
    const { rows } = await db.query<{ attempts: number; n: string }>('SELECT attempts, count(*) AS n FROM webhook_deliveries GROUP BY attempts');
    await db.end();
    expect(rows.map((r) => ({ attempts: r.attempts, n: Number(r.n) }))).toEqual([{ attempts: 1, n: eventIds.length }]);
    for (const w of workers) expect(w.proc.exitCode, w.output()).toBeNull();
    console.log(`several instances: ${EVENTS} events produced on 2 instances, ${eventIds.length} requests from 2 workers, ${new Set(eventIds).size} distinct`);
  });
});
