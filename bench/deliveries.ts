// Webhook delivery throughput. N contact.created events are committed to the outbox at once;
// the delivery worker runs in this process as the service runs it (src/main.ts); a receiver in
// a process of its own answers 200 at once and notes when each delivery arrives. The rate is
// deliveries over the time from the first arrival to the last. `--workers 2` adds a worker
// process (src/worker.ts, as `npm run worker`), PostgreSQL only, and reports the combined rate.
// Every delivery must arrive exactly once: the run fails on a duplicate or a failed delivery.
//   npx tsx bench/deliveries.ts [events=3000] [--workers 1|2] [--json] [--cpu-prof file]
// (PostgreSQL when DATABASE_URL is set)
// --cpu-prof writes a CPU profile of this process while it delivers (open it in Chrome DevTools).
import { execFileSync, fork, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import inspector from 'node:inspector/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createWorkspace } from '../src/admin/workspaces.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { newId } from '../src/ids.ts';
import { createLogger } from '../src/logger.ts';
import { Metrics } from '../src/metrics.ts';
import { deliveryQueueSample } from '../src/webhooks/queue-stats.ts';
import { createWebhookServices } from '../src/webhooks/services.ts';
import { contactCreated } from '../src/events/catalogue/contact.events.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';

interface ReceiverStats {
  hits: number;
  distinct: number;
  first: number;
  last: number;
}

/**
 * Receiver mode (a child of the benchmark): counts arrivals by delivery (one subscription, so the event id names it).
 */
function runReceiver(): void {
  const seen = new Set<string>();
  const stats: ReceiverStats = { hits: 0, distinct: 0, first: 0, last: 0 };
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const now = performance.timeOrigin + performance.now();
      stats.hits++;
      seen.add(String(req.headers['webhook-id']));
      stats.distinct = seen.size;
      stats.first ||= now;
      stats.last = now;
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as AddressInfo).port }));
  process.on('message', () => process.send!(stats));
  process.on('disconnect', () => process.exit(0));
}

async function startProfiler() {
  const session = new inspector.Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  return {
    async stop() {
      const { profile } = await session.post('Profiler.stop');
      session.disconnect();
      return profile;
    },
  };
}

if (process.argv.includes('--receiver')) runReceiver();
else await runBenchmark();

