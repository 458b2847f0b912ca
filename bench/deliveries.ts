// Webhook delivery throughput: events already in the outbox, one worker in this process, a
// local receiver that answers 200 at once. Prints deliveries per second.
//   npx tsx bench/deliveries.ts [events=3000]      (PostgreSQL when DATABASE_URL is set)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import pg from 'pg';
import { createApiKey, createWorkspace } from '../src/admin/workspaces.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { newId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { createWebhookServices } from '../src/webhooks/services.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';

const total = Number(process.argv[2] ?? 3000);
let received = 0;
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    received++;
    res.end('ok');
  });
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

// On PostgreSQL the run gets a schema of its own, dropped at the end.
const pgUrl = process.env.DATABASE_URL || null;
const schema = `crm_bench_${process.pid}`;
const admin = pgUrl ? new pg.Client({ connectionString: pgUrl }) : null;
await admin?.connect();
await admin?.query(`CREATE SCHEMA ${schema}`);
const db = await openDatabase({ databaseUrl: pgUrl, schema: pgUrl ? schema : undefined, poolSize: 10 });
await applyMigrations(db.adapter);
const services = createWebhookServices({ encryptionKey: 'bench', dataDir: os.tmpdir(), webhookAllowHttp: true, webhookAllowPrivateUrls: true });
const ws = await createWorkspace(db.prisma, { name: 'bench' });
await createApiKey(db.prisma, { workspace: ws.id, name: 'bench', scope: 'full' });
await db.prisma.webhookSubscription.create({
  data: { id: newId('wh'), workspaceId: ws.id, url, events: ['contact.created'], secretEncrypted: services.box.seal('whsec_YmVuY2g='), retryPolicy: { max_retries: 0, intervals_seconds: [1] } },
});
for (let i = 0; i < total; i += 500) {
  const n = Math.min(500, total - i);
  await db.prisma.event.createMany({
    data: Array.from({ length: n }, (_, j) => ({ id: newId('evt'), workspaceId: ws.id, type: 'contact.created', entityType: 'contact', entityId: `con_${i + j}`, data: { contact: { id: `con_${i + j}`, email: `c${i + j}@example.com` } } })),
  });
}

const worker = new DeliveryWorker({ prisma: db.prisma, logger: createLogger('warn'), pollMs: 10, concurrency: Number(process.env.CONCURRENCY ?? 64), ...services });
const started = performance.now();
worker.start();
while (received < total) {
  await new Promise((r) => setTimeout(r, 200));
  const failed = await db.prisma.webhookDelivery.findFirst({ where: { status: 'failed' } });
  if (failed) throw new Error(`delivery failed: ${failed.error}`);
}
const seconds = (performance.now() - started) / 1000;
await worker.stop();
console.log(`${db.kind}: ${total} deliveries in ${seconds.toFixed(2)} s = ${Math.round(total / seconds)} deliveries/s`);
await services.sender.close();
await db.close();
await admin?.query(`DROP SCHEMA ${schema} CASCADE`);
await admin?.end();
server.close();
