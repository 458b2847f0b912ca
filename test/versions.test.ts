// Writes that never clobber: every record has a version raised by each write, REST answers carry it
// as the ETag, PUT/DELETE/stage moves honour If-Match (412 with the current version, nothing
// written), GET honours If-None-Match (304), GraphQL mutations take expected_version.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

const newContact = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Ver',
  email: uniqueEmail('ver'),
  ...extra,
});

async function contact(ws: TestWorkspace, extra: Record<string, unknown> = {}) {
  const r = await ws.api('POST', '/v1/contacts', newContact(extra));
  expect(r.status).toBe(201);
  return r.body.data as { id: string; version: number; first_name: string };
}

describe('versions and ETags', () => {
  it('start at 1 and rise by one on each write; the ETag is the body version', async ({ ws }) => {
    const created = await ws.api('POST', '/v1/contacts', newContact());
    expect(created.status).toBe(201);
    expect(created.body.data.version).toBe(1);
    expect(created.headers.get('etag')).toBe('"1"');
    const id = created.body.data.id;

    const first = await ws.api('PUT', `/v1/contacts/${id}`, { job_title: 'Engineer' });
    expect(first.body.data.version).toBe(2);
    expect(first.headers.get('etag')).toBe('"2"');
    const second = await ws.api('PUT', `/v1/contacts/${id}`, { job_title: 'Lead' });
    expect(second.body.data.version).toBe(3);

    const read = await ws.api('GET', `/v1/contacts/${id}`);
    expect(read.body.data.version).toBe(3);
    expect(read.headers.get('etag')).toBe('"3"');
    // ?fields= leaves version out of the body, not the ETag out of the headers.
    const picked = await ws.api('GET', `/v1/contacts/${id}?fields=first_name`);
    expect(picked.body.data).toEqual({ id, first_name: 'Ver' });
    expect(picked.headers.get('etag')).toBe('"3"');
    // Lists carry versions in the records, no ETag.
    const list = await ws.api('GET', '/v1/contacts?limit=1');
    expect(list.headers.get('etag')).toBeNull();
    expect(typeof list.body.data[0].version).toBe('number');
  });

  it('GraphQL answers the same versions', async ({ app, ws }) => {
    const c = await contact(ws);
    const r = await gql(
      app.base,
      ws.key,
      'mutation($id: ID!) { updateContact(id: $id, input: { last_name: "G" }) { id version } }',
      { id: c.id },
    );
    expect(r.data.updateContact.version).toBe(2);
    const read = await gql(app.base, ws.key, 'query($id: ID!) { contact(id: $id) { version } }', { id: c.id });
    expect(read.data.contact.version).toBe(2);
  });

  it('deals, tasks, pipelines, stages, webhooks and users carry ETags too', async ({ app, ws }) => {
    const pipeline = await ws.api('POST', '/v1/pipelines', { name: 'Versioned' });
    expect(pipeline.headers.get('etag')).toBe('"1"');
    const p = pipeline.body.data;
    expect(p.stages[0].version).toBe(1);
    const deal = await ws.api('POST', '/v1/deals', { title: 'D', pipeline_id: p.id });
    expect(deal.headers.get('etag')).toBe('"1"');
    const moved = await ws.api('PUT', `/v1/deals/${deal.body.data.id}/stage`, { stage_id: p.stages[1].id });
    expect(moved.status).toBe(200);
    expect(moved.headers.get('etag')).toBe('"2"');
    const task = await ws.api('POST', '/v1/tasks', { title: 'T' });
    const done = await ws.api('PUT', `/v1/tasks/${task.body.data.id}/complete`, {});
    expect(done.body.data.version).toBe(2);
    expect(done.headers.get('etag')).toBe('"2"');
    const stage = await ws.api('PUT', `/v1/pipelines/${p.id}/stages/${p.stages[0].id}`, { name: 'First' });
    expect(stage.headers.get('etag')).toBe(`"${stage.body.data.version}"`);
    const user = await ws.addUser('Versioned User');
    const got = await ws.api('GET', `/v1/users/${user.id}`);
    expect(got.headers.get('etag')).toBe(`"${got.body.data.version}"`);
    const hook = await ws.api('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/versions',
      events: ['contact.created'],
    });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.headers.get('etag')).toBe('"1"');
    const path = `/v1/webhooks/${hook.body.data.id}`;
    expect((await ws.api('PUT', path, { name: 'Stale' }, { 'if-match': '"2"' })).status).toBe(412);
    const renamed = await ws.api('PUT', path, { name: 'Fresh' }, { 'if-match': '"1"' });
    expect(renamed.status).toBe(200);
    expect(renamed.headers.get('etag')).toBe('"2"');
    const stale = await ws.api('DELETE', path, undefined, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details).toEqual({ current_version: 2 });
    expect((await ws.api('DELETE', path, undefined, { 'if-match': '"2"' })).status).toBe(200);
    // GraphQL reads the same version.
    const u = await gql(app.base, ws.key, 'query($id: ID!) { user(id: $id) { version } }', { id: user.id });
    expect(u.data.user.version).toBe(got.body.data.version);
  });
});

