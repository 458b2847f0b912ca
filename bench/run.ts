// `npm run bench`: seeds its own data, measures the service against two plain baselines in one
// run and prints one table with the goals' ratios. PostgreSQL when DATABASE_URL is set (in a
// database of its own, dropped at the end), else the embedded database in a temporary directory.
//   npm run bench -- [--seconds 6] [--rounds 3] [--warmup 1] [--connections 50] [--large] [--no-deliveries]
//                    [--only name,name] [--compare <other checkout>] [--profile <dir>]
//                    [--no-import] [--import-rows N]
// --large adds a run at 1,000,000 contacts (PostgreSQL only). The import (bench/imports.ts) is of
// 1,000,000 contacts on PostgreSQL and 100,000 on PGlite unless --import-rows says otherwise.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { measureInRounds, type Case, type LoadOptions, type Measured } from './load.ts';
import { DEEP_PAGE, seed, type Seeded } from './seed.ts';
import { startFlags, startServer, type ServerProcess } from './server-process.ts';
import { goalsOf, printTable, type ImportFigures, type Row } from './report.ts';
import { filterPlans, type FilterPlan } from './plans.ts';

const args = process.argv.slice(2);
const flag = (name: string) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
};
const load: LoadOptions = {
  seconds: Number(flag('--seconds') ?? 6),
  warmupSeconds: Number(flag('--warmup') ?? 1),
  connections: Number(flag('--connections') ?? 50),
  rounds: Number(flag('--rounds') ?? 3),
};
const pgUrl = process.env.DATABASE_URL || null;
/** `--compare <dir>`: also measure the service of another checkout (with its dependencies installed). */
const compare = flag('--compare');
const large = args.includes('--large');
/** `--profile <dir>`: every server writes a V8 CPU profile there when it stops, in a folder named after it. */
const profileDir = flag('--profile');
if (large && !pgUrl) throw new Error('--large needs PostgreSQL: set DATABASE_URL');
const sizes = [10_000, ...(large ? [1_000_000] : [])];
/** Requests per key before the next key takes over: below every plan's burst, so nothing is refused. */
const PER_KEY = 900;
const KEYS = 1000;

const say = (s: string) => process.stderr.write(`${s}\n`);

// Interrupted runs still drop their database and stop their servers (children get the signal too).
const cleanups = new Set<() => Promise<void>>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    say(`${signal}: cleaning up`);
    void Promise.allSettled([...cleanups].map((c) => c())).finally(() => process.exit(130));
  });
}

