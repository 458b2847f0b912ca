import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.ts';
import { gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let contact: { id: string };

test.beforeAll(async ({ app: started, ws: main, other: neighbour }) => {
  app = started;
  ws = main;
  other = neighbour;
  contact = await makeContact(ws.api);
});

/** Deals belong to another module; activities only need a row to point at. */
async function makeDeal(workspaceId: string, title = 'Deal') {
  const stage = await app.db.prisma.stage.findFirstOrThrow({ where: { workspaceId }, orderBy: { position: 'asc' } });
  return app.db.prisma.deal.create({
    data: { id: newId('deal'), workspaceId, title, pipelineId: stage.pipelineId, stageId: stage.id, currency: 'USD' },
  });
}

async function makeContact(api: Client) {
  return (await api('POST', '/v1/contacts', { first_name: 'Ada', email: uniqueEmail('act') })).body.data;
}

async function logActivity(body: Record<string, unknown>, api: Client = ws.api) {
  const r = await api('POST', '/v1/activities', body);
  expect(r.status).toBe(201);
  return r.body.data;
}

const FIELDS = [
  'id',
  'type',
  'subject',
  'description',
  'contact_id',
  'deal_id',
  'company_id',
  'user_id',
  'duration',
  'outcome',
  'occurred_at',
  'attendees',
  'external_id',
  'version',
  'created_at',
];

describe('log', () => {
  it('answers 201 with the activity, records activity.logged on the contact', async () => {
    const deal = await makeDeal(ws.id);
    const user = await ws.addUser('Caller');
    const key = await ws.addKey({ userId: user.id });
    const r = await key.api('POST', '/v1/activities', {
      type: 'call',
      subject: 'Intro',
      description: 'Talked pricing',
      contact_id: contact.id,
      deal_id: deal.id,
      duration: 15,
      outcome: 'connected',
      occurred_at: '2030-01-01T09:00:00Z',
      user_id: 'usr_forged',
      hacker: true,
    });
    expect(r.status).toBe(201);
    expect(Object.keys(r.body.data).sort()).toEqual([...FIELDS].sort());
    expect(r.body.data).toMatchObject({
      type: 'call',
      subject: 'Intro',
      contact_id: contact.id,
      deal_id: deal.id,
      user_id: user.id,
      duration: 15,
      outcome: 'connected',
      occurred_at: '2030-01-01T09:00:00.000Z',
      attendees: [],
    });
    expect(r.body.meta.warnings).toBeUndefined();
    const [event] = await app.db.prisma.event.findMany({ where: { entityId: r.body.data.id } });
    expect(event).toMatchObject({ type: 'activity.logged', contactId: contact.id });
    expect(event.data).toEqual({ activity: r.body.data });
  });

  it('defaults occurred_at to now and user_id to null for keys without a user', async () => {
    const before = Date.now();
    const a = await logActivity({ type: 'note' });
    expect(Date.parse(a.occurred_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(a).toMatchObject({ user_id: null, contact_id: null, subject: null, duration: null, outcome: null });
  });

  it('an unknown contact_id still logs the activity, unlinked, with a warning', async () => {
    const foreign = await makeContact(other.api);
    for (const id of ['con_ghost', foreign.id]) {
      const r = await ws.api('POST', '/v1/activities', { type: 'note', subject: 'orphan', contact_id: id });
      expect(r.status).toBe(201);
      expect(r.body.data.contact_id).toBeNull();
      expect(r.body.meta.warnings).toEqual([expect.stringContaining(id)]);
      const [event] = await app.db.prisma.event.findMany({ where: { entityId: r.body.data.id } });
      expect(event.contactId).toBeNull();
    }
  });

  it('keeps known attendees, drops unknown ones with a warning', async () => {
    const second = await makeContact(ws.api);
    const r = await ws.api('POST', '/v1/activities', {
      type: 'meeting',
      attendees: [contact.id, second.id, 'con_ghost', contact.id],
      duration: 45,
    });
    expect(r.status).toBe(201);
    expect(r.body.data.attendees).toEqual([contact.id, second.id]);
    expect(r.body.meta.warnings).toEqual([expect.stringContaining('con_ghost')]);
  });

  it('422 for a deal that is not in the workspace', async () => {
    const theirs = await makeDeal(other.id);
    for (const deal_id of ['deal_ghost', theirs.id]) {
      const r = await ws.api('POST', '/v1/activities', { type: 'call', deal_id });
      expect(r.status).toBe(422);
      expect(r.body.error.details.deal_id).toBeDefined();
    }
  });

  it.each([
    [{}, 'type'],
    [{ type: 'fax' }, 'type'],
    [{ type: 'call', outcome: 'great' }, 'outcome'],
    [{ type: 'call', duration: -1 }, 'duration'],
    [{ type: 'call', duration: 1.5 }, 'duration'],
    [{ type: 'call', duration: '15' }, 'duration'],
    [{ type: 'call', occurred_at: 'yesterday' }, 'occurred_at'],
    [{ type: 'meeting', attendees: 'con_1' }, 'attendees'],
    [{ type: 'call', subject: 'x'.repeat(256) }, 'subject'],
  ])('rejects %j with 400 naming %s', async (body, field) => {
    const r = await ws.api('POST', '/v1/activities', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details[field]).toBeDefined();
  });

  it('gets one by id; 404 for unknown ids and other workspaces', async () => {
    const a = await logActivity({ type: 'sms', subject: 'hi' });
    const r = await ws.api('GET', `/v1/activities/${a.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(a);
    expect((await ws.api('GET', '/v1/activities/act_missing')).status).toBe(404);
    expect((await other.api('GET', `/v1/activities/${a.id}`)).status).toBe(404);
  });
});

describe('lists', () => {
  let lw: TestWorkspace;
  let c1: { id: string };
  let c2: { id: string };
  let deal: { id: string };
  let user: { id: string };

  beforeAll(async () => {
    lw = await app.workspace();
    c1 = await makeContact(lw.api);
    c2 = await makeContact(lw.api);
    deal = await makeDeal(lw.id);
    user = await lw.addUser('Logger');
    const userKey = await lw.addKey({ userId: user.id });
    await logActivity({ type: 'call', subject: 'a', contact_id: c1.id, occurred_at: '2030-01-01T10:00:00Z' }, lw.api);
    await logActivity(
      { type: 'email', subject: 'b', contact_id: c1.id, deal_id: deal.id, occurred_at: '2030-01-03T10:00:00Z' },
      lw.api,
    );
    await logActivity(
      { type: 'call', subject: 'c', contact_id: c2.id, deal_id: deal.id, occurred_at: '2030-01-02T10:00:00Z' },
      userKey.api,
    );
    await logActivity({ type: 'note', subject: 'd', occurred_at: '2030-01-04T10:00:00Z' }, lw.api);
    await logActivity(
      { type: 'meeting', subject: 'e', contact_id: c2.id, occurred_at: '2029-12-31T10:00:00Z' },
      userKey.api,
    );
  });

  const subjects = (r: { body: { data: { subject: string }[] } }) => r.body.data.map((a) => a.subject);

  it('lists newest first by occurred_at, paginated by cursor', async () => {
    const first = await lw.api('GET', '/v1/activities?limit=2');
    expect(subjects(first)).toEqual(['d', 'b']);
    expect(first.body.meta).toMatchObject({ total: 5, limit: 2, has_more: true });
    const second = await lw.api('GET', `/v1/activities?limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(subjects(second)).toEqual(['c', 'a']);
    const last = await lw.api('GET', `/v1/activities?limit=2&cursor=${second.body.meta.next_cursor}`);
    expect(subjects(last)).toEqual(['e']);
    expect(last.body.meta).toMatchObject({ has_more: false, next_cursor: null });
    expect(subjects(await lw.api('GET', '/v1/activities?sort=occurred_at'))).toEqual(['e', 'a', 'c', 'b', 'd']);
    expect(subjects(await lw.api('GET', '/v1/activities?sort=-created_at'))).toEqual(['e', 'd', 'c', 'b', 'a']);
  });

  it.each([
    ['type=call', ['c', 'a']],
    ['contact_id=C1', ['b', 'a']],
    ['deal_id=DEAL', ['b', 'c']],
    ['user_id=USER', ['c', 'e']],
    ['date_from=2030-01-02', ['d', 'b', 'c']],
    ['date_to=2030-01-01T23:59:59Z', ['a', 'e']],
    ['date_from=2030-01-01&date_to=2030-01-02T12:00:00Z&type=call', ['c', 'a']],
  ])('filters %s', async (query, expected) => {
    const q = query.replace('C1', c1.id).replace('DEAL', deal.id).replace('USER', user.id);
    const r = await lw.api('GET', `/v1/activities?${q}`);
    expect(r.status).toBe(200);
    expect(subjects(r)).toEqual(expected);
  });

  it.each(['type=fax', 'date_from=soon', 'date_to=2030-01-01T25:00:00Z', 'sort=subject', 'limit=101', 'cursor=nope'])(
    '400 for %s',
    async (query) => {
      const r = await lw.api('GET', `/v1/activities?${query}`);
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    },
  );

  it('the feed shows the workspace, most recent first', async () => {
    const r = await lw.api('GET', '/v1/activities/feed?limit=3');
    expect(r.status).toBe(200);
    expect(subjects(r)).toEqual(['d', 'b', 'c']);
    expect(r.body.meta).toMatchObject({ total: 5, has_more: true });
    const next = await lw.api('GET', `/v1/activities/feed?limit=3&cursor=${r.body.meta.next_cursor}`);
    expect(subjects(next)).toEqual(['a', 'e']);
    expect((await lw.api('GET', '/v1/activities/feed?sort=subject')).status).toBe(400);
    expect(
      (await other.api('GET', '/v1/activities/feed')).body.data.every(
        (a: { subject: string }) => !'abcde'.includes(a.subject ?? 'z'),
      ),
    ).toBe(true);
  });

  it("a contact's and a deal's activities; 404 for unknown or foreign ids", async () => {
    expect(subjects(await lw.api('GET', `/v1/contacts/${c2.id}/activities`))).toEqual(['c', 'e']);
    expect(subjects(await lw.api('GET', `/v1/deals/${deal.id}/activities`))).toEqual(['b', 'c']);
    const paged = await lw.api('GET', `/v1/contacts/${c1.id}/activities?limit=1`);
    expect(paged.body.meta).toMatchObject({ total: 2, has_more: true });
    for (const path of ['/v1/contacts/con_ghost/activities', `/v1/deals/deal_ghost/activities`]) {
      expect((await lw.api('GET', path)).status).toBe(404);
    }
    expect((await other.api('GET', `/v1/contacts/${c1.id}/activities`)).status).toBe(404);
    expect((await other.api('GET', `/v1/deals/${deal.id}/activities`)).status).toBe(404);
  });
});

describe('scopes', () => {
  it('read_only reads, cannot log', async () => {
    const ro = await ws.addKey({ scope: 'read_only' });
    expect((await ro.api('GET', '/v1/activities')).status).toBe(200);
    expect((await ro.api('GET', '/v1/activities/feed')).status).toBe(200);
    const r = await ro.api('POST', '/v1/activities', { type: 'call' });
    expect(r.status).toBe(403);
    expect(r.body.error.code).toBe('forbidden');
  });

  it('custom keys need activities permissions, also for the contact and deal sub-lists', async () => {
    const deal = await makeDeal(ws.id);
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:write', 'deals:write'] });
    for (const path of [
      '/v1/activities',
      '/v1/activities/feed',
      `/v1/contacts/${contact.id}/activities`,
      `/v1/deals/${deal.id}/activities`,
    ]) {
      expect((await contactsOnly.api('GET', path)).status, path).toBe(403);
    }
    expect((await contactsOnly.api('POST', '/v1/activities', { type: 'call' })).status).toBe(403);
    const reader = await ws.addKey({ scope: 'custom', permissions: ['activities:read'] });
    expect((await reader.api('GET', `/v1/contacts/${contact.id}/activities`)).status).toBe(200);
    expect((await reader.api('POST', '/v1/activities', { type: 'call' })).status).toBe(403);
    const writer = await ws.addKey({ scope: 'custom', permissions: ['activities:write'] });
    expect((await writer.api('POST', '/v1/activities', { type: 'call' })).status).toBe(201);
  });
});

describe('GraphQL', () => {
  it('logs and lists activities, with warnings in extensions', async () => {
    const r = await gql(
      app.base,
      ws.key,
      'mutation($input: ActivityCreateInput!) { createActivity(input: $input) { id type contact_id } }',
      {
        input: { type: 'email', subject: 'gql', contact_id: 'con_ghost' },
      },
    );
    expect(r.data.createActivity).toMatchObject({ type: 'email', contact_id: null });
    expect(r.extensions?.warnings).toHaveLength(1);
    const list = await gql(
      app.base,
      ws.key,
      '{ activities(filter: { type: email }) { nodes { id } total } activityFeed(limit: 1) { nodes { id } } }',
    );
    expect(list.data.activities.nodes.map((n: { id: string }) => n.id)).toContain(r.data.createActivity.id);
    const contactList = await gql(app.base, ws.key, `{ contactActivities(contactId: "${contact.id}") { total } }`);
    expect(contactList.data.contactActivities.total).toBeGreaterThan(0);
    const bad = await gql(app.base, ws.key, 'mutation { createActivity(input: { type: call, duration: -1 }) { id } }');
    expect(bad.errors?.[0].extensions?.code).toBe('validation_error');
  });

  it('REST and GraphQL write the same activity.logged event', async () => {
    const input = { type: 'call', subject: 'same', contact_id: contact.id, duration: 3 };
    const viaRest = await logActivity(input);
    const viaGql = (
      await gql(app.base, ws.key, 'mutation($input: ActivityCreateInput!) { createActivity(input: $input) { id } }', {
        input,
      })
    ).data.createActivity;
    const [a] = await app.db.prisma.event.findMany({ where: { entityId: viaRest.id } });
    const [b] = await app.db.prisma.event.findMany({ where: { entityId: viaGql.id } });
    const strip = (e: typeof a) => {
      const {
        id: _id,
        created_at: _c,
        occurred_at: _o,
        ...rest
      } = (e.data as { activity: Record<string, unknown> }).activity;
      return { type: e.type, contactId: e.contactId, activity: rest };
    };
    expect(strip(a)).toEqual(strip(b));
  });
});
