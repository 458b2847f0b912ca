// Writes that never clobber, for companies: the ETag is the version, PUT/DELETE honour If-Match
// (412 with the current version, nothing written, no event), GET honours If-None-Match (304),
// updateCompany/deleteCompany/mergeCompanies take expected_version.
import { describe, expect } from 'vitest';
import { gql, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

let n = 0;
const uniqueDomain = () => `ver-${Date.now().toString(36)}-${++n}.example`;

async function company(ws: TestWorkspace, extra: Record<string, unknown> = {}) {
  const r = await ws.api('POST', '/v1/companies', { name: 'Versioned Co', domain: uniqueDomain(), ...extra });
  expect(r.status).toBe(201);
  return r.body.data as { id: string; version: number; name: string };
}

describe('company versions and ETags', () => {
  it('start at 1 and rise by one on each write; the ETag is the body version', async ({ ws }) => {
    const created = await ws.api('POST', '/v1/companies', { name: 'Etag Co', domain: uniqueDomain() });
    expect(created.status).toBe(201);
    expect(created.body.data.version).toBe(1);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.data.id;
    const updated = await ws.api('PUT', `/v1/companies/${id}`, { industry: 'Aerospace' });
    expect(updated.body.data.version).toBe(2);
    expect(updated.headers.get('etag')).toBe('"2"');
    const read = await ws.api('GET', `/v1/companies/${id}`);
    expect(read.body.data.version).toBe(2);
    expect(read.headers.get('etag')).toBe('"2"');
    const picked = await ws.api('GET', `/v1/companies/${id}?fields=name`);
    expect(picked.body.data).toEqual({ id, name: 'Etag Co' });
    expect(picked.headers.get('etag')).toBe('"2"');
  });
});

describe('company If-Match', () => {
  it('a stale version is a 412 with current_version; nothing is written and no event recorded', async ({ app, ws }) => {
    const c = await company(ws);
    await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'A' });
    const eventsBefore = await app.db.prisma.event.count({ where: { entityId: c.id } });
    const r = await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'B' }, { 'if-match': '"1"' });
    expect(r.status).toBe(412);
    expect(r.body.success).toBe(false);
    expect(r.body.error.code).toBe('precondition_failed');
    expect(r.body.error.details).toEqual({ current_version: 2 });
    const now = await ws.api('GET', `/v1/companies/${c.id}`);
    expect(now.body.data).toMatchObject({ industry: 'A', version: 2 });
    expect(await app.db.prisma.event.count({ where: { entityId: c.id } })).toBe(eventsBefore);
  });

  it('the current version, a weak tag of it, and * are accepted; * still needs the company', async ({ ws }) => {
    const c = await company(ws);
    const right = await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'A' }, { 'if-match': '"1"' });
    expect(right.status).toBe(200);
    expect(right.headers.get('etag')).toBe('"2"');
    expect(right.body.data).toMatchObject({ industry: 'A', version: 2 });
    const weak = await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'B' }, { 'if-match': 'W/"2"' });
    expect(weak.status).toBe(200);
    const any = await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'C' }, { 'if-match': '*' });
    expect(any.status).toBe(200);
    expect(any.body.data.version).toBe(4);
    const gone = await ws.api('PUT', '/v1/companies/com_missing', { industry: 'X' }, { 'if-match': '*' });
    expect(gone.status).toBe(404);
    // A version for a company that is not there is a 404 too, not a 412.
    const missing = await ws.api('PUT', '/v1/companies/com_missing', { industry: 'X' }, { 'if-match': '"1"' });
    expect(missing.status).toBe(404);
  });

  it('a malformed If-Match is a 400 naming the header and writes nothing', async ({ ws }) => {
    const c = await company(ws);
    for (const value of ['1', '"abc"', '"1", "2"']) {
      const r = await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'X' }, { 'if-match': value });
      expect(r.status, value).toBe(400);
      expect(r.body.error.details['If-Match'], value).toBeDefined();
    }
    expect((await ws.api('GET', `/v1/companies/${c.id}`)).body.data.version).toBe(1);
  });

  it('two writers holding the same version: exactly one wins, the other gets 412', async ({ ws }) => {
    const c = await company(ws);
    const [a, b] = await Promise.all([
      ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'Writer A' }, { 'if-match': '"1"' }),
      ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'Writer B' }, { 'if-match': '"1"' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(loser.body.error.details.current_version).toBe(2);
    const now = await ws.api('GET', `/v1/companies/${c.id}`);
    expect(now.body.data).toMatchObject({ version: 2, industry: winner.body.data.industry });
  });

  it('DELETE with a stale version is a 412 and deletes nothing; with the right one it deletes', async ({ app, ws }) => {
    const c = await company(ws);
    await ws.api('PUT', `/v1/companies/${c.id}`, { industry: 'A' });
    const eventsBefore = await app.db.prisma.event.count({ where: { entityId: c.id } });
    const stale = await ws.api('DELETE', `/v1/companies/${c.id}`, undefined, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details).toEqual({ current_version: 2 });
    expect((await ws.api('GET', `/v1/companies/${c.id}`)).status).toBe(200);
    expect(await app.db.prisma.event.count({ where: { entityId: c.id } })).toBe(eventsBefore);
    const right = await ws.api('DELETE', `/v1/companies/${c.id}`, undefined, { 'if-match': '"2"' });
    expect(right.status).toBe(200);
    expect((await ws.api('GET', `/v1/companies/${c.id}`)).status).toBe(404);
  });
});

