// Event → first delivery attempt, as a webhook receiver sees it: the service runs as `npm start`
// runs it (in-process delivery worker, WEBHOOK_WORKER_POLL_MS at its default), a client creates
// contacts at a steady rate through REST, and a receiver notes when each contact.created arrives.
// The latency of one event is its arrival minus the moment its POST was sent, so it includes the
// write itself. `--compare <dir>` measures another checkout's service the same way, after this one.
//   DATABASE_URL=… npx tsx bench/event-latency.ts [--rate 21] [--seconds 20] [--compare <dir>]
// (the embedded database when DATABASE_URL is unset)
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createApiKey, createWorkspace } from '../src/admin/workspaces.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { startFlags, startServer } from './server-process.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const rate = Number(flag('--rate') ?? 21);
const seconds = Number(flag('--seconds') ?? 20);
const compare = flag('--compare');
const pgUrl = process.env.DATABASE_URL || null;

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];

/** A database of its own (PostgreSQL) or a data directory (PGlite), migrated, with a workspace and a key. */
async function prepare(tag: string) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-latency-'));
  let env: Record<string, string> = { DATA_DIR: dataDir };
  let drop = async () => fs.rmSync(dataDir, { recursive: true, force: true });
  let url: string | null = null;
  if (pgUrl) {
    const name = `crm_latency_${process.pid}_${tag}`;
    const admin = new pg.Client({ connectionString: pgUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(pgUrl);
    u.pathname = `/${name}`;
    url = u.toString();
    env = { DATABASE_URL: url, DATA_DIR: dataDir };
    drop = async () => {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const db = await openDatabase(url ? { databaseUrl: url } : { dataDir });
  await applyMigrations(db.adapter);
  const ws = await createWorkspace(db.prisma, { name: 'Latency', plan: 'enterprise' });
  const { key } = await createApiKey(db.prisma, { workspace: ws.id, name: 'latency', scope: 'full' });
  await db.close();
  return { env, key, drop };
}

async function measure(label: string, script: string, tag: string): Promise<void> {
  const { env, key, drop } = await prepare(tag);
  const sent = new Map<string, number>();
  const latencies: number[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.end();
      try {
        const email = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.data?.contact?.email as string;
        const start = sent.get(email);
        if (start !== undefined && sent.delete(email)) latencies.push(at - start);
      } catch {
        // Not an event of this run.
      }
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const hook = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const server = await startServer(
    script,
    {
      ...env,
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      WEBHOOK_ALLOW_HTTP: 'true',
      WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
    },
    startFlags(),
  );
  try {
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const sub = await fetch(`${server.base}/v1/webhooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: hook, events: ['contact.created'] }),
    });
    if (sub.status !== 201) throw new Error(`webhook: ${sub.status} ${await sub.text()}`);
    const total = rate * seconds;
    const posts: Promise<unknown>[] = [];
    for (let i = 0; i < total; i++) {
      const email = `latency.${tag}.${i}@example.com`;
      sent.set(email, performance.now());
      posts.push(
        fetch(`${server.base}/v1/contacts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ first_name: 'L', email }),
        }),
      );
      await new Promise((r) => setTimeout(r, 1000 / rate));
    }
    await Promise.all(posts);
    const deadline = Date.now() + 30_000;
    while (latencies.length < total && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const sorted = latencies.sort((a, b) => a - b);
    const ms = (p: number) => `${percentile(sorted, p).toFixed(0)} ms`;
    console.log(
      `${label}: ${sorted.length}/${total} events at ${rate}/s, event → first attempt ` +
        `p50 ${ms(50)}, p95 ${ms(95)}, p99 ${ms(99)}, max ${ms(100)}`,
    );
  } finally {
    await server.stop();
    await new Promise((r) => receiver.close(r));
    await drop();
  }
}

await measure('service (dist/server/main.js)', 'dist/server/main.js', 'this');
if (compare) {
  const built = path.join(compare, 'dist/server/main.js');
  await measure(`service of ${compare}`, fs.existsSync(built) ? built : path.join(compare, 'src/main.ts'), 'other');
}
