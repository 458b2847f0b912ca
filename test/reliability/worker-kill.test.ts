// The delivery worker SIGKILLed five times while 200 events are produced: the set of event ids
// the receiver got equals the set produced. Attempts cut by a kill come back when their lease
// runs out (receiver timeout + a margin), so repeats are allowed, each with its event id.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Child } from '../helpers/processes.ts';
import { startPrivatePostgres, type PrivatePostgres } from '../helpers/private-postgres.ts';
import { receiver, until, type Receiver } from '../helpers/receiver.ts';
import { printSummary } from '../helpers/reliability-summary.ts';
import { seedWorkspace, startApi, startWorker, type ServiceProcess } from '../helpers/service-process.ts';

const KILLS = 5;
const EVENTS_PER_LIFE = 40;

let pgs: PrivatePostgres;
let url: string;
let rc: Receiver;
let api: ServiceProcess;
let key: string;
const workers: Child[] = [];

beforeAll(async () => {
  pgs = await startPrivatePostgres();
  url = await pgs.createDatabase('crm');
  key = (await seedWorkspace(url)).key;
  // Slow answers keep attempts in flight, so a kill cuts some of them.
  rc = await receiver(() => ({ status: 200, delayMs: 300 }));
  api = await startApi(url, { WEBHOOK_WORKER: 'false' });
});
afterAll(async () => {
  for (const w of workers) w.proc.kill('SIGKILL');
  await api?.stop();
  await rc?.close();
  await pgs?.destroy();
});

describe('delivery worker SIGKILLed five times during 200 events', () => {
  it('delivers exactly the produced event ids', async () => {
    const client = api.api(key);
    const hook = await client('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'], timeout_seconds: 5 });
    expect(hook.status, hook.text).toBe(201);

    let made = 0;
    for (let life = 0; life < KILLS; life++) {
      const worker = startWorker(url);
      workers.push(worker);
      const before = rc.hits.length;
      for (let batch = 0; batch < EVENTS_PER_LIFE / 20; batch++) {
        const rows = Array.from({ length: 20 }, () => ({ first_name: 'Kill', email: `kill.${made++}@example.com` }));
        const r = await client('POST', '/v1/contacts/bulk', { contacts: rows });
        expect(r.status, r.text).toBe(201);
      }
      // Killed only once it is sending: a kill during start-up would prove nothing.
      await until(() => rc.hits.length >= before + 5, 30_000, 10);
      expect(rc.hits.length, worker.output()).toBeGreaterThanOrEqual(before + 5);
      worker.proc.kill('SIGKILL');
      await worker.exited;
    }
    const last = startWorker(url);
    workers.push(last);

    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const produced = (await db.query<{ id: string }>(`SELECT id FROM events WHERE type = 'contact.created'`)).rows
      .map((r) => r.id)
      .sort();
    await db.end();
    expect(produced).toHaveLength(KILLS * EVENTS_PER_LIFE);

    const delivered = () => new Set(rc.hits.map((h) => h.json.id as string));
    await until(() => delivered().size >= produced.length, 60_000, 100);
    expect([...delivered()].sort()).toEqual(produced);
    // A repeat carries the same event for the same contact.
    const contactOf = new Map<string, string>();
    for (const h of rc.hits) {
      expect(contactOf.get(h.json.id) ?? h.json.data.contact.id).toBe(h.json.data.contact.id);
      contactOf.set(h.json.id, h.json.data.contact.id);
    }
    printSummary('worker-kill', {
      faults: KILLS,
      faultKind: 'delivery worker SIGKILLed mid-sending, a new one started each time',
      produced: produced.length,
      delivered: delivered().size,
      duplicates: rc.hits.length - delivered().size,
      details: `${rc.hits.length} requests, every repeat with its event id and contact; delivered ids = produced ids`,
    });
    await last.stop();
  });
});