/** A fresh database for one size: returns how the servers reach it and how to remove it. */
async function freshDatabase(
  size: number,
): Promise<{ env: Record<string, string>; open: () => Promise<Database>; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-bench-'));
  if (!pgUrl) {
    return {
      env: { DATA_DIR: dataDir },
      open: () => openDatabase({ dataDir }),
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  const name = `crm_bench_${process.pid}_${size}`;
  const admin = new pg.Client({ connectionString: pgUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(pgUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATABASE_URL: url.toString(), DATA_DIR: dataDir },
    open: () => openDatabase({ databaseUrl: url.toString() }),
    drop: async () => {
      await admin.query(`DROP DATABASE ${name} WITH (FORCE)`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Hands out keys so that each serves PER_KEY requests, then the next one takes over. One rotation
 * per key list for the whole run, so no key is used again by a later case (or process).
 */
const rotations = new WeakMap<string[], () => string>();
function keyRotation(keys: string[]) {
  let rotation = rotations.get(keys);
  if (!rotation) {
    let n = 0;
    rotation = () => `Bearer ${keys[Math.floor(n++ / PER_KEY) % keys.length]}`;
    rotations.set(keys, rotation);
  }
  return rotation;
}

const CONTACT_FIELDS =
  'id first_name last_name email phone company job_title status source tags assigned_to engagement_score ' +
  'custom_fields address { street city state zip country } created_at updated_at';
const DEAL_FIELDS =
  'id title pipeline_id stage_id stage_name value currency probability owner_id contact_id expected_close_date ' +
  'status custom_fields tags won_reason lost_reason competitor closed_at created_at updated_at';
const PAGE = 'total limit has_more next_cursor';

/** Numbers the contacts the write cases create: emails must stay unique in their workspace across cases. */
let created = 0;

function serviceCases(s: Seeded): Case[] {
  const readKey = keyRotation(s.readKeys);
  const writeKey = keyRotation(s.writeKeys);
  let i = 0;
  const nextId = () => s.contactIds[i++ % s.contactIds.length];
  const get = (name: string, p: () => string): Case => ({
    name,
    request: () => ({ path: p(), headers: { authorization: readKey() } }),
  });
  const gql = (name: string, query: string, variables: () => Record<string, unknown> = () => ({})): Case => ({
    name,
    method: 'POST',
    request: () => ({
      path: '/graphql',
      headers: { authorization: readKey() },
      body: JSON.stringify({ query, variables: variables() }),
    }),
  });
  return [
    get('REST GET /v1/contacts/:id', () => `/v1/contacts/${nextId()}`),
    gql('GraphQL contact(id)', `query GetContact($id: ID!) { contact(id: $id) { ${CONTACT_FIELDS} } }`, () => ({
      id: nextId(),
    })),
    get('REST GET /v1/contacts?limit=100', () => '/v1/contacts?limit=100'),
    gql('GraphQL contacts(limit: 100)', `{ contacts(limit: 100) { nodes { ${CONTACT_FIELDS} } ${PAGE} } }`),
    get('REST GET /v1/deals?limit=100', () => '/v1/deals?limit=100'),
    // The rows and fields the REST list answers (a deal with its stage's name)...
    gql('GraphQL deals(limit: 100), as REST', `{ deals(limit: 100) { nodes { ${DEAL_FIELDS} } ${PAGE} } }`),
    // ...and what a board asks for: each deal's contact and stage as objects, 100 contacts more.
    gql(
      'GraphQL deals(limit: 100) + contact, stage',
      `{ deals(limit: 100) { nodes { ${DEAL_FIELDS} contact { id first_name last_name email } ` +
        `stage { id name probability } } ${PAGE} } }`,
    ),
    get('REST contacts ?status=customer', () => '/v1/contacts?status=customer&limit=100'),
    get(
      `REST contacts cursor ${DEEP_PAGE.pages} pages deep`,
      () => `/v1/contacts?limit=${DEEP_PAGE.limit}&cursor=${s.deepCursor}`,
    ),
    get('REST GET /v1/contacts/search', () => `/v1/contacts/search?q=${encodeURIComponent(s.searchQuery)}`),
    ...filterCases(s, readKey),
    batchCase(writeKey),
    exportCase(s, readKey),
    {
      name: 'REST POST /v1/contacts (+ event)',
      method: 'POST',
      request: () => ({
        path: '/v1/contacts',
        headers: { authorization: writeKey() },
        body: JSON.stringify({
          first_name: 'Bench',
          last_name: 'Writer',
          email: `svc${process.pid}.${created++}@example.com`,
          company: 'Bench',
        }),
      }),
    },
  ];
}

/**
 * The filter language on indexed conditions (goal: p95 at 1,000,000 contacts within 2× of
 * 10,000): each selects about as many contacts at every size, so the cost that grows is the search.
 */
export function filterBodies(s: Seeded): Array<[string, Record<string, unknown>]> {
  return [
    ['equality', { where: { status: 'customer', source: 'referral' }, limit: 100 }],
    ['range', { where: { created_at: { gte: s.filters.range[0], lt: s.filters.range[1] } }, limit: 100 }],
    ['prefix', { where: { email: { starts_with: s.filters.emailPrefix } }, limit: 100 }],
    ['one hop', { where: { 'company.domain': s.filters.companyDomain }, limit: 100 }],
  ];
}

function filterCases(s: Seeded, readKey: () => string): Case[] {
  return filterBodies(s).map(([name, body]) => ({
    name: `REST contacts/query ${name}`,
    method: 'POST',
    request: () => ({
      path: '/v1/contacts/query',
      headers: { authorization: readKey() },
      body: JSON.stringify(body),
    }),
  }));
}

/** Records per batch request; the case's rows/s is its req/s times this. */
export const BATCH_ROWS = 1000;
let batches = 0;

/**
 * 1,000 upserts by external_id per request, each changing its record (so each writes its row and its
 * events): ten sets of 1,000 records taken in turn, created by their first request, updated after.
 */
function batchCase(writeKey: () => string): Case {
  return {
    name: `REST POST /v1/contacts/batch, rows/s (${BATCH_ROWS} upserts a request)`,
    method: 'POST',
    connections: 4,
    perRequest: BATCH_ROWS,
    request: () => {
      const n = batches++;
      const set = n % 10;
      const operations = Array.from({ length: BATCH_ROWS }, (_, i) => ({
        op: 'upsert',
        upsert_by: 'external_id',
        data: {
          external_id: `bench-${process.pid}-${set}-${i}`,
          first_name: 'Batch',
          email: `batch${process.pid}.${set}.${i}@example.com`,
          job_title: `Round ${n}`,
        },
      }));
      return {
        path: '/v1/contacts/batch',
        headers: { authorization: writeKey() },
        body: JSON.stringify({ operations }),
      };
    },
  };
}

/** A CSV export of the read workspace's first 10,000 contacts per request; its rows/s is req/s times those. */
function exportCase(s: Seeded, readKey: () => string): Case {
  return {
    name: `REST GET /v1/contacts/export (csv), rows/s (${s.export.rows.toLocaleString('en')} a request)`,
    // At most EXPORT_CONCURRENCY (2) exports run at once.
    connections: 2,
    perRequest: s.export.rows,
    request: () => ({
      path: `/v1/contacts/export?created_before=${s.export.before}`,
      headers: { authorization: readKey() },
    }),
  };
}

function baselineCases(s: Seeded, prefix: string, withWrites: boolean): Case[] {
  let i = 0;
  const cases: Case[] = [
    {
      name: `${prefix} GET contact by id`,
      request: () => ({ path: `/contacts/${s.contactIds[i++ % s.contactIds.length]}` }),
    },
    { name: `${prefix} GET contacts?limit=100`, request: () => ({ path: '/contacts?limit=100' }) },
  ];
  if (withWrites) {
    cases.push({ name: `${prefix} GET deals?limit=100`, request: () => ({ path: '/deals?limit=100' }) });
    cases.push({
      name: `${prefix} insert contact (no event)`,
      method: 'POST',
      request: () => ({
        path: '/contacts',
        body: JSON.stringify({
          first_name: 'Bench',
          last_name: 'Writer',
          email: `base${process.pid}.${created++}@example.com`,
          company: 'Bench',
        }),
      }),
    });
  }
  return cases;
}

/** `--profile`'s flags for one server: its profile goes to a folder named after its label. */
function profileFlags(label: string): string[] {
  if (!profileDir) return [];
  const dir = path.resolve(profileDir, label.replace(/[^a-z0-9+]+/gi, '-').replace(/^-|-$/g, ''));
  return ['--cpu-prof', `--cpu-prof-dir=${dir}`];
}

/** `--only a,b`: just the cases whose names contain one of these (for quick comparisons). */
const only = flag('--only')?.split(',');
const chosen = (c: Case) => !only || only.some((o) => c.name.includes(o));

interface Server {
  label: string;
  script: string;
  env: Record<string, string>;
  cases: Case[];
  nodeArgs?: string[];
}

/**
 * Starts every server at once and measures all their chosen cases in interleaved rounds (see
 * load.ts), so a ratio compares figures taken over the same minutes. Results per server, in order.
 */
async function runAll(servers: Server[]): Promise<Array<{ results: Measured[]; rssMb: number }>> {
  const wanted = servers.map((s) => ({ ...s, cases: s.cases.filter(chosen) }));
  // The embedded database is one process's: there the servers take turns instead.
  if (!pgUrl) {
    const out = [];
    for (const s of wanted) out.push(...(await measureTogether([s])));
    return out;
  }
  return measureTogether(wanted);
}

/**
 * Waits (up to a minute) until no statement of another connection runs in the benchmark's
 * database: at 1,000,000 contacts a baseline's `count(*)` goes on for seconds after autocannon
 * gave up on its request, and would slow whichever case comes next.
 */
async function quietDatabase(url: string): Promise<{ wait: () => Promise<void>; close: () => Promise<void> }> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const close = () => client.end();
  const wait = async () => {
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      const { rows } = await client.query(
        'SELECT count(*)::int AS busy FROM pg_stat_activity WHERE datname = current_database() ' +
          "AND state = 'active' AND pid <> pg_backend_pid() AND now() - query_start > interval '1 second'",
      );
      if (rows[0].busy === 0) return;
    }
  };
  return { wait, close };
}

async function measureTogether(wanted: Server[]): Promise<Array<{ results: Measured[]; rssMb: number }>> {
  const started: Array<ServerProcess | null> = [];
  try {
    for (const s of wanted) {
      if (!s.cases.length) {
        started.push(null);
        continue;
      }
      say(`-- starting ${s.label}`);
      const server = await startServer(s.script, s.env, [...(s.nodeArgs ?? []), ...profileFlags(s.label)]);
      cleanups.add(server.stop);
      started.push(server);
    }
    const targets = wanted.flatMap((s, i) => s.cases.map((c) => ({ server: started[i]!, case: c })));
    if (!targets.length) return wanted.map(() => ({ results: [], rssMb: 0 }));
    say(`-- ${targets.length} case(s), ${load.rounds} round(s) of ${load.seconds / load.rounds} s each`);
    const quiet = pgUrl ? await quietDatabase(wanted[0].env.DATABASE_URL) : null;
    const results = await measureInRounds(targets, { ...load, settle: quiet?.wait }, (m) =>
      say(
        `   ${m.name}: ${Math.round(m.rps)} req/s, p50 ${m.p50} ms, p99 ${m.p99} ms, ` +
          `${m.cpuPerRequest} ms CPU/request${m.failures ? `, ${m.failures} failures` : ''}`,
      ),
    );
    await quiet?.close();
    let offset = 0;
    return wanted.map((s, i) => ({
      results: results.slice(offset, (offset += s.cases.length)),
      rssMb: started[i]?.rssMaxMb() ?? 0,
    }));
  } finally {
    for (const server of started) {
      if (!server) continue;
      cleanups.delete(server.stop);
      await server.stop();
    }
  }
}

async function deliveries(workers: number): Promise<number | null> {
  if (workers === 2 && !pgUrl) return null;
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/deliveries.ts', '3000', '--json', '--workers', String(workers)],
      { maxBuffer: 1 << 24 },
    );
    const last = stdout.trim().split('\n').pop() ?? '';
    const parsed = JSON.parse(last) as { per_second: number };
    return parsed.per_second;
  } catch (err) {
    say(`   deliveries (${workers} worker(s)) failed: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
}

/** bench/imports.ts in a process of its own: `rows` contacts (its default unless given). */
async function importFigures(rows: string | undefined): Promise<ImportFigures | null> {
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/imports.ts', ...(rows ? [rows] : []), '--json'],
      { maxBuffer: 1 << 24 },
    );
    return JSON.parse(stdout.trim().split('\n').pop() ?? '') as ImportFigures;
  } catch (err) {
    say(`   import failed: ${(err as Error).message.split('\n')[0]}`);
    return null;
  }
}

const rows: Row[] = [];
const plans: Array<{ size: number } & FilterPlan> = [];
let rssMax = 0;
// The service runs as `npm start` runs it: compiled (scripts/build-server.mjs), without a TypeScript loader.
await promisify(execFile)(process.execPath, ['scripts/build-server.mjs', '--if-stale']);
say(
  `bench: ${pgUrl ? 'PostgreSQL' : 'PGlite'}, ${load.connections} connections, ` +
    `${load.seconds} s per case (+${load.warmupSeconds} s warm-up), ${os.cpus().length} CPUs`,
);
for (const size of sizes) {
  const database = await freshDatabase(size);
  cleanups.add(database.drop);
  try {
    say(`seeding ${size.toLocaleString('en')} contacts`);
    const started = Date.now();
    const db = await database.open();
    await applyMigrations(db.adapter);
    const seeded = await seed(db, size, KEYS);
    await db.close();
    say(`   seeded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    const dbUrl = database.env.DATABASE_URL;
    for (const plan of await filterPlans(
      dbUrl ? { databaseUrl: dbUrl } : { dataDir: database.env.DATA_DIR },
      seeded.readWorkspace,
      filterBodies(seeded),
    )) {
      plans.push({ size, ...plan });
      say(`   plan of the ${plan.name} filter: ${plan.scans.join(' → ')}`);
    }
    const env = {
      ...database.env,
      BENCH_READ_WORKSPACE: seeded.readWorkspace,
      BENCH_WRITE_WORKSPACE: seeded.writeWorkspace,
    };
    const serviceEnv = { ...env, NODE_ENV: 'production', ENCRYPTION_KEY: 'bench-only-key' };
    const servers: Server[] = [
      {
        label: 'baseline: Express + Prisma',
        script: 'bench/baselines/express-prisma.ts',
        env,
        cases: baselineCases(seeded, 'Express+Prisma', true),
      },
      {
        label: `baseline: node:http + ${pgUrl ? 'pg' : 'PGlite query'}`,
        script: 'bench/baselines/node-pg.ts',
        env,
        cases: baselineCases(seeded, pgUrl ? 'http+pg' : 'http+PGlite', false),
      },
      {
        label: 'service (dist/server/main.js)',
        script: 'dist/server/main.js',
        env: serviceEnv,
        cases: serviceCases(seeded),
        nodeArgs: startFlags(),
      },
    ];
    if (compare) {
      // Another checkout's service on the same data, for before/after figures from one run.
      const built = path.join(compare, 'dist/server/main.js');
      const prefix = `[${path.basename(compare)}] `;
      servers.push({
        label: `service of ${compare}`,
        script: fs.existsSync(built) ? built : path.join(compare, 'src/main.ts'),
        env: serviceEnv,
        nodeArgs: startFlags(),
        cases: serviceCases(seeded).map((c) => ({ ...c, name: prefix + c.name })),
      });
    }
    const [prisma, raw, service, other] = await runAll(servers);
    rssMax = Math.max(rssMax, service.rssMb);
    rows.push(...goalsOf(size, prisma.results, raw.results, service.results, service.rssMb, load.connections));
    if (other) rows.push(...other.results.map((m) => ({ ...m, size })));
  } finally {
    cleanups.delete(database.drop);
    await database.drop();
  }
}

const delivery: Array<[number, number | null]> = [];
if (!args.includes('--no-deliveries') && !only) {
  say('-- webhook deliveries (bench/deliveries.ts)');
  for (const workers of [1, 2]) delivery.push([workers, await deliveries(workers)]);
}
let imported: ImportFigures | null = null;
if (!args.includes('--no-import') && !only) {
  say('-- an import (bench/imports.ts)');
  imported = await importFigures(flag('--import-rows'));
}
printTable(rows, { database: pgUrl ? 'PostgreSQL' : 'PGlite', load, rssMax, delivery, imported, sizes, plans });
