// Seeds a benchmark database in a few set-based statements (INSERT … SELECT generate_series):
// one workspace for reads holding `contacts` contacts and a deal per ten of them (by default), one workspace
// that the write cases insert into (so reads see the same rows in every process), and enough
// API keys that no key runs into its rate limit during a run.
import { createWorkspace } from '../src/admin/workspaces.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../src/auth/keys.ts';
import type { Database } from '../src/db/client.ts';
import { encodeCursor, parseSort } from '../src/schema/common/pagination.ts';
import { CONTACT_SORT } from '../src/schema/contact/contact.queries.ts';
import { randomBase62 } from '../src/ids.ts';

export interface Seeded {
  readWorkspace: string;
  writeWorkspace: string;
  /** Full-access keys of the read workspace, each used for a share of its rate limit. */
  readKeys: string[];
  writeKeys: string[];
  /** Contacts spread over the whole table, requested in turn by the get-by-id cases. */
  contactIds: string[];
  /** Cursor of the default sort (newest first) 1,000 pages of 10 deep. */
  deepCursor: string;
  /** Matches the same 20 contacts at every size, so search cost does not follow table size. */
  searchQuery: string;
  /** The first `rows` contacts (created_at up to `before`): what each export request of the benchmark reads. */
  export: { before: string; rows: number };
  /** Filters of the filter language, each selecting about as many contacts at every size (see filterCases). */
  filters: { range: [string, string]; emailPrefix: string; companyDomain: string };
}

const FIRST = [
  'Ada',
  'Alan',
  'Barbara',
  'Claude',
  'Donald',
  'Edsger',
  'Frances',
  'John',
  'Katherine',
  'Linus',
  'Margaret',
  'Niklaus',
  'Radia',
  'Ken',
  'Dennis',
  'Bjarne',
  'Guido',
  'Larry',
  'Sophie',
  'Tim',
];
const LAST = [
  'Lovelace',
  'Turing',
  'Liskov',
  'Shannon',
  'Knuth',
  'Dijkstra',
  'Allen',
  'McCarthy',
  'Johnson',
  'Torvalds',
  'Hamilton',
  'Wirth',
  'Perlman',
  'Thompson',
  'Ritchie',
  'Stroustrup',
  'Rossum',
  'Wall',
  'Wilson',
  'Berners-Lee',
];
const STATUSES = ['active', 'inactive', 'lead', 'customer', 'churned'];
const SOURCES = ['website', 'referral', 'social', 'paid_ads', 'manual', 'api', 'import'];
const SEARCH_MATCHES = 20;
export const DEEP_PAGE = { limit: 10, pages: 1000 };
/** Contacts in each export request, at every size. */
const EXPORT_ROWS = 10_000;

const sqlArray = (items: string[]) => `ARRAY[${items.map((s) => `'${s.replace(/'/g, "''")}'`).join(',')}]`;

async function insertKeys(db: Database, workspaceId: string, count: number): Promise<string[]> {
  const keys = Array.from({ length: count }, () => generateApiKey(false));
  for (let i = 0; i < keys.length; i += 1000) {
    const batch = keys.slice(i, i + 1000);
    await db.prisma.apiKey.createMany({
      data: batch.map((key, j) => ({
        id: `key_${workspaceId}_${i + j}`,
        workspaceId,
        name: `bench ${i + j}`,
        prefix: displayPrefix(key),
        hash: hashApiKey(key),
        scope: 'full',
      })),
    });
  }
  return keys;
}

