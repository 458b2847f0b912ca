// The delivery worker's database work is batched: it claims, records and fans out many
// deliveries per statement. Counts every statement the running worker sends while it delivers
// a burst to one subscription, which holds its share of the slots (half) the whole time: a
// worker that claimed again whenever one attempt finished would send about one claim per delivery.
import fs from 'node:fs';
import os from 'node:os';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createWorkspace } from '../src/admin/workspaces.ts';
import { openDatabase, type Database } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { newId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { createWebhookServices } from '../src/webhooks/services.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';
import { receiver, until, type Receiver } from './helpers/receiver.ts';

const EVENTS = 100;
const statements: string[] = [];
let db: Database;
let rc: Receiver;
let dropSchema: (() => Promise<void>) | null = null;

beforeAll(async () => {
  const onQuery = (e: { query: string }) => statements.push(e.query);
  const url = process.env.DATABASE_URL;
  if (url) {
    // A schema of its own: a worker here must see only this file's deliveries.
    const schema = `crm_batch_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    dropSchema = async () => {
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    };
    db = await openDatabase({ databaseUrl: url, schema, poolSize: 2, onQuery });
    await applyMigrations(db.adapter);
  } else {
    const dump = inject('pgliteDump');
    db = await openDatabase({ onQuery, ...(dump ? { fromDump: new Blob([fs.readFileSync(dump)]) } : {}) });
    if (!dump) await applyMigrations(db.adapter);
  }
  rc = await receiver(() => 200);
});
afterAll(async () => {
  await rc?.close();
  await db?.close();
  await dropSchema?.();
});

describe('delivery worker batching', () => {
  it(`delivers ${EVENTS} events to one subscription, each once, in a few statements`, async () => {
    const services = createWebhookServices({
      encryptionKey: 'batching-test',
      dataDir: os.tmpdir(),
      webhookAllowHttp: true,
      webhookAllowPrivateUrls: true,
    });
    const ws = await createWorkspace(db.prisma, { name: 'Batching' });
    await db.prisma.webhookSubscription.create({
      data: {
        id: newId('wh'),
        workspaceId: ws.id,
        url: rc.url,
        events: ['contact.created'],
        secretEncrypted: services.box.seal('whsec_dGVzdA=='),
        retryPolicy: { max_retries: 0, intervals_seconds: [1] },
      },
    });
    await db.prisma.event.createMany({
      data: Array.from({ length: EVENTS }, (_, i) => ({
        id: newId('evt'),
        workspaceId: ws.id,
        type: 'contact.created',
        entityType: 'contact',
        entityId: `con_${i}`,
        sequence: 1,
        data: { contact: { id: `con_${i}` } },
      })),
    });

    // A long poll interval: every statement counted is one the work itself needed, none an idle poll.
    const worker = new DeliveryWorker({
      prisma: db.prisma,
      logger: createLogger('silent'),
      pollMs: 60_000,
      concurrency: 64,
      ...services,
    });
    statements.length = 0;
    worker.start();
    await until(() => rc.hits.length >= EVENTS, 30_000, 20);
    // Stopping records what is still buffered.
    await worker.stop(1000);
    await services.sender.close();
    const sent = [...statements];

    expect(rc.hits).toHaveLength(EVENTS);
    expect(await db.prisma.webhookDelivery.count({ where: { status: 'delivered' } })).toBe(EVENTS);
    expect(new Set(rc.hits.map((h) => h.headers['webhook-id'])).size).toBe(EVENTS);
    const claims = sent.filter((q) => /UPDATE webhook_deliveries w\s+SET locked_until/.test(q));
    // 32 at first, then a batch of 16 each time 16 attempts finished: about 6 claims.
    expect(claims.length).toBeLessThanOrEqual(EVENTS / 8);
    expect(sent.length).toBeLessThanOrEqual(EVENTS / 2);
  }, 60_000);
});
