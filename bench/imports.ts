// An import of N contacts (default 1,000,000 on PostgreSQL, 100,000 on PGlite) through the running
// service: a CSV written to a temporary file, sent to POST /v1/imports as a browser sends a form
// (streamed from disk), and followed with GET /v1/imports/:id until it completes. Reports rows per
// second (events and audit entries included: they are written with the rows) and the service's
// peak RSS. PostgreSQL when DATABASE_URL is set, in a database of its own, dropped at the end.
//   node --import tsx bench/imports.ts [rows] [--json]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createApiKey, createWorkspace } from '../src/admin/workspaces.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { startFlags, startServer } from './server-process.ts';

const args = process.argv.slice(2);
const pgUrl = process.env.DATABASE_URL || null;
const rows = Number(
  args.find((a, i) => /^\d+$/.test(a) && args[i - 1] !== '--profile') ?? (pgUrl ? 1_000_000 : 100_000),
);
/** `--profile <dir>`: the service writes a V8 CPU profile there when it stops. */
const profile = args.includes('--profile') ? args[args.indexOf('--profile') + 1] : null;
const say = (s: string) => process.stderr.write(`${s}\n`);

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-import-bench-'));
let databaseUrl: string | null = null;
let admin: pg.Client | null = null;
const name = `crm_import_bench_${process.pid}`;
if (pgUrl) {
  admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  databaseUrl = url.toString();
}

try {
  const db = await openDatabase(databaseUrl ? { databaseUrl } : { dataDir: path.join(dir, 'data') });
  await applyMigrations(db.adapter, { client: db.prisma });
  const ws = await createWorkspace(db.prisma, { name: 'Import bench', plan: 'enterprise' });
  const { key } = await createApiKey(db.prisma, { workspace: ws.id, name: 'import bench', scope: 'full' });
  await db.close();

  const file = path.join(dir, 'contacts.csv');
  const out = fs.createWriteStream(file);
  out.write('first_name,last_name,email,phone,company,status,tags\n');
  for (let i = 0; i < rows; i++) {
    const phone = `+1415555${String(i % 10000).padStart(4, '0')}`;
    const line = `First${i},Last${i},import${i}@example.com,${phone},Co ${i % 997},lead,"a, b"\n`;
    if (!out.write(line)) await new Promise<void>((r) => out.once('drain', () => r()));
  }
  await new Promise<void>((r) => out.end(() => r()));
  const bytes = fs.statSync(file).size;
  say(
    `import bench: ${rows.toLocaleString('en')} contacts, ${(bytes / 1024 / 1024).toFixed(0)} MiB of CSV, ` +
      (pgUrl ? 'PostgreSQL' : 'PGlite'),
  );

  const server = await startServer(
    'dist/server/main.js',
    {
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      DATA_DIR: path.join(dir, 'data'),
      NODE_ENV: 'production',
      ENCRYPTION_KEY: 'bench-only-key',
      IMPORT_POLL_MS: '100',
    },
    [...startFlags(), ...(profile ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profile)}`] : [])],
  );
  try {
    const form = new FormData();
    form.append('resource', 'contacts');
    form.append('file', await fs.openAsBlob(file), 'contacts.csv');
    const sent = Date.now();
    const r = await fetch(`${server.base}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    const answer = (await r.json()) as { data: { id: string } };
    if (r.status !== 202) throw new Error(`upload answered ${r.status}: ${JSON.stringify(answer)}`);
    const uploaded = Date.now();
    say(`   uploaded in ${((uploaded - sent) / 1000).toFixed(1)} s`);
    let job: Record<string, any>;
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const g = await fetch(`${server.base}/v1/imports/${answer.data.id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      job = ((await g.json()) as { data: Record<string, any> }).data;
      say(
        `   ${job.status}: ${job.rows_read} rows, ${job.rows_per_second ?? '-'} rows/s, ` +
          `eta ${job.eta_seconds ?? '-'} s`,
      );
      if (job.status === 'completed' || job.status === 'failed') break;
    }
    const seconds = (Date.now() - uploaded) / 1000;
    const result = {
      rows: job.rows_read,
      written: job.rows_written,
      failed: job.rows_failed,
      status: job.status,
      rows_per_second: Math.round(job.rows_read / seconds),
      job_rows_per_second: job.rows_per_second,
      upload_seconds: (uploaded - sent) / 1000,
      rss_max_mb: Math.round(server.rssMaxMb()),
    };
    say(
      `   ${result.rows_per_second} rows/s from upload to completion (${result.job_rows_per_second} while running), ` +
        `peak RSS ${result.rss_max_mb} MB`,
    );
    if (args.includes('--json')) process.stdout.write(`${JSON.stringify(result)}\n`);
  } finally {
    await server.stop();
  }
} finally {
  if (admin) {
    await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
    await admin.end();
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
