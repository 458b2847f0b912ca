// Compiled against interpreted execution of the same /graphql documents, in one process: two apps
// on one embedded database, differing only in GRAPHQL_COMPILE_BUDGET_MS (0 runs every document
// interpreted), take turns at sequential requests; each turn's CPU time (process.cpuUsage) is
// divided by its requests. Turns alternate, so a machine that slows down slows both alike.
//   npx tsx bench/graphql-execution.ts [--turns 6] [--requests 200]
import type { AddressInfo } from 'node:net';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { createLogger } from '../src/logger.ts';
import { createWebhookServices } from '../src/webhooks/services.ts';
import { seed } from './seed.ts';
import os from 'node:os';

const args = process.argv.slice(2);
const flag = (name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};
const turns = flag('--turns', 6);
const requests = flag('--requests', 200);

const CONTACT =
  'id first_name last_name email phone company job_title status source tags assigned_to engagement_score ' +
  'custom_fields address { street city state zip country } created_at updated_at';
const DEAL =
  'id title pipeline_id stage_id stage_name value currency probability owner_id contact_id status created_at';
const CASES: Array<[string, string, (ids: string[], i: number) => Record<string, unknown>]> = [
  ['contact(id)', `query C($id: ID!) { contact(id: $id) { ${CONTACT} } }`, (ids, i) => ({ id: ids[i % ids.length] })],
  ['contacts(limit: 100)', `{ contacts(limit: 100) { nodes { ${CONTACT} } total } }`, () => ({})],
  [
    'deals(limit: 100) + contact, stage',
    `{ deals(limit: 100) { nodes { ${DEAL} contact { id first_name email } stage { id name } } } }`,
    () => ({}),
  ],
];

const db = await openDatabase({});
await applyMigrations(db.adapter);
const seeded = await seed(db, 2000, 100, 1);
const logger = createLogger('silent');
const webhooks = createWebhookServices(
  { encryptionKey: 'bench', dataDir: os.tmpdir(), webhookAllowHttp: true, webhookAllowPrivateUrls: true },
  { redis: null },
);
async function serve(budget: number) {
  const { app } = buildApp({
    db,
    logger,
    webhooks,
    config: { trustProxy: null, graphiql: false, graphqlCompileAfter: 0, graphqlCompileBudgetMs: budget },
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}
const servers = { compiled: await serve(60_000), interpreted: await serve(0) };
// Each key serves 300 requests, then the next takes over: the rate limiter runs but never refuses.
let sent = 0;
const key = () => seeded.readKeys[Math.floor(sent++ / 300) % seeded.readKeys.length];

async function turn(base: string, query: string, variables: (i: number) => Record<string, unknown>): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < requests; i++) {
    const r = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query, variables: variables(i) }),
    });
    const body = (await r.json()) as { errors?: unknown };
    if (body.errors) throw new Error(JSON.stringify(body.errors));
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / requests;
}

for (const [name, query, variables] of CASES) {
  const figures: Record<string, number[]> = { compiled: [], interpreted: [] };
  // Warm-up: compiles, JIT of V8, caches.
  for (const s of Object.values(servers)) await turn(s.base, query, (i) => variables(seeded.contactIds, i));
  for (let t = 0; t < turns; t++) {
    for (const [label, s] of t % 2 ? Object.entries(servers).reverse() : Object.entries(servers)) {
      figures[label].push(await turn(s.base, query, (i) => variables(seeded.contactIds, i)));
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const c = median(figures.compiled);
  const n = median(figures.interpreted);
  console.log(
    `${name}: CPU ms per request (client and server in one process), median of ${turns} turns: ` +
      `compiled ${c.toFixed(2)}, interpreted ${n.toFixed(2)} (${((c / n) * 100).toFixed(0)} %)`,
  );
}
for (const s of Object.values(servers)) s.close();
await db.close();
