// Company.notes under a list reads the first page of every company at once (and their totals in
// one count): its answers must be those of companyNotes for each company, field for field, with
// cursors that page on, in both orders, within the caller's workspace, under the same permissions.
import { describe, expect } from 'vitest';
import { gql, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';
import { firstNotesLoader } from '../src/schema/note/company-notes.loader.ts';
import { parseSort } from '../src/schema/common/pagination.ts';
import type { Context } from '../src/schema/context.ts';

const NOTE = 'id contact_id company_id content created_by version created_at updated_at';
const PAGE = `nodes { ${NOTE} } total limit has_more next_cursor`;
const NOTE_SORT_FIELDS = { created_at: { field: 'createdAt', type: 'date' as const } };
/** Notes per company: none, one, a few, more than any page asked for below, two of the same millisecond. */
const SIZES = [0, 1, 3, 30, 2];

let companies: { id: string; notes: number }[];
let foreign: { id: string };

async function company(ws: TestWorkspace, name: string) {
  const r = await ws.api('POST', '/v1/companies', { name });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.data as { id: string };
}

/** `n` notes on a company, up to three to a millisecond, so that ties on created_at are broken by id. */
async function addNotes(app: TestApp, workspaceId: string, companyId: string, n: number, tag: string) {
  await app.db.prisma.$executeRaw`
    INSERT INTO notes (id, workspace_id, company_id, content, created_by, created_at, updated_at)
    SELECT 'note_' || ${tag} || '_' || lpad(g::text, 3, '0'), ${workspaceId}, ${companyId},
      'Note ' || g || ' of ' || ${tag},
      CASE WHEN g % 2 = 0 THEN 'usr_writer' END,
      timestamptz '2025-03-01' + (g / 3) * interval '1 millisecond',
      timestamptz '2025-03-02' + g * interval '1 second'
    FROM generate_series(1, ${n}::int) g`;
}

test.beforeAll(async ({ app, ws, other }) => {
  companies = [];
  for (const [i, n] of SIZES.entries()) {
    const { id } = await company(ws, `Batched ${i}`);
    await addNotes(app, ws.id, id, n, `b${i}`);
    companies.push({ id, notes: n });
  }
  foreign = await company(other, 'Neighbour');
  await addNotes(app, other.id, foreign.id, 4, 'foreign');
  // A note row of the other workspace pointing at this workspace's company: whatever holds it,
  // only the caller's workspace's notes are read.
  await addNotes(app, other.id, companies[3].id, 2, 'stray');
});

async function ask(app: TestApp, key: string, query: string, variables?: Record<string, unknown>) {
  const r = await gql(app.base, key, query, variables);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

/** Company.notes of every company of the workspace (all five: a page of 5), from one list request. */
async function listed(app: TestApp, key: string, args: string) {
  const data = await ask(app, key, `{ companies(limit: 5) { nodes { id notes${args} { ${PAGE} } } } }`);
  return new Map<string, any>(data.companies.nodes.map((c: any) => [c.id, c.notes]));
}

/** The same page from companyNotes, one company at a time. */
async function single(app: TestApp, key: string, companyId: string, vars: Record<string, unknown>) {
  const data = await ask(
    app,
    key,
    `query ($id: ID!, $limit: Int, $sort: [NoteSort!], $cursor: String) {
      companyNotes(companyId: $id, limit: $limit, sort: $sort, cursor: $cursor) { ${PAGE} } }`,
    { id: companyId, ...vars },
  );
  return data.companyNotes;
}

const SORTS: [string, string[] | undefined][] = [
  ['default order', undefined],
  ['created_at_desc', ['created_at_desc']],
  ['created_at_asc', ['created_at_asc']],
];

describe('Company.notes under a list', () => {
  it.for(SORTS)('answers as companyNotes for each company (%s), at every page size', async ([, sort], { app, ws }) => {
    for (const limit of [1, 2, 3, 29, 30, 31]) {
      const args = sort ? `(limit: ${limit}, sort: [${sort.join(', ')}])` : `(limit: ${limit})`;
      const pages = await listed(app, ws.key, args);
      expect(pages.size).toBe(companies.length);
      for (const c of companies) {
        const expected = await single(app, ws.key, c.id, { limit, sort });
        expect(pages.get(c.id), `${c.notes} notes, limit ${limit}`).toEqual(expected);
        expect(expected.total).toBe(c.notes);
        expect(expected.nodes).toHaveLength(Math.min(limit, c.notes));
        expect(expected.has_more).toBe(c.notes > limit);
      }
    }
  });

  it.for(SORTS)(
    "the list's next_cursor pages on through Company.notes and companyNotes (%s)",
    async ([, sort], { app, ws }) => {
      const big = companies[3];
      const all = (await single(app, ws.key, big.id, { limit: 100, sort })).nodes.map((n: any) => n.id);
      expect(all).toHaveLength(30);
      const sortArg = sort ? `, sort: [${sort.join(', ')}]` : '';
      let page = (await listed(app, ws.key, `(limit: 7${sortArg})`)).get(big.id);
      const seen: string[] = page.nodes.map((n: any) => n.id);
      let viaCompany = true;
      while (page.next_cursor) {
        const cursor = page.next_cursor;
        // Alternately on the company's field and on the root field: both take the list's cursors.
        page = viaCompany
          ? (
              await ask(
                app,
                ws.key,
                `query ($id: ID!, $cursor: String, $sort: [NoteSort!]) {
                company(id: $id) { notes(limit: 7, cursor: $cursor, sort: $sort) { ${PAGE} } } }`,
                { id: big.id, cursor, sort },
              )
            ).company.notes
          : await single(app, ws.key, big.id, { limit: 7, cursor, sort });
        expect(page.total).toBe(30);
        seen.push(...page.nodes.map((n: any) => n.id));
        viaCompany = !viaCompany;
      }
      expect(seen).toEqual(all);
    },
  );

  it('pages of several sizes and orders in one request each answer as companyNotes', async ({ app, ws }) => {
    const data = await ask(
      app,
      ws.key,
      `{ companies(limit: 5) { nodes { id
        one: notes(limit: 1) { ${PAGE} }
        oldest: notes(limit: 3, sort: [created_at_asc]) { ${PAGE} }
        newest: notes(limit: 3, sort: [created_at_desc]) { ${PAGE} } } } }`,
    );
    for (const node of data.companies.nodes) {
      expect(node.one).toEqual(await single(app, ws.key, node.id, { limit: 1 }));
      expect(node.oldest).toEqual(await single(app, ws.key, node.id, { limit: 3, sort: ['created_at_asc'] }));
      expect(node.newest).toEqual(await single(app, ws.key, node.id, { limit: 3 }));
    }
  });

  it('reads the notes as Prisma does: the same Note objects, dates as dates', async ({ app, ws }) => {
    const ctx = { prisma: app.db.prisma, caller: { workspaceId: ws.id } } as unknown as Context;
    for (const [sort, dir] of [
      ['-created_at', 'desc'],
      ['created_at', 'asc'],
    ] as const) {
      const loader = firstNotesLoader(ctx, parseSort(sort, { default: '-created_at', fields: NOTE_SORT_FIELDS }), 100);
      for (const c of companies) {
        const read = await loader.load(c.id);
        const expected = await app.db.prisma.note.findMany({
          where: { companyId: c.id, workspaceId: ws.id },
          orderBy: [{ createdAt: dir }, { id: dir }],
        });
        expect(read).toStrictEqual(expected);
        for (const note of read) expect(note.createdAt).toBeInstanceOf(Date);
      }
    }
  });
});

describe('workspaces and permissions', () => {
  it("never shows another workspace's notes, in either workspace", async ({ app, ws, other }) => {
    const mine = await listed(app, ws.key, '(limit: 31)');
    for (const page of mine.values())
      for (const n of page.nodes) expect(n.id.startsWith('note_b'), JSON.stringify(n)).toBe(true);
    expect(mine.get(companies[3].id).total).toBe(30);
    const theirs = await listed(app, other.key, '(limit: 31)');
    expect([...theirs.keys()]).toEqual([foreign.id]);
    expect(theirs.get(foreign.id).nodes.map((n: any) => n.id)).toEqual([
      'note_foreign_004',
      'note_foreign_003',
      'note_foreign_002',
      'note_foreign_001',
    ]);
    expect(theirs.get(foreign.id).total).toBe(4);
  });

  it('a key that may read companies but not contacts gets the same notes as a full key', async ({ app, ws }) => {
    const reader = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    expect(await listed(app, reader.key, '(limit: 2)')).toEqual(await listed(app, ws.key, '(limit: 2)'));
  });

  it('a key without companies:read is refused the list, and sees no company (nor notes) through a deal', async ({
    app,
    ws,
  }) => {
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const deal = await ws.api('POST', '/v1/deals', {
      title: 'Batched deal',
      pipeline_id: pipeline.id,
      company_id: companies[3].id,
    });
    expect(deal.status, deal.text).toBe(201);
    const narrow = await ws.addKey({ scope: 'custom', permissions: ['deals:read', 'contacts:read'] });
    const list = await gql(app.base, narrow.key, '{ companies { nodes { id notes { total nodes { id } } } } }');
    expect(list.data).toBeNull();
    expect(list.errors?.map((e: any) => e.extensions?.code)).toEqual(['forbidden']);
    const viaDeal = await gql(
      app.base,
      narrow.key,
      '{ deals(limit: 10) { nodes { id company { id notes(limit: 2) { total nodes { id content } } } } } }',
    );
    const node = viaDeal.data.deals.nodes.find((d: any) => d.id === deal.body.data.id);
    expect(node).toEqual({ id: deal.body.data.id, company: null });
    expect(viaDeal.errors?.map((e: any) => e.extensions?.code)).toEqual(['forbidden']);
    expect(JSON.stringify(viaDeal)).not.toContain('note_b');
    const notes = await gql(app.base, narrow.key, `{ companyNotes(companyId: "${companies[3].id}") { total } }`);
    expect(notes.data).toBeNull();
    expect(notes.errors?.map((e: any) => e.extensions?.code)).toEqual(['forbidden']);
  });
});
