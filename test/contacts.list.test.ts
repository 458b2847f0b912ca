// Listing, filtering, sorting, cursors and search.
import { describe, expect } from 'vitest';
import { uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

let userId: string;

test.beforeAll(async ({ ws }) => {
  userId = (await ws.addUser('Owner')).id;
  await ws.addCustomField('industry', 'text');
  const rows = Array.from({ length: 30 }, (_, i) => ({
    first_name: `Person${String(i).padStart(2, '0')}`,
    last_name: i % 4 === 0 ? null : `Last${i % 5}`,
    email: uniqueEmail(`p${i}`),
    company: i % 2 ? 'Odd Corp' : i % 3 ? null : 'Even Corp',
    status: i % 3 === 0 ? 'customer' : 'lead',
    source: i % 2 ? 'referral' : 'website',
    tags: i % 3 === 0 ? ['vip', 'x'] : ['x'],
    assigned_to: i < 5 ? userId : undefined,
  }));
  const r = await ws.api('POST', '/v1/contacts/bulk', { contacts: rows });
  expect(r.body.data.created).toBe(30);
});

const all = async (ws: TestWorkspace, query: string) => {
  const ids: string[] = [];
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const r = await ws.api(
      'GET',
      `/v1/contacts?${query}&limit=7${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
    );
    expect(r.status).toBe(200);
    for (const c of r.body.data) {
      expect(ids).not.toContain(c.id);
      ids.push(c.id);
      rows.push(c);
    }
    cursor = r.body.meta.next_cursor;
    expect(r.body.meta.has_more).toBe(cursor !== null);
  } while (cursor);
  return rows;
};

describe('list', () => {
  it('pages of 25 by default; a cursor walk sees every row once', async ({ ws }) => {
    const first = await ws.api('GET', '/v1/contacts');
    expect(first.body.data).toHaveLength(25);
    expect(first.body.meta).toMatchObject({ limit: 25, total: 30, has_more: true });
    expect(await all(ws, '')).toHaveLength(30);
  });

  it('cursors stay stable while rows are inserted', async ({ ws }) => {
    const page1 = await ws.api('GET', '/v1/contacts?limit=10&sort=created_at');
    const extra = (await ws.api('POST', '/v1/contacts', { first_name: 'Late', email: uniqueEmail('late') })).body.data;
    const page2 = await ws.api('GET', `/v1/contacts?limit=10&sort=created_at&cursor=${page1.body.meta.next_cursor}`);
    const seen = [...page1.body.data, ...page2.body.data].map((c: { id: string }) => c.id);
    expect(new Set(seen).size).toBe(20);
    await ws.api('DELETE', `/v1/contacts/${extra.id}`);
  });

  it.for<[string, (a: any, b: any) => number]>([
    ['first_name', (a: any, b: any) => a.first_name.localeCompare(b.first_name)],
    ['-first_name', (a: any, b: any) => b.first_name.localeCompare(a.first_name)],
  ])('sorts by %s across pages', async ([sort, cmp], { ws }) => {
    const rows = await all(ws, `sort=${sort}`);
    expect(rows.map((r) => r.id)).toEqual([...rows].sort(cmp).map((r) => r.id));
  });

  it('sorts by a nullable field with nulls last, across pages, both directions', async ({ ws }) => {
    for (const sort of ['company', '-company', 'last_name,-first_name']) {
      const rows = await all(ws, `sort=${sort}`);
      expect(rows).toHaveLength(30);
      const field = sort.replace(/^-/, '').split(',')[0];
      const values = rows.map((r) => r[field]);
      const firstNull = values.indexOf(null);
      if (firstNull >= 0) expect(values.slice(firstNull).every((v) => v === null)).toBe(true);
    }
  });

  it('filters by status, source, tags, company (partial), assigned_to and dates', async ({ ws }) => {
    expect((await all(ws, 'status=customer')).every((c) => c.status === 'customer')).toBe(true);
    expect(await all(ws, 'status=customer')).toHaveLength(10);
    expect(await all(ws, 'source=referral')).toHaveLength(15);
    expect(await all(ws, 'tags=vip')).toHaveLength(10);
    expect(await all(ws, 'tags=vip,x')).toHaveLength(10);
    expect(await all(ws, 'company=odd')).toHaveLength(15);
    expect(await all(ws, 'company=CORP')).toHaveLength(20);
    expect(await all(ws, `assigned_to=${userId}`)).toHaveLength(5);
    expect(await all(ws, 'created_after=2999-01-01')).toHaveLength(0);
    expect(await all(ws, 'created_before=2000-01-01T00:00:00Z')).toHaveLength(0);
    expect(await all(ws, `updated_after=${new Date(Date.now() - 3_600_000).toISOString()}`)).toHaveLength(30);
  });

  it('fields= keeps only the named keys and id', async ({ ws }) => {
    const r = await ws.api('GET', '/v1/contacts?fields=first_name,email&limit=3');
    for (const c of r.body.data) expect(Object.keys(c).sort()).toEqual(['email', 'first_name', 'id']);
  });
});

describe('search', () => {
  it('finds by name, email, company and custom field; best match first', async ({ ws }) => {
    const grace = (
      await ws.api('POST', '/v1/contacts', {
        first_name: 'Grace',
        last_name: 'Hopper',
        email: uniqueEmail('grace'),
        company: 'Navy Labs',
        custom_fields: { industry: 'defense' },
      })
    ).body.data;
    await ws.api('POST', '/v1/contacts', { first_name: 'Navy', email: uniqueEmail('navy') });
    const ids = async (q: string) =>
      (await ws.api('GET', `/v1/contacts/search?q=${encodeURIComponent(q)}`)).body.data.map(
        (c: { id: string }) => c.id,
      );
    expect(await ids('grace hopper')).toEqual([grace.id]);
    expect(await ids('hop')).toContain(grace.id);
    expect((await ids(grace.email))[0]).toBe(grace.id);
    expect(await ids('navy labs')).toEqual([grace.id]);
    expect(await ids('defense')).toEqual([grace.id]);
    expect(await ids("o'brien & (x) | !y:*")).toEqual([]);
  });

  it('sees a write at once and pages with cursors', async ({ ws }) => {
    const r = await ws.api('POST', '/v1/contacts', { first_name: 'Zebulon', email: uniqueEmail('zeb') });
    const s = await ws.api('GET', '/v1/contacts/search?q=zebulon');
    expect(s.body.data.map((c: { id: string }) => c.id)).toEqual([r.body.data.id]);
    const p1 = await ws.api('GET', '/v1/contacts/search?q=person&limit=20');
    expect(p1.body.meta).toMatchObject({ total: 30, has_more: true });
    const p2 = await ws.api('GET', `/v1/contacts/search?q=person&limit=20&cursor=${p1.body.meta.next_cursor}`);
    expect(p2.body.data).toHaveLength(10);
    expect(new Set([...p1.body.data, ...p2.body.data].map((c: { id: string }) => c.id)).size).toBe(30);
  });

  it('follows a change of a searched field, and keeps the vector through other changes', async ({ ws }) => {
    const word = `quill${Date.now().toString(36)}`;
    const c = (await ws.api('POST', '/v1/contacts', { first_name: word, email: uniqueEmail('q') })).body.data;
    const ids = async (q: string) =>
      (await ws.api('GET', `/v1/contacts/search?q=${encodeURIComponent(q)}`)).body.data.map(
        (x: { id: string }) => x.id,
      );
    expect(await ids(word)).toEqual([c.id]);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Engineer', status: 'customer' })).status).toBe(
      200,
    );
    expect(await ids(word)).toEqual([c.id]);
    const renamed = `re${word}`;
    // Through a batch too: its UPDATE statement is a set-based one of its own.
    const batch = await ws.api('POST', '/v1/contacts/batch', {
      operations: [{ op: 'update', id: c.id, data: { first_name: renamed, last_name: 'Plume' } }],
    });
    expect(batch.status).toBe(200);
    expect(await ids(`${renamed} plume`)).toEqual([c.id]);
    expect(await ids(word)).toEqual([]);
  });

  it('400 without q; no hits from another workspace', async ({ app, ws }) => {
    expect((await ws.api('GET', '/v1/contacts/search')).status).toBe(400);
    const other = await app.workspace();
    expect((await other.api('GET', '/v1/contacts/search?q=person')).body.data).toEqual([]);
  });
});