describe('company If-None-Match', () => {
  it('answers 304 without a body while the version matches, 200 after a write', async ({ ws }) => {
    const c = await company(ws);
    const path = `/v1/companies/${c.id}`;
    const same = await ws.api('GET', path, undefined, { 'if-none-match': '"1"' });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe('"1"');
    expect((await ws.api('GET', path, undefined, { 'if-none-match': '"7", W/"1"' })).status).toBe(304);
    expect((await ws.api('GET', path, undefined, { 'if-none-match': '*' })).status).toBe(304);
    await ws.api('PUT', path, { industry: 'Changed' });
    const changed = await ws.api('GET', path, undefined, { 'if-none-match': '"1"' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.version).toBe(2);
    expect(changed.headers.get('etag')).toBe('"2"');
  });
});

describe('company GraphQL expected_version', () => {
  it('refuses a stale version with precondition_failed (412) and current_version; the right one applies', async ({
    app,
    ws,
  }) => {
    const c = await company(ws);
    const update =
      'mutation($id: ID!, $v: Int) { ' +
      'updateCompany(id: $id, input: { industry: "G" }, expected_version: $v) { version industry } }';
    const stale = await gql(app.base, ws.key, update, { id: c.id, v: 5 });
    expect(stale.data).toBeNull();
    expect(stale.errors?.[0].extensions).toMatchObject({
      code: 'precondition_failed',
      status: 412,
      details: { current_version: 1 },
    });
    const ok = await gql(app.base, ws.key, update, { id: c.id, v: 1 });
    expect(ok.data.updateCompany).toEqual({ version: 2, industry: 'G' });
    const del = 'mutation($id: ID!, $v: Int) { deleteCompany(id: $id, expected_version: $v) { deleted } }';
    const staleDelete = await gql(app.base, ws.key, del, { id: c.id, v: 1 });
    expect(staleDelete.errors?.[0].extensions).toMatchObject({
      code: 'precondition_failed',
      details: { current_version: 2 },
    });
    expect((await ws.api('GET', `/v1/companies/${c.id}`)).status).toBe(200);
    const deleted = await gql(app.base, ws.key, del, { id: c.id, v: 2 });
    expect(deleted.data.deleteCompany.deleted).toBe(true);
  });

  it("mergeCompanies compares the primary's version; a stale one merges nothing", async ({ app, ws }) => {
    const primary = await company(ws, { name: 'Primary' });
    const secondary = await company(ws, { name: 'Secondary' });
    await ws.api('PUT', `/v1/companies/${primary.id}`, { industry: 'Moved on' });
    const merge =
      'mutation($p: String!, $s: String!, $v: Int) { ' +
      'mergeCompanies(input: { primary_id: $p, secondary_id: $s }, expected_version: $v) { id version } }';
    const stale = await gql(app.base, ws.key, merge, { p: primary.id, s: secondary.id, v: 1 });
    expect(stale.errors?.[0].extensions).toMatchObject({
      code: 'precondition_failed',
      details: { current_version: 2 },
    });
    expect((await ws.api('GET', `/v1/companies/${secondary.id}`)).status).toBe(200);
    const ok = await gql(app.base, ws.key, merge, { p: primary.id, s: secondary.id, v: 2 });
    expect(ok.data.mergeCompanies).toEqual({ id: primary.id, version: 3 });
    expect((await ws.api('GET', `/v1/companies/${secondary.id}`)).status).toBe(404);
  });
});
