// Lists of 100 with their relations cost at most 3 SQL statements per request, on REST and on
// /graphql with the same operations: the page, one query per relation level, and the total.
// Every statement the app sends is recorded; each request is counted after a warm-up call
// (key lookup and caches).
import { print } from 'graphql';
import { describe, expect, it } from 'vitest';
import { createApiKey } from '../src/admin/workspaces.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { schema } from '../src/schema/index.ts';
import { seed } from '../bench/seed.ts';
import { client, gql, type Client, type TestApp } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';

let app: TestApp;
let key: string;
let api: Client;
const statements: string[] = [];
const operations = loadOperations(schema);

const test = withAppOptions({ onQuery: (e) => statements.push(e.query) });
test.beforeAll(async ({ app: started }) => {
  app = started;
  // 110 contacts and a deal for each, inserted set-wise as the benchmark does.
  const seeded = await seed(app.db, 110, 0, 1);
  ({ key } = await createApiKey(app.db.prisma, {
    workspace: seeded.readWorkspace,
    name: 'query count',
    scope: 'full',
  }));
  api = client(app.base, key);
  // 110 companies, each with an owner, set-wise too.
  await app.db.prisma.$executeRaw`
    INSERT INTO companies (id, workspace_id, name, domain, owner_id, created_at, updated_at)
    SELECT 'com_count_' || lpad(g::text, 4, '0'), ${seeded.readWorkspace}, 'Company ' || g,
      'counted' || g || '.example',
      (SELECT id FROM users WHERE workspace_id = ${seeded.readWorkspace} ORDER BY id LIMIT 1 OFFSET g % 10),
      timestamptz '2024-01-01' + g * interval '1 second', timestamptz '2024-01-01' + g * interval '1 second'
    FROM generate_series(1, 110) g`;
  // Three notes on each company of the workspace (the seed's own too: they share creation times with these, so
  // some of them may be among the first 100).
  await app.db.prisma.$executeRaw`
    INSERT INTO notes (id, workspace_id, company_id, content, created_at, updated_at)
    SELECT 'note_' || c.id || '_' || n, c.workspace_id, c.id, 'Note ' || n || ' on ' || c.name,
      c.created_at + n * interval '1 minute', c.created_at + n * interval '1 minute'
    FROM companies c, generate_series(1, 3) n WHERE c.workspace_id = ${seeded.readWorkspace}`;
  // And three on each contact.
  await app.db.prisma.$executeRaw`
    INSERT INTO notes (id, workspace_id, contact_id, content, created_at, updated_at)
    SELECT 'note_' || c.id || '_' || n, c.workspace_id, c.id, 'Note ' || n,
      c.created_at + n * interval '1 minute', c.created_at + n * interval '1 minute'
    FROM contacts c, generate_series(1, 3) n WHERE c.workspace_id = ${seeded.readWorkspace}`;
});

/**
 * The SQL statements the second of two identical calls of `work` sent, leaving out the API key
 * lookup (the key and its workspaces): it is cached for a few seconds per key, not made per request, and may expire
 * between the two calls on a slow machine.
 */
async function statementsOf(work: () => Promise<unknown>): Promise<string[]> {
  await work();
  const start = statements.length;
  await work();
  return statements.slice(start).filter((sql) => !/"(api_keys|workspaces)"/.test(sql));
}

const restList = (path: string) => async () => {
  const r = await api('GET', path);
  expect(r.status).toBe(200);
  expect(r.body.data).toHaveLength(100);
  expect(r.body.meta.has_more).toBe(true);
};

const graphqlList = (operation: string, field: string) => async () => {
  const r = await gql(app.base, key, print(operations.get(operation)!), { limit: 100 });
  expect(r.errors).toBeUndefined();
  expect(r.data[field].nodes).toHaveLength(100);
};

describe('lists of 100 send at most 3 SQL statements', () => {
  it.each([
    ['REST GET /v1/contacts?limit=100', restList('/v1/contacts?limit=100')],
    ['REST GET /v1/deals?limit=100 (with stage names)', restList('/v1/deals?limit=100')],
    ['GraphQL ListContacts(limit: 100)', graphqlList('ListContacts', 'contacts')],
    ['GraphQL ListDeals(limit: 100)', graphqlList('ListDeals', 'deals')],
    ['REST GET /v1/companies?limit=100', restList('/v1/companies?limit=100')],
    ['GraphQL ListCompanies(limit: 100)', graphqlList('ListCompanies', 'companies')],
    [
      'GraphQL companies(limit: 100) with their owners',
      async () => {
        const r = await gql(app.base, key, '{ companies(limit: 100) { nodes { id name owner { id name } } total } }');
        expect(r.errors).toBeUndefined();
        expect(r.data.companies.nodes).toHaveLength(100);
        expect(r.data.companies.nodes.every((c: { owner: unknown }) => c.owner !== null)).toBe(true);
      },
    ],
  ])('%s', async (_name, work) => {
    const sent = await statementsOf(work);
    expect(sent.length, sent.join('\n')).toBeGreaterThan(0);
    expect(sent.length, sent.join('\n')).toBeLessThanOrEqual(3);
  });
});

