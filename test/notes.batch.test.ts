// Contact.notes and Company.notes under a list read the first page of every record at once (and
// their totals in one count): their answers must be those of contactNotes / companyNotes for each
// record, field for field, with cursors that page on, in both orders, within the caller's
// workspace, under the same permissions.
import { describe, expect } from 'vitest';
import { gql, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';
import { firstNotesLoader, type NoteOwner } from '../src/schema/note/notes.loader.ts';
import { parseSort } from '../src/schema/common/pagination.ts';
import type { Context } from '../src/schema/context.ts';

const NOTE = 'id contact_id company_id content created_by version created_at updated_at';
const PAGE = `nodes { ${NOTE} } total limit has_more next_cursor`;
const NOTE_SORT_FIELDS = { created_at: { field: 'createdAt', type: 'date' as const } };
/** Notes per record: none, one, a few, more than any page asked for below, two of the same millisecond. */
const SIZES = [0, 1, 3, 30, 2];

/** Per kind of record: its list, its root notes field, how one is made, and its notes' column. */
const OWNERS = {
  company: { list: 'companies', one: 'company', root: 'companyNotes', arg: 'companyId', column: 'company_id' },
  contact: { list: 'contacts', one: 'contact', root: 'contactNotes', arg: 'contactId', column: 'contact_id' },
} as const;

const records: Record<NoteOwner, { id: string; notes: number }[]> = { company: [], contact: [] };
let foreign: { id: string };

async function make(ws: TestWorkspace, owner: NoteOwner, name: string) {
  const r =
    owner === 'company'
      ? await ws.api('POST', '/v1/companies', { name })
      : await ws.api('POST', '/v1/contacts', { first_name: name, email: `${name.replace(/\W/g, '')}@notes.test` });
  if (r.status !== 201) throw new Error(r.text);
  return r.body.data as { id: string };
}

/** `n` notes on a record, up to three to a millisecond, so that ties on created_at are broken by id. */
async function addNotes(app: TestApp, workspaceId: string, owner: NoteOwner, id: string, n: number, tag: string) {
  await app.db.prisma.$executeRawUnsafe(
    `INSERT INTO notes (id, workspace_id, ${OWNERS[owner].column}, content, created_by, created_at, updated_at)
    SELECT 'note_' || $1 || '_' || lpad(g::text, 3, '0'), $2, $3, 'Note ' || g || ' of ' || $1,
      CASE WHEN g % 2 = 0 THEN 'usr_writer' END,
      timestamptz '2025-03-01' + (g / 3) * interval '1 millisecond',
      timestamptz '2025-03-02' + g * interval '1 second'
    FROM generate_series(1, $4::int) g`,
    tag,
    workspaceId,
    id,
    n,
  );
}

test.beforeAll(async ({ app, ws, other }) => {
  for (const owner of ['company', 'contact'] as const)
    for (const [i, n] of SIZES.entries()) {
      const { id } = await make(ws, owner, `Batched ${owner} ${i}`);
      await addNotes(app, ws.id, owner, id, n, `b${owner}${i}`);
      records[owner].push({ id, notes: n });
    }
  foreign = await make(other, 'company', 'Neighbour');
  await addNotes(app, other.id, 'company', foreign.id, 4, 'foreign');
  // Note rows of the other workspace pointing at this workspace's records: whatever holds them,
  // only the caller's workspace's notes are read.
  await addNotes(app, other.id, 'company', records.company[3].id, 2, 'straycompany');
  await addNotes(app, other.id, 'contact', records.contact[3].id, 2, 'straycontact');
});

async function ask(app: TestApp, key: string, query: string, variables?: Record<string, unknown>) {
  const r = await gql(app.base, key, query, variables);
  expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
  return r.data;
}

/** The notes field of every record of the workspace (all five: a page of 5), from one list request. */
async function listed(app: TestApp, key: string, args: string, owner: NoteOwner = 'company') {
  const { list } = OWNERS[owner];
  const data = await ask(app, key, `{ ${list}(limit: 5) { nodes { id notes${args} { ${PAGE} } } } }`);
  return new Map<string, any>(data[list].nodes.map((c: any) => [c.id, c.notes]));
}

/** The same page from the root field, one record at a time. */
async function single(app: TestApp, key: string, id: string, vars: Record<string, unknown>, owner: NoteOwner) {
  const { root, arg } = OWNERS[owner];
  const data = await ask(
    app,
    key,
    `query ($id: ID!, $limit: Int, $sort: [NoteSort!], $cursor: String) {
      ${root}(${arg}: $id, limit: $limit, sort: $sort, cursor: $cursor) { ${PAGE} } }`,
    { id, ...vars },
  );
  return data[root];
}

const SORTS: [string, string[] | undefined][] = [
  ['default order', undefined],
  ['created_at_desc', ['created_at_desc']],
  ['created_at_asc', ['created_at_asc']],
];

describe.for(['company', 'contact'] as const)('%s notes under a list', (owner) => {
  const { list, one, root } = OWNERS[owner];

  it.for(SORTS)(`answers as ${root} for each record (%s), at every page size`, async ([, sort], { app, ws }) => {
    for (const limit of [1, 2, 3, 29, 30, 31]) {
      const args = sort ? `(limit: ${limit}, sort: [${sort.join(', ')}])` : `(limit: ${limit})`;
      const pages = await listed(app, ws.key, args, owner);
      expect(pages.size).toBe(records[owner].length);
      for (const r of records[owner]) {
        const expected = await single(app, ws.key, r.id, { limit, sort }, owner);
        expect(pages.get(r.id), `${r.notes} notes, limit ${limit}`).toEqual(expected);
        expect(expected.total).toBe(r.notes);
        expect(expected.nodes).toHaveLength(Math.min(limit, r.notes));
        expect(expected.has_more).toBe(r.notes > limit);
      }
    }
  });

  it.for(SORTS)(`the list's next_cursor pages on through the field and ${root} (%s)`, async ([, sort], { app, ws }) => {
    const big = records[owner][3];
    const all = (await single(app, ws.key, big.id, { limit: 100, sort }, owner)).nodes.map((n: any) => n.id);
    expect(all).toHaveLength(30);
    const sortArg = sort ? `, sort: [${sort.join(', ')}]` : '';
    let page = (await listed(app, ws.key, `(limit: 7${sortArg})`, owner)).get(big.id);
    const seen: string[] = page.nodes.map((n: any) => n.id);
    let viaRecord = true;
    while (page.next_cursor) {
      const cursor = page.next_cursor;
      // Alternately on the record's field and on the root field: both take the list's cursors.
      page = viaRecord
        ? (
            await ask(
              app,
              ws.key,
              `query ($id: ID!, $cursor: String, $sort: [NoteSort!]) {
                ${one}(id: $id) { notes(limit: 7, cursor: $cursor, sort: $sort) { ${PAGE} } } }`,
              { id: big.id, cursor, sort },
            )
          )[one].notes
        : await single(app, ws.key, big.id, { limit: 7, cursor, sort }, owner);
      expect(page.total).toBe(30);
      seen.push(...page.nodes.map((n: any) => n.id));
      viaRecord = !viaRecord;
    }
    expect(seen).toEqual(all);
  });

  it(`pages of several sizes and orders in one request each answer as ${root}`, async ({ app, ws }) => {
    const data = await ask(
      app,
      ws.key,
      `{ ${list}(limit: 5) { nodes { id
        one: notes(limit: 1) { ${PAGE} }
        oldest: notes(limit: 3, sort: [created_at_asc]) { ${PAGE} }
        newest: notes(limit: 3, sort: [created_at_desc]) { ${PAGE} } } } }`,
    );
    for (const node of data[list].nodes) {
      expect(node.one).toEqual(await single(app, ws.key, node.id, { limit: 1 }, owner));
      expect(node.oldest).toEqual(await single(app, ws.key, node.id, { limit: 3, sort: ['created_at_asc'] }, owner));
      expect(node.newest).toEqual(await single(app, ws.key, node.id, { limit: 3 }, owner));
    }
  });

  it('reads the notes as Prisma does: the same Note objects, dates as dates', async ({ app, ws }) => {
    const ctx = { prisma: app.db.prisma, caller: { workspaceId: ws.id } } as unknown as Context;
    for (const [sort, dir] of [
      ['-created_at', 'desc'],
      ['created_at', 'asc'],
    ] as const) {
      const keys = parseSort(sort, { default: '-created_at', fields: NOTE_SORT_FIELDS });
      const loader = firstNotesLoader(ctx, owner, keys, 100);
      for (const r of records[owner]) {
        const read = await loader.load(r.id);
        const expected = await app.db.prisma.note.findMany({
          where: { [owner === 'company' ? 'companyId' : 'contactId']: r.id, workspaceId: ws.id },
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
      for (const n of page.nodes) expect(n.id.startsWith('note_bcompany'), JSON.stringify(n)).toBe(true);
    expect(mine.get(records.company[3].id).total).toBe(30);
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

  it("a contact's notes follow contacts:read, and never show another workspace's", async ({ app, ws }) => {
    const reader = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const mine = await listed(app, reader.key, '(limit: 31)', 'contact');
    expect(mine).toEqual(await listed(app, ws.key, '(limit: 31)', 'contact'));
    for (const page of mine.values())
      for (const n of page.nodes) expect(n.id.startsWith('note_bcontact'), JSON.stringify(n)).toBe(true);
    expect(mine.get(records.contact[3].id).total).toBe(30);
  });

  it('a key without companies:read is refused the list, and sees no company (nor notes) through a deal', async ({
    app,
    ws,
  }) => {
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const deal = await ws.api('POST', '/v1/deals', {
      title: 'Batched deal',
      pipeline_id: pipeline.id,
      company_id: records.company[3].id,
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
    const notes = await gql(app.base, narrow.key, `{ companyNotes(companyId: "${records.company[3].id}") { total } }`);
    expect(notes.data).toBeNull();
    expect(notes.errors?.map((e: any) => e.extensions?.code)).toEqual(['forbidden']);
  });
});
