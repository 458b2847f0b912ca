// Turns measurements into the table `npm run bench` prints: each case with its ratio to the
// baseline it is judged against, the goal and whether it was met.
import type { LoadOptions, Measured } from './load.ts';

export interface Row extends Measured {
  size: number;
  /** Throughput relative to the baseline case named in `against`. */
  ratio?: number;
  against?: string;
  goal?: string;
  met?: boolean;
}

interface Goal {
  /** Start of the service case's name. */
  service: string;
  /** Start of the name of the case it is judged against: an Express + Prisma case, or the service's REST case. */
  against: string;
  min?: number;
  /** p99 in ms, judged only in a run at `P99_CONNECTIONS` connections. */
  p99Below?: number;
}

/** The connections at which the p99 goal holds (`--connections 20`). */
const P99_CONNECTIONS = 20;

// REST against the plainest Express + Prisma handler; GraphQL against REST for the same rows.
const GOALS: Goal[] = [
  { service: 'REST GET /v1/contacts/:id', against: 'Express+Prisma GET contact by id', min: 0.95, p99Below: 50 },
  { service: 'GraphQL contact(id)', against: 'REST GET /v1/contacts/:id', min: 0.8 },
  { service: 'REST GET /v1/contacts?limit=100', against: 'Express+Prisma GET contacts', min: 0.9 },
  { service: 'GraphQL contacts(limit: 100)', against: 'REST GET /v1/contacts?limit=100', min: 0.8 },
  { service: 'REST GET /v1/deals?limit=100', against: 'Express+Prisma GET deals', min: 0.9 },
  { service: 'GraphQL deals(limit: 100), as REST', against: 'REST GET /v1/deals?limit=100', min: 0.8 },
  // Reads each deal's contact too, which the REST list does not: a ratio, no goal.
  { service: 'GraphQL deals(limit: 100) + contact', against: 'REST GET /v1/deals?limit=100' },
  { service: 'REST POST /v1/contacts (+ event)', against: 'Express+Prisma insert contact', min: 0.7 },
  { service: 'http+pg GET contact', against: 'Express+Prisma GET contact by id' },
  { service: 'http+PGlite GET contact', against: 'Express+Prisma GET contact by id' },
  { service: 'http+pg GET contacts', against: 'Express+Prisma GET contacts' },
  { service: 'http+PGlite GET contacts', against: 'Express+Prisma GET contacts' },
];

/** Rows per second an import of contacts must reach, events included (issue goal, PostgreSQL). */
const IMPORT_ROWS_GOAL = 10_000;

/** What bench/imports.ts reports (`--json`). */
export interface ImportFigures {
  rows: number;
  failed: number;
  rows_per_second: number;
  rss_max_mb: number;
}

/** Webhook deliveries per second the in-process worker must reach on PostgreSQL. */
const DELIVERIES_GOAL = 1500;

/** Upserts per second a batch must reach, events included. */
const BATCH_ROWS_GOAL = 5000;

/** Cases whose p95 at 1,000,000 contacts must stay within 2× of their p95 at 10,000 (goal 6). */
const SCALE_CASES = [
  'REST GET /v1/contacts/:id',
  'REST GET /v1/contacts?limit=100',
  'REST contacts ?status=',
  'REST contacts cursor',
  'REST GET /v1/contacts/search',
  'REST contacts/query',
];

export function goalsOf(
  size: number,
  prisma: Measured[],
  raw: Measured[],
  service: Measured[],
  rssMb: number,
  connections: number,
): Row[] {
  const reference = (name: string) => [...prisma, ...service].find((m) => m.name.startsWith(name));
  const rows: Row[] = prisma.map((m) => ({ ...m, size }));
  for (const m of [...raw, ...service]) {
    const goal = GOALS.find((g) => m.name.startsWith(g.service));
    const row: Row = { ...m, size };
    const base = goal && reference(goal.against);
    if (goal && base) {
      // A reference that answered nothing within autocannon's 10 s timeout gives no ratio.
      row.ratio = base.rps > 0 ? m.rps / base.rps : undefined;
      row.against = base.name;
      if (goal.min !== undefined) {
        const parts = [`≥ ${Math.round(goal.min * 100)} % of ${shortName(base.name)}`];
        let met = row.ratio !== undefined && row.ratio >= goal.min;
        if (goal.p99Below !== undefined) {
          if (connections === P99_CONNECTIONS) {
            parts.push(`p99 < ${goal.p99Below} ms`);
            met &&= m.p99 < goal.p99Below;
          } else {
            parts.push(`(p99 < ${goal.p99Below} ms at ${P99_CONNECTIONS} conn.: not judged)`);
          }
        }
        row.goal = parts.join(', ');
        row.met = met && m.failures === 0;
      }
    }
    rows.push(row);
  }
  // Batches: rows per second with their events, an absolute goal.
  for (const row of rows.filter((r) => r.name.startsWith('REST POST /v1/contacts/batch'))) {
    row.goal = `≥ ${BATCH_ROWS_GOAL.toLocaleString('en')} rows/s`;
    row.met = row.rps >= BATCH_ROWS_GOAL && row.failures === 0;
  }
  rows.push({
    name: 'service RSS max (MB)',
    size,
    rps: NaN,
    p50: NaN,
    p95: NaN,
    p99: NaN,
    failures: 0,
    cpuPerRequest: NaN,
    ratio: rssMb,
    goal: '< 300 MB',
    met: rssMb < 300,
  });
  return rows;
}

