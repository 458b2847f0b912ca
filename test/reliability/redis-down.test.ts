// Redis killed under a running instance, as docs/operations.md describes the fallback: REST
// keeps answering (no 5xx), rate limits hold per instance (in-memory buckets), subscriptions
// stay connected, and live events flow again once Redis is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { startPrivateRedis, type PrivateRedis } from '../helpers/private-redis.ts';
import { until } from '../helpers/receiver.ts';
import { seedWorkspace, startApi, type ServiceProcess } from '../helpers/service-process.ts';
import { subscribe, type TestSubscription } from '../helpers/subscriptions.ts';

const STANDARD_PER_MINUTE = 100;

let pgs: PrivatePostgres;
let redis: PrivateRedis;
let api: ServiceProcess;
let key: string;
let sub: TestSubscription | undefined;

beforeAll(async () => {
  [pgs, redis] = await Promise.all([startPrivatePostgres(), startPrivateRedis()]);
  const url = await pgs.createDatabase('crm');
  key = (await seedWorkspace(url, 'standard')).key;
  api = await startApi(url, { REDIS_URL: redis.url });
});
afterAll(async () => {
  await sub?.close();
  await api?.stop();
  await redis?.kill();
  await pgs?.destroy();
});

describe('Redis down', () => {
  it('REST answers without 5xx, rate limits hold on the instance, subscriptions resume when Redis is back', async () => {
    const client = api.api(key);
    let n = 0;
    const createContact = () => client('POST', '/v1/contacts', { first_name: 'Redis', email: `redis.${n++}@example.com` });
    sub = subscribe(api.base, { authorization: `Bearer ${key}` }, 'subscription { events(types: ["contact.created"]) { id data } }');
    /** Creates contacts until the subscription receives one (it may still be subscribing). */
    const liveEventArrives = async () => {
      for (let i = 0; i < 20; i++) {
        const r = await createContact();
        expect(r.status, r.text).toBe(201);
        const got = await sub!.waitFor((d) => d.events.data.contact.id === r.body.data.id, 1_000).then(() => true, () => false);
        if (got) return i + 1;
      }
      throw new Error('no live event arrived');
    };
    const spentBefore = await liveEventArrives();

    await redis.kill();
    const statuses: number[] = [];
    for (let i = 0; i < STANDARD_PER_MINUTE + 20; i++) {
      const r = i % 2 ? await client('GET', '/v1/contacts?limit=1') : await createContact();
      statuses.push(r.status);
      expect(r.headers.get('x-ratelimit-limit')).toBe(String(STANDARD_PER_MINUTE));
      if (r.status === 429) expect(r.body.error.code).toBe('rate_limited');
    }
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // The instance's own bucket (fresh when Redis went away) takes at most the plan's minute.
    const accepted = statuses.filter((s) => s < 300).length;
    expect(accepted).toBeGreaterThan(0);
    expect(accepted).toBeLessThanOrEqual(STANDARD_PER_MINUTE);
    expect(statuses.at(-1)).toBe(429);
    expect(sub.errors).toEqual([]);

    await redis.start();
    // Back on Redis: its bucket for the key is new (the server restarted empty), so requests flow again.
    await until(async () => (await client('GET', '/v1/contacts?limit=1')).status === 200, 15_000, 250);
    const spentAfter = await liveEventArrives();
    expect(sub.errors).toEqual([]);
    console.log(`redis down: ${statuses.length} requests, ${accepted} accepted, ${statuses.length - accepted} refused (429), 0 5xx; a live event arrived within ${spentBefore} write(s) before and ${spentAfter} after the outage`);
  });
});