describe('If-Match', () => {
  it('a stale version is a 412 with current_version; nothing is written and no event recorded', async ({ app, ws }) => {
    const c = await contact(ws);
    await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'A' });
    const eventsBefore = await app.db.prisma.event.count({ where: { entityId: c.id } });
    const r = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'B' }, { 'if-match': '"1"' });
    expect(r.status).toBe(412);
    expect(r.body.success).toBe(false);
    expect(r.body.error.code).toBe('precondition_failed');
    expect(r.body.error.details).toEqual({ current_version: 2 });
    const now = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(now.body.data).toMatchObject({ job_title: 'A', version: 2 });
    expect(await app.db.prisma.event.count({ where: { entityId: c.id } })).toBe(eventsBefore);
  });

  it('the current version, *, and a weak tag of it are accepted', async ({ ws }) => {
    const c = await contact(ws);
    const right = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'A' }, { 'if-match': '"1"' });
    expect(right.status).toBe(200);
    expect(right.headers.get('etag')).toBe('"2"');
    const weak = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'B' }, { 'if-match': 'W/"2"' });
    expect(weak.status).toBe(200);
    const any = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'C' }, { 'if-match': '*' });
    expect(any.status).toBe(200);
    expect(any.body.data.version).toBe(4);
    // * still needs the record to exist.
    const gone = await ws.api('PUT', '/v1/contacts/con_missing', { job_title: 'X' }, { 'if-match': '*' });
    expect(gone.status).toBe(404);
  });

  it('a malformed If-Match is a 400 naming the header', async ({ ws }) => {
    const c = await contact(ws);
    for (const value of ['1', '"abc"', '"1", "2"', 'W/1', '"0"']) {
      const r = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'X' }, { 'if-match': value });
      expect(r.status, value).toBe(400);
      expect(r.body.error.details['If-Match'], value).toBeDefined();
    }
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).body.data.version).toBe(1);
  });

  it('without If-Match writes apply as before (no 428)', async ({ ws }) => {
    const c = await contact(ws);
    const r = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'X' });
    expect(r.status).toBe(200);
  });

  it('two writers holding the same version: exactly one wins, the other gets 412', async ({ ws }) => {
    const c = await contact(ws);
    const [a, b] = await Promise.all([
      ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Writer A' }, { 'if-match': '"1"' }),
      ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Writer B' }, { 'if-match': '"1"' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 412]);
    const winner = a.status === 200 ? a : b;
    const loser = a.status === 200 ? b : a;
    expect(loser.body.error.details.current_version).toBe(2);
    const now = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(now.body.data).toMatchObject({ version: 2, job_title: winner.body.data.job_title });
  });

  it('concurrent deal stage moves and task updates race the same way', async ({ ws }) => {
    const p = (await ws.api('POST', '/v1/pipelines', { name: 'Race' })).body.data;
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Race', pipeline_id: p.id })).body.data;
    const moves = await Promise.all(
      [1, 2].map((i) =>
        ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: p.stages[i].id }, { 'if-match': '"1"' }),
      ),
    );
    expect(moves.map((m) => m.status).sort()).toEqual([200, 412]);
    const task = (await ws.api('POST', '/v1/tasks', { title: 'Race' })).body.data;
    const updates = await Promise.all(
      ['A', 'B'].map((t) => ws.api('PUT', `/v1/tasks/${task.id}`, { title: t }, { 'if-match': '"1"' })),
    );
    expect(updates.map((u) => u.status).sort()).toEqual([200, 412]);
  });

  it('DELETE with a stale version is a 412 and deletes nothing; with the right one it deletes', async ({ ws }) => {
    const c = await contact(ws);
    await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'A' });
    const stale = await ws.api('DELETE', `/v1/contacts/${c.id}`, undefined, { 'if-match': '"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body.error.details).toEqual({ current_version: 2 });
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).status).toBe(200);
    const right = await ws.api('DELETE', `/v1/contacts/${c.id}`, undefined, { 'if-match': '"2"' });
    expect(right.status).toBe(200);
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).status).toBe(404);
  });

  it('deal updates and deletes, stage moves, task completion, pipelines, stages, webhooks and users honour it', async ({
    ws,
  }) => {
    const p = (await ws.api('POST', '/v1/pipelines', { name: 'Guarded' })).body.data;
    const deal = (await ws.api('POST', '/v1/deals', { title: 'G', pipeline_id: p.id })).body.data;
    const stale = { 'if-match': '"9"' };
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { title: 'X' }, stale)).status).toBe(412);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: p.stages[1].id }, stale)).status).toBe(412);
    expect((await ws.api('DELETE', `/v1/deals/${deal.id}`, undefined, stale)).status).toBe(412);
    const task = (await ws.api('POST', '/v1/tasks', { title: 'G' })).body.data;
    expect((await ws.api('PUT', `/v1/tasks/${task.id}/complete`, {}, stale)).status).toBe(412);
    expect((await ws.api('PUT', `/v1/tasks/${task.id}`, { title: 'X' }, stale)).status).toBe(412);
    expect((await ws.api('DELETE', `/v1/tasks/${task.id}`, undefined, stale)).status).toBe(412);
    expect((await ws.api('GET', `/v1/tasks/${task.id}`)).body.data).toMatchObject({ status: 'pending', version: 1 });
    expect((await ws.api('PUT', `/v1/pipelines/${p.id}`, { name: 'X' }, stale)).status).toBe(412);
    const stagePath = `/v1/pipelines/${p.id}/stages/${p.stages[0].id}`;
    expect((await ws.api('PUT', stagePath, { name: 'X' }, stale)).status).toBe(412);
    expect((await ws.api('PUT', stagePath, { name: 'X' }, { 'if-match': '"1"' })).status).toBe(200);
    const user = await ws.addUser('Guarded User');
    const prefs = `/v1/users/${user.id}/notification-preferences`;
    expect((await ws.api('PUT', prefs, { email: false }, stale)).status).toBe(412);
    const version = (await ws.api('GET', `/v1/users/${user.id}`)).body.data.version;
    const ok = await ws.api('PUT', prefs, { email: false }, { 'if-match': `"${version}"` });
    expect(ok.status).toBe(200);
    expect(ok.body.data.version).toBe(version + 1);
    const moved = await ws.api(
      'PUT',
      `/v1/deals/${deal.id}/stage`,
      { stage_id: p.stages[1].id },
      { 'if-match': '"1"' },
    );
    expect(moved.status).toBe(200);
    expect(moved.body.data.version).toBe(2);
  });

  it('an idempotent replay keeps the ETag; a 412 is not stored', async ({ ws }) => {
    const c = await contact(ws);
    const key = { 'idempotency-key': `ver-${c.id}` };
    const first = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Once' }, key);
    const replay = await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Once' }, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('etag')).toBe(first.headers.get('etag'));
    const staleKey = { 'idempotency-key': `ver-stale-${c.id}`, 'if-match': '"1"' };
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Late' }, staleKey)).status).toBe(412);
    const retried = await ws.api(
      'PUT',
      `/v1/contacts/${c.id}`,
      { job_title: 'Late' },
      { ...staleKey, 'if-match': '"2"' },
    );
    expect(retried.status).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });
});