describe("a list's nested notes are read for all its rows at once", () => {
  it('GraphQL companies(limit: 100) with two notes each and their totals: at most 5 statements', async () => {
    const sent = await statementsOf(async () => {
      // Without the notes' content: at up to 98 KiB a note, 200 of them are over the cost limit.
      const r = await gql(
        app.base,
        key,
        '{ companies(limit: 100) { nodes { id notes(limit: 2) { nodes { id created_at } total next_cursor } } } }',
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.companies.nodes).toHaveLength(100);
      for (const { notes } of r.data.companies.nodes) {
        expect(notes.nodes).toHaveLength(2);
        expect(notes.total).toBe(3);
        expect(notes.next_cursor).toEqual(expect.any(String));
      }
    });
    // It was 202: the companies read again (one statement, Prisma batches those lookups), then a page and a count
    // for each company. Now the page of companies, the first pages of all their notes and one grouped count.
    expect(sent.length, sent.join('\n')).toBeLessThanOrEqual(5);
  });

  it('GraphQL contacts(limit: 100) with two notes each and their totals: at most 5 statements', async () => {
    const sent = await statementsOf(async () => {
      const r = await gql(
        app.base,
        key,
        '{ contacts(limit: 100) { nodes { id notes(limit: 2) { nodes { id created_at } total next_cursor } } } }',
      );
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.contacts.nodes).toHaveLength(100);
      for (const { notes } of r.data.contacts.nodes) {
        expect(notes.nodes).toHaveLength(2);
        expect(notes.total).toBe(3);
      }
    });
    expect(sent.length, sent.join('\n')).toBeLessThanOrEqual(5);
  });
});

describe('a create is one SQL statement', () => {
  it('POST /v1/contacts writes the contact and its contact.created event in one statement', async () => {
    let n = 0;
    let created: { id: string } | undefined;
    const sent = await statementsOf(async () => {
      const r = await api('POST', '/v1/contacts', {
        first_name: 'Counted',
        email: `counted.${Date.now()}.${n++}@example.com`,
        tags: ['a'],
        address: { city: 'Oslo' },
      });
      expect(r.status, r.text).toBe(201);
      created = r.body.data;
    });
    expect(sent, sent.join('\n')).toHaveLength(1);
    const [stored, event] = await Promise.all([
      app.db.prisma.contact.findUnique({ where: { id: created!.id } }),
      app.db.prisma.event.findFirst({ where: { entityId: created!.id, type: 'contact.created' } }),
    ]);
    // The answer, the row and the event's record agree, timestamps and defaults included.
    expect(stored).toMatchObject({
      firstName: 'Counted',
      status: 'lead',
      source: 'api',
      tags: ['a'],
      engagementScore: 0,
      address: { city: 'Oslo' },
    });
    expect(created).toMatchObject({
      created_at: stored!.createdAt.toISOString(),
      updated_at: stored!.updatedAt.toISOString(),
    });
    expect((event!.data as { contact: unknown }).contact).toEqual(created);
  });
});

describe('a bulk create reads the custom field definitions and the users its rows name once', () => {
  it('POST /v1/contacts/bulk of 50 rows: one statement a row, one for the users, one for the definitions', async () => {
    const ws = await app.workspace();
    await ws.addCustomField('tier', 'select', ['gold', 'silver']);
    await ws.addCustomField('score', 'number');
    const users = await Promise.all(Array.from({ length: 10 }, (_, i) => ws.addUser(`Bulk owner ${i}`)));
    let n = 0;
    const sent = await statementsOf(async () => {
      const contacts = Array.from({ length: 50 }, (_, i) => ({
        first_name: `Bulk ${i}`,
        email: `bulk.${Date.now()}.${n++}@example.com`,
        assigned_to: users[i % users.length].id,
        custom_fields: { tier: 'gold', score: i },
      }));
      const r = await ws.api('POST', '/v1/contacts/bulk', { contacts });
      expect(r.status, r.text).toBe(201);
      expect(r.body.data.created).toBe(50);
    });
    const reading = (table: string) => sent.filter((sql) => sql.startsWith('SELECT') && sql.includes(`"${table}"`));
    // Row by row, it was 150: each row read the definitions and its user before its insert.
    expect(reading('custom_field_definitions'), sent.join('\n')).toHaveLength(1);
    expect(reading('users'), sent.join('\n')).toHaveLength(1);
    expect(sent, sent.join('\n')).toHaveLength(52);
  });
});