/** `dealEvery`: one deal for every this many contacts (the benchmark's 10; the tests use 1 for small seeds). */
export async function seed(db: Database, contacts: number, keys: number, dealEvery = 10): Promise<Seeded> {
  const reads = await createWorkspace(db.prisma, { name: 'bench reads', plan: 'enterprise' });
  const writes = await createWorkspace(db.prisma, { name: 'bench writes', plan: 'enterprise' });
  const ws = reads.id;
  const run = (sql: string) => db.prisma.$executeRawUnsafe(sql);
  // Ids of this seed's rows: a tag of their own, so several seeds can share a database.
  const tag = randomBase62(6);
  const ids = { user: `usr_${tag}_`, contact: `con_${tag}_`, deal: `deal_${tag}_`, company: `com_${tag}_` };
  // One company per ten contacts (100,000 at 1,000,000): each has ten contacts at every size.
  const companies = Math.max(1, Math.floor(contacts / 10));

  await run(`INSERT INTO users (id, workspace_id, name, email, updated_at)
    SELECT '${ids.user}' || g, '${ws}', 'Owner ' || g, 'owner' || g || '@example.com', now()
    FROM generate_series(1, 10) g`);
  await run(`INSERT INTO companies (id, workspace_id, name, domain, industry, size, tags, owner_id, created_at,
      updated_at)
    SELECT '${ids.company}' || lpad(g::text, 8, '0'), '${ws}', 'Company ' || g, 'company' || g || '.example',
      (${sqlArray(['software', 'retail', 'media', 'energy'])})[1 + g % 4], g % 5000, ARRAY['segment' || (g % 5)],
      '${ids.user}' || (1 + g % 10),
      timestamptz '2024-01-01' + g * interval '1 second', timestamptz '2024-01-01' + g * interval '1 second'
    FROM generate_series(1, ${companies}) g`);
  // Created one second apart, newest last, as an import of older records would be.
  const searchEvery = Math.floor(contacts / SEARCH_MATCHES);
  await run(`INSERT INTO contacts (id, workspace_id, first_name, last_name, email, phone, company, job_title, status,
      source, tags, assigned_to, engagement_score, custom_fields, address, company_id, created_at, updated_at)
    SELECT '${ids.contact}' || lpad(g::text, 8, '0'), '${ws}',
      CASE WHEN g % ${searchEvery} = 0 THEN 'Grace' ELSE (${sqlArray(FIRST)})[1 + g % ${FIRST.length}] END,
      CASE WHEN g % ${searchEvery} = 0 THEN 'Hopper'
        ELSE (${sqlArray(LAST)})[1 + (g / ${FIRST.length}) % ${LAST.length}] END,
      'person' || g || '@example.com', '+1555' || lpad(g::text, 7, '0'), 'Company ' || (g % 997), 'Engineer',
      (${sqlArray(STATUSES)})[1 + g % ${STATUSES.length}], (${sqlArray(SOURCES)})[1 + g % ${SOURCES.length}],
      ARRAY['tag' || (g % 50), 'group' || (g % 7)], '${ids.user}' || (1 + g % 10), g % 100,
      jsonb_build_object('tier', 'tier' || (g % 3)), jsonb_build_object('city', 'City ' || (g % 100)),
      '${ids.company}' || lpad((1 + g % ${companies})::text, 8, '0'),
      timestamptz '2024-01-01' + g * interval '1 second', timestamptz '2024-01-01' + g * interval '1 second'
    FROM generate_series(1, ${contacts}) g`);
  const stages = await db.prisma.stage.findMany({ where: { workspaceId: ws }, orderBy: { position: 'asc' } });
  await run(`INSERT INTO deals (id, workspace_id, title, pipeline_id, stage_id, value, currency, probability, owner_id,
      contact_id, expected_close_date, status, created_at, updated_at)
    SELECT '${ids.deal}' || lpad(g::text, 8, '0'), '${ws}', 'Deal ' || g, '${stages[0].pipelineId}',
      (${sqlArray(stages.map((s) => s.id))})[1 + g % ${stages.length}], (g % 1000) * 100, 'USD', 10 * (g % 10),
      '${ids.user}' || (1 + g % 10), '${ids.contact}' || lpad((g * ${dealEvery})::text, 8, '0'),
      date '2025-01-01' + (g % 365), 'open',
      timestamptz '2024-01-01' + g * interval '10 second', timestamptz '2024-01-01' + g * interval '10 second'
    FROM generate_series(1, ${Math.floor(contacts / dealEvery)}) g`);
  // Vacuumed now rather than by autovacuum in the middle of a measurement.
  await run('VACUUM ANALYZE contacts, companies, deals, users');

  const readKeys = await insertKeys(db, ws, keys);
  const writeKeys = await insertKeys(db, writes.id, keys);
  const step = Math.max(1, Math.floor(contacts / 1000));
  const contactIds = Array.from(
    { length: Math.min(1000, contacts) },
    (_, i) => `${ids.contact}${String(1 + i * step).padStart(8, '0')}`,
  );
  const sortKeys = parseSort(undefined, CONTACT_SORT);
  const [deep] = await db.prisma.contact.findMany({
    where: { workspaceId: ws },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    // At the small size the last full page stands in for page 1,000.
    skip: Math.min(DEEP_PAGE.limit * DEEP_PAGE.pages, contacts - DEEP_PAGE.limit) - 1,
    take: 1,
  });
  return {
    readWorkspace: ws,
    writeWorkspace: writes.id,
    readKeys,
    writeKeys,
    contactIds,
    deepCursor: encodeCursor('contacts', sortKeys, deep),
    searchQuery: 'gra hop',
    // Contact g was created g seconds after 2024-01-01.
    export: {
      before: new Date(Date.UTC(2024, 0, 1) + Math.min(EXPORT_ROWS, contacts) * 1000).toISOString(),
      rows: Math.min(EXPORT_ROWS, contacts),
    },
    filters: {
      // 1,000 contacts, created one second apart from the 600th on.
      range: ['2024-01-01T00:10:00Z', '2024-01-01T00:26:40Z'],
      // person99…: 111 emails at 10,000 contacts (99, 990-999, 9900-9999), person9999… at 1,000,000.
      emailPrefix: `person${'9'.repeat(Math.max(1, Math.round(Math.log10(contacts)) - 2))}`,
      companyDomain: `company${Math.ceil(companies / 2)}.example`,
    },
  };
}