async function runBenchmark(): Promise<void> {
  const args = process.argv.slice(2);
  const flag = (name: string) => {
    const i = args.indexOf(name);
    return i === -1 ? undefined : args.splice(i, 2)[1];
  };
  const json = args.includes('--json');
  const profileFile = flag('--cpu-prof');
  const workers = Number(flag('--workers') ?? 1);
  const total = Number(args.find((a) => /^\d+$/.test(a)) ?? 3000);
  const say = (line: string) => {
    if (!json) console.log(line);
  };
  const pgUrl = process.env.DATABASE_URL || null;
  if (workers !== 1 && workers !== 2) throw new Error('--workers must be 1 or 2');
  if (workers === 2 && !pgUrl)
    throw new Error('--workers 2 needs PostgreSQL (DATABASE_URL): the embedded database serves one process');

  const cleanup: (() => Promise<unknown> | void)[] = [];
  try {
    // The receiver: a process of its own, so its work is not counted against the worker's.
    const receiver = fork(fileURLToPath(import.meta.url), ['--receiver'], {
      execArgv: ['--import', 'tsx'],
      stdio: 'inherit',
    });
    cleanup.push(() => void receiver.kill());
    const port = await new Promise<number>((resolve) =>
      receiver.once('message', (m: { port: number }) => resolve(m.port)),
    );
    const stats = () =>
      new Promise<ReceiverStats>((resolve) => (receiver.once('message', resolve), receiver.send('stats')));
    const url = `http://127.0.0.1:${port}/hook`;

    // On PostgreSQL the run gets a database of its own, dropped at the end.
    let dbUrl: string | null = null;
    if (pgUrl) {
      const name = `crm_bench_${process.pid}`;
      const admin = new pg.Client({ connectionString: pgUrl });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      cleanup.push(async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await admin.end();
      });
      const u = new URL(pgUrl);
      u.pathname = `/${name}`;
      dbUrl = u.toString();
    }
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-bench-'));
    cleanup.push(() => fs.rmSync(dataDir, { recursive: true, force: true }));
    const env = {
      ...process.env,
      DATABASE_URL: dbUrl ?? '',
      DATA_DIR: dataDir,
      ENCRYPTION_KEY: 'bench',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_HOST_REQUESTS_PER_MINUTE: '1000000',
      WEBHOOK_WORKSPACE_DELIVERIES_PER_MINUTE: '1000000',
    };
    const config = loadConfig(env);

    const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
    cleanup.push(() => db.close());
    await applyMigrations(db.adapter);
    const services = createWebhookServices(config);
    cleanup.push(() => services.sender.close());
    const ws = await createWorkspace(db.prisma, { name: 'bench' });
    await db.prisma.webhookSubscription.create({
      data: {
        id: newId('wh'),
        workspaceId: ws.id,
        url,
        events: ['contact.created'],
        secretEncrypted: services.box.seal('whsec_YmVuY2g='),
        retryPolicy: { max_retries: 0, intervals_seconds: [1] },
      },
    });

    let second: ChildProcess | null = null;
    if (workers === 2) {
      // As `npm run worker` starts it: compiled, without a TypeScript loader.
      execFileSync(process.execPath, ['scripts/build-server.mjs', '--if-stale']);
      second = spawn(process.execPath, ['dist/server/worker.js'], {
        env: { ...env, LOG_LEVEL: 'info' },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const proc = second;
      cleanup.push(() => void proc.kill('SIGKILL'));
      await new Promise<void>((resolve, reject) => {
        let out = '';
        // Never waits for ever: a start line worded otherwise, or no start at all, fails the run.
        const timer = setTimeout(
          () => reject(new Error(`worker process did not say it started within 60 s: ${out.slice(-2000)}`)),
          60_000,
        );
        proc.stdout!.on('data', (d) => {
          out += d;
          if (/worker started/.test(out)) {
            clearTimeout(timer);
            resolve();
          }
        });
        proc.once('exit', (code) => {
          clearTimeout(timer);
          reject(new Error(`worker process exited (${code}): ${out.slice(-2000)}`));
        });
      });
    }

    // The events, as the service writes them, appear at once: both workers start on a full outbox.
    await db.prisma.$transaction(
      async (tx) => {
        for (let i = 0; i < total; i += 500) {
          const data = Array.from({ length: Math.min(500, total - i) }, (_, j) => {
            const contactId = `con_bench${i + j}`;
            const contact = contactCreated.sample().data.contact as Record<string, unknown>;
            return {
              id: newId('evt'),
              workspaceId: ws.id,
              type: 'contact.created',
              entityType: 'contact',
              entityId: contactId,
              sequence: 1,
              contactId,
              data: { contact: { ...contact, id: contactId, email: `c${i + j}@example.com` } },
              actor: { type: 'api_key', id: 'key_bench', name: 'bench' },
            };
          });
          await tx.event.createMany({ data });
        }
      },
      { timeout: 600_000 },
    );
    const runners = workers === 2 ? 'worker in this process + 1 worker process' : 'worker in this process';
    say(`${total} events in the outbox; ${runners} (${db.kind})`);

    const worker = new DeliveryWorker({
      prisma: db.prisma,
      logger: createLogger('warn'),
      pollMs: config.workerPollMs,
      metrics: new Metrics(() => deliveryQueueSample(db.prisma)),
      ...services,
    });
    const profiler = profileFile ? await startProfiler() : null;
    const cpuBefore = process.cpuUsage();
    worker.start();
    cleanup.push(() => worker.stop());

    let last = 0;
    let stalledSince = Date.now();
    let lastFailureCheck = 0;
    for (;;) {
      const s = await stats();
      if (s.distinct >= total) break;
      if (s.distinct !== last) [last, stalledSince] = [s.distinct, Date.now()];
      if (Date.now() - stalledSince > 60_000) throw new Error(`stalled at ${s.distinct} of ${total} deliveries`);
      if (Date.now() - lastFailureCheck > 1000) {
        lastFailureCheck = Date.now();
        const failed = await db.prisma.webhookDelivery.findFirst({ where: { status: 'failed' } });
        if (failed) throw new Error(`delivery failed: ${failed.error}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const cpu = process.cpuUsage(cpuBefore);
    if (profiler) fs.writeFileSync(profileFile!, JSON.stringify(await profiler.stop()));
    // A little longer, so a duplicate sent late is still seen.
    await new Promise((r) => setTimeout(r, 500));
    const s = await stats();
    if (s.hits !== s.distinct) throw new Error(`${s.hits - s.distinct} deliveries arrived more than once`);
    // At least a millisecond: a run of one delivery has no span.
    const seconds = Math.max(s.last - s.first, 1) / 1000;
    const perSecond = Math.round(s.distinct / seconds);
    say(`${s.distinct} deliveries, each once, in ${seconds.toFixed(2)} s = ${perSecond} deliveries/s`);
    const cpuPerDelivery = ((cpu.user + cpu.system) / 1000 / s.distinct).toFixed(3);
    say(`CPU of this process while delivering: ${cpuPerDelivery} ms per delivery`);
    if (json)
      console.log(
        JSON.stringify({
          events: total,
          deliveries: s.distinct,
          seconds: Number(seconds.toFixed(3)),
          per_second: perSecond,
          workers,
        }),
      );
  } finally {
    for (const step of cleanup.reverse()) await step();
  }
}