describe('If-None-Match', () => {
  it('answers 304 without a body while the version matches, 200 after a write', async ({ ws }) => {
    const c = await contact(ws);
    const path = `/v1/contacts/${c.id}`;
    const same = await ws.api('GET', path, undefined, { 'if-none-match': '"1"' });
    expect(same.status).toBe(304);
    expect(same.text).toBe('');
    expect(same.headers.get('etag')).toBe('"1"');
    expect((await ws.api('GET', path, undefined, { 'if-none-match': 'W/"1"' })).status).toBe(304);
    expect((await ws.api('GET', path, undefined, { 'if-none-match': '"7", "1"' })).status).toBe(304);
    expect((await ws.api('GET', path, undefined, { 'if-none-match': '*' })).status).toBe(304);
    await ws.api('PUT', path, { job_title: 'Changed' });
    const changed = await ws.api('GET', path, undefined, { 'if-none-match': '"1"' });
    expect(changed.status).toBe(200);
    expect(changed.body.data.version).toBe(2);
    expect(changed.headers.get('etag')).toBe('"2"');
    const bad = await ws.api('GET', path, undefined, { 'if-none-match': 'nonsense' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details['If-None-Match']).toBeDefined();
  });
});

describe('GraphQL expected_version', () => {
  it('refuses a stale version with precondition_failed (412) and current_version; the right one applies', async ({
    app,
    ws,
  }) => {
    const c = await contact(ws);
    const update =
      'mutation($id: ID!, $v: Int) { ' +
      'updateContact(id: $id, input: { job_title: "G" }, expected_version: $v) { version } }';
    const stale = await gql(app.base, ws.key, update, { id: c.id, v: 5 });
    expect(stale.data).toBeNull();
    expect(stale.errors?.[0].extensions).toMatchObject({
      code: 'precondition_failed',
      status: 412,
      details: { current_version: 1 },
    });
    const ok = await gql(app.base, ws.key, update, { id: c.id, v: 1 });
    expect(ok.data.updateContact.version).toBe(2);
    const del = await gql(
      app.base,
      ws.key,
      'mutation($id: ID!) { deleteContact(id: $id, expected_version: 1) { deleted } }',
      { id: c.id },
    );
    expect(del.errors?.[0].extensions?.code).toBe('precondition_failed');
  });

  it('refuses a version no record ever had (below 1) as bad input, as REST refuses If-Match: "0"', async ({
    app,
    ws,
  }) => {
    const c = await contact(ws);
    for (const v of [0, -1]) {
      const r = await gql(
        app.base,
        ws.key,
        'mutation($id: ID!, $v: Int) { ' +
          'updateContact(id: $id, input: { job_title: "G" }, expected_version: $v) { id } }',
        { id: c.id, v },
      );
      expect(r.errors?.[0].extensions).toMatchObject({ code: 'validation_error', status: 400 });
    }
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'G' }, { 'if-match': '"0"' })).status).toBe(400);
  });
});