function scaleGoals(rows: Row[], sizes: number[]): void {
  if (sizes.length < 2) return;
  const [small, big] = sizes;
  const cases = new Set(rows.filter((r) => SCALE_CASES.some((name) => r.name.startsWith(name))).map((r) => r.name));
  for (const name of cases) {
    const a = rows.find((r) => r.size === small && r.name === name);
    const b = rows.find((r) => r.size === big && r.name === name);
    if (!a || !b) continue;
    b.goal = [b.goal, `p95 ≤ 2× of ${small.toLocaleString('en')} (${a.p95} ms)`].filter(Boolean).join('; ');
    b.met = (b.met ?? true) && b.rps > 0 && b.p95 <= 2 * a.p95;
  }
}

/** `Express+Prisma GET contacts` → `Express+Prisma`; `REST GET /v1/contacts/:id` → `REST`. */
const shortName = (name: string) => name.split(' ')[0];

const num = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : '');

export function printTable(
  rows: Row[],
  info: {
    database: string;
    load: LoadOptions;
    rssMax: number;
    delivery: Array<[number, number | null]>;
    /** The import of bench/imports.ts, when it ran. */
    imported: ImportFigures | null;
    sizes: number[];
    plans: Array<{ size: number; name: string; scans: string[]; sequential: boolean }>;
  },
): void {
  scaleGoals(rows, info.sizes);
  const header = ['contacts', 'case', 'req/s', 'p50 ms', 'p95 ms', 'p99 ms', 'CPU ms/req', 'ratio', 'goal', 'met?'];
  const body = rows.map((r) => [
    r.size.toLocaleString('en'),
    r.name + (r.failures ? ` (${r.failures} failed)` : '') + (r.rps === 0 ? ' (no answer within 10 s)' : ''),
    num(r.rps),
    num(r.p50),
    num(r.p95),
    num(r.p99),
    num(r.cpuPerRequest, 2),
    r.ratio === undefined
      ? r.against
        ? 'n/a'
        : ''
      : r.name.startsWith('service RSS')
        ? `${num(r.ratio)} MB`
        : `${num(r.ratio * 100)} %`,
    r.goal ?? '',
    r.met === undefined ? '' : r.met ? 'yes' : 'NO',
  ]);
  for (const [workers, perSecond] of info.delivery) {
    body.push([
      '',
      `webhook deliveries/s, ${workers} worker${workers > 1 ? 's' : ''}`,
      perSecond === null ? 'n/a' : num(perSecond),
      '',
      '',
      '',
      '',
      '',
      workers === 1 ? `≥ ${DELIVERIES_GOAL.toLocaleString('en')}/s` : '',
      workers === 1 ? (perSecond !== null && perSecond >= DELIVERIES_GOAL ? 'yes' : 'NO') : '',
    ]);
  }
  if (info.imported) {
    const { rows: n, rows_per_second: rate, rss_max_mb: rss, failed } = info.imported;
    const met = rate >= IMPORT_ROWS_GOAL && rss < 300 && failed === 0;
    body.push([
      n.toLocaleString('en'),
      `import of ${n.toLocaleString('en')} contacts (CSV, events and audit), rows/s; service RSS max ${rss} MB`,
      num(rate),
      '',
      '',
      '',
      '',
      '',
      `≥ ${IMPORT_ROWS_GOAL.toLocaleString('en')} rows/s, RSS < 300 MB`,
      met ? 'yes' : 'NO',
    ]);
  }
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i >= 2 && i <= 7 ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join(' | ')} |`;
  console.log(
    `\n${info.database}, ${info.load.connections} connections, ${info.load.seconds} s per case; ` +
      'ratio = req/s against the case the goal names (Express + Prisma for REST, REST for GraphQL); ' +
      "CPU ms/req = the server process's CPU time per request\n",
  );
  console.log(line(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  if (info.plans.length) {
    console.log('\nPlans of the filter cases (the page query of POST /v1/contacts/query, EXPLAIN):\n');
    for (const p of info.plans)
      console.log(
        `- ${p.size.toLocaleString('en')}, ${p.name}: ${p.scans.join(' → ')}` +
          (p.sequential ? ' — SEQUENTIAL SCAN' : ''),
      );
  }
}