describe('events', () => {
  it('carry the version of the record they describe', async ({ app, ws }) => {
    const c = await contact(ws);
    await ws.api('PUT', `/v1/contacts/${c.id}`, { job_title: 'Evented' });
    const events = await app.db.prisma.event.findMany({ where: { entityId: c.id }, orderBy: { seq: 'asc' } });
    const versions = events.map((e) => [e.type, (e.data as { contact: { version: number } }).contact.version]);
    expect(versions).toEqual([
      ['contact.created', 1],
      ['contact.updated', 2],
    ]);
    // version is not reported as a change of its own.
    expect((events[1].data as { changes: string[] }).changes).toEqual(['job_title']);
    const p = (await ws.api('POST', '/v1/pipelines', { name: 'Evented' })).body.data;
    const deal = (await ws.api('POST', '/v1/deals', { title: 'E', pipeline_id: p.id })).body.data;
    await ws.api('PUT', `/v1/deals/${deal.id}`, { title: 'E2' });
    const dealEvents = await app.db.prisma.event.findMany({ where: { entityId: deal.id }, orderBy: { seq: 'asc' } });
    expect(dealEvents.map((e) => [e.type, (e.data as { deal: { version: number } }).deal.version])).toEqual([
      ['deal.created', 1],
      ['deal.updated', 2],
    ]);
    expect((dealEvents[1].data as { changes: string[] }).changes).toEqual(['title']);
  });
});
