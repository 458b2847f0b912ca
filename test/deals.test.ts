import { beforeAll, describe, expect, it } from 'vitest';
import { gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

interface Stage {
  id: string;
  name: string;
  position: number;
}
interface Pipeline {
  id: string;
  stages: Stage[];
}

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let pipe: Pipeline;
let pipe2: Pipeline;
let owner: { id: string };
let owner2: { id: string };
let readOnly: Client;
let contactsOnly: Client;
let dealsRead: Client;

test.beforeAll(async ({ app: started, ws: main, other: neighbour }) => {
  app = started;
  ws = main;
  other = neighbour;
  await ws.addCustomField('industry', 'text');
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
  pipe = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  pipe2 = (
    await ws.api('POST', '/v1/pipelines', {
      name: 'Renewals',
      stages: [
        { name: 'Due', probability: 40 },
        { name: 'Signed', probability: 100 },
      ],
    })
  ).body.data;
  owner = await ws.addUser('Olivia Owner');
  owner2 = await ws.addUser('Sam Seller');
  readOnly = (await ws.addKey({ scope: 'read_only' })).api;
  contactsOnly = (await ws.addKey({ scope: 'custom', permissions: ['contacts:read', 'contacts:write'] })).api;
  dealsRead = (await ws.addKey({ scope: 'custom', permissions: ['deals:read'] })).api;
});

const newContact = async (api: Client = ws.api, first_name = 'Buyer') =>
  (await api('POST', '/v1/contacts', { first_name, last_name: 'Person', email: uniqueEmail(first_name.toLowerCase()) }))
    .body.data;
const newDeal = async (body: Record<string, unknown> = {}, api: Client = ws.api, pipelineId = pipe.id) => {
  const r = await api('POST', '/v1/deals', { title: 'Big deal', pipeline_id: pipelineId, ...body });
  expect(r.status, r.text).toBe(201);
  return r.body.data;
};
const eventsOf = (dealId: string) =>
  app.db.prisma.event.findMany({ where: { entityId: dealId }, orderBy: { seq: 'asc' } });

describe('create', () => {
  it('answers 201 with the full deal: first stage, open, workspace currency, contacts and history', async () => {
    const contact = await newContact();
    const r = await ws.api('POST', '/v1/deals', {
      title: 'Big deal',
      pipeline_id: pipe.id,
      value: 12000.5,
      contact_id: contact.id,
      owner_id: owner.id,
      expected_close_date: '2027-03-31',
      probability: 30,
      tags: ['q1', 'q1'],
    });
    expect(r.status).toBe(201);
    const deal = r.body.data;
    expect(deal).toMatchObject({
      title: 'Big deal',
      pipeline_id: pipe.id,
      stage_id: pipe.stages[0].id,
      stage_name: 'Lead',
      value: 12000.5,
      currency: 'USD',
      probability: 30,
      owner_id: owner.id,
      contact_id: contact.id,
      expected_close_date: '2027-03-31',
      status: 'open',
      custom_fields: {},
      tags: ['q1'],
      won_reason: null,
      lost_reason: null,
      competitor: null,
      closed_at: null,
    });
    expect(deal.contacts).toEqual([
      {
        contact_id: contact.id,
        role: null,
        is_primary: true,
        first_name: 'Buyer',
        last_name: 'Person',
        email: contact.email,
        created_at: expect.any(String),
      },
    ]);
    expect(deal.stage_history).toEqual([
      {
        from_stage_id: null,
        from_stage_name: null,
        to_stage_id: pipe.stages[0].id,
        to_stage_name: 'Lead',
        note: null,
        changed_by: { type: 'api_key', id: expect.any(String), name: 'test key' },
        changed_at: expect.any(String),
      },
    ]);
    const events = await eventsOf(deal.id);
    expect(events.map((e) => [e.type, e.contactId])).toEqual([['deal.created', contact.id]]);
    expect(events[0].data).toMatchObject({
      deal: { id: deal.id, title: 'Big deal', value: 12000.5, stage_name: 'Lead', contact_id: contact.id },
    });
  });

  it('takes a given stage of the pipeline and currency; value may be omitted', async () => {
    const deal = await newDeal({ stage_id: pipe.stages[2].id, currency: 'eur' });
    expect(deal).toMatchObject({
      stage_id: pipe.stages[2].id,
      stage_name: 'Proposal',
      currency: 'EUR',
      value: null,
      contact_id: null,
      contacts: [],
    });
  });

  it('keeps defined custom fields, drops others with a warning, rejects bad values', async () => {
    const r = await ws.api('POST', '/v1/deals', {
      title: 'cf',
      pipeline_id: pipe.id,
      custom_fields: { industry: 'aero', Industry: 'x', tier: 'gold' },
    });
    expect(r.status).toBe(201);
    expect(r.body.data.custom_fields).toEqual({ industry: 'aero', tier: 'gold' });
    expect(r.body.meta.warnings[0]).toMatch(/Industry/);
    const bad = await ws.api('POST', '/v1/deals', {
      title: 'cf',
      pipeline_id: pipe.id,
      custom_fields: { tier: 'bronze' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details['custom_fields.tier']).toBeDefined();
  });

  it('ignores read-only and unknown fields: a new deal is always open', async () => {
    const deal = await newDeal({ id: 'mine', status: 'won', won_reason: 'x', stage_name: 'Fake', hacker: true });
    expect(deal.id).not.toBe('mine');
    expect(deal).toMatchObject({ status: 'open', won_reason: null, stage_name: 'Lead' });
    expect(deal).not.toHaveProperty('hacker');
  });

  it.each([
    [{ title: 'x', value: '1000' }, 'value'],
    [{ title: 'x', value: -1 }, 'value'],
    [{ value: 1 }, 'title'],
    [{ title: '' }, 'title'],
    [{ title: 'x'.repeat(256) }, 'title'],
    [{ title: 'x', probability: 140 }, 'probability'],
    [{ title: 'x', probability: 12.5 }, 'probability'],
    [{ title: 'x', currency: 'EURO' }, 'currency'],
    [{ title: 'x', expected_close_date: '2027-02-30' }, 'expected_close_date'],
    [{ title: 'x', expected_close_date: '2027-03-31T10:00:00Z' }, 'expected_close_date'],
    [{ title: 'x', tags: 'q1' }, 'tags'],
    [{ title: 'x', custom_fields: 'x' }, 'custom_fields'],
  ])('rejects %j with 400 validation_error naming %s', async (body, field) => {
    const r = await ws.api('POST', '/v1/deals', { pipeline_id: pipe.id, ...body });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details[field]).toBeDefined();
  });

  it('400 without pipeline_id', async () => {
    const r = await ws.api('POST', '/v1/deals', { title: 'x' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.pipeline_id).toEqual(['is required']);
  });

  it('422 for references that do not exist in the workspace', async () => {
    const foreignContact = await newContact(other.api);
    const foreignUser = await other.addUser('Foreign');
    const inactive = await ws.addUser('Gone');
    await app.db.prisma.user.update({ where: { id: inactive.id }, data: { active: false } });
    const otherPipe = (await other.api('GET', '/v1/pipelines')).body.data[0];
    const cases: [Record<string, unknown>, string][] = [
      [{ contact_id: 'con_nope' }, 'contact_id'],
      [{ contact_id: foreignContact.id }, 'contact_id'],
      [{ owner_id: 'usr_nope' }, 'owner_id'],
      [{ owner_id: foreignUser.id }, 'owner_id'],
      [{ owner_id: inactive.id }, 'owner_id'],
      [{ stage_id: pipe2.stages[0].id }, 'stage_id'],
      [{ stage_id: 'stg_nope' }, 'stage_id'],
      [{ pipeline_id: otherPipe.id }, 'pipeline_id'],
      [{ pipeline_id: 'pipe_nope' }, 'pipeline_id'],
    ];
    for (const [body, field] of cases) {
      const r = await ws.api('POST', '/v1/deals', { title: 'x', pipeline_id: pipe.id, ...body });
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('unprocessable_entity');
      expect(r.body.error.details[field], JSON.stringify(body)).toBeDefined();
    }
  });
});

describe('read and delete', () => {
  it('gets by id; 404 for unknown ids and other workspaces', async () => {
    const deal = await newDeal();
    const r = await ws.api('GET', `/v1/deals/${deal.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(deal);
    expect((await ws.api('GET', '/v1/deals/deal_missing')).body.error.code).toBe('not_found');
    const foreign: [string, string, unknown?][] = [
      ['GET', `/v1/deals/${deal.id}`],
      ['PUT', `/v1/deals/${deal.id}`, { title: 'x' }],
      ['DELETE', `/v1/deals/${deal.id}`],
      ['PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipe.stages[1].id }],
      ['GET', `/v1/deals/${deal.id}/contacts`],
      ['POST', `/v1/deals/${deal.id}/contacts`, { contact_id: 'x' }],
    ];
    for (const [method, path, body] of foreign)
      expect((await other.api(method, path, body)).status, `${method} ${path}`).toBe(404);
  });

  it('delete answers {id, deleted:true}, writes deal.deleted on the primary contact, then 404', async () => {
    const contact = await newContact();
    const deal = await newDeal({ contact_id: contact.id });
    const r = await ws.api('DELETE', `/v1/deals/${deal.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: deal.id, deleted: true });
    expect((await ws.api('GET', `/v1/deals/${deal.id}`)).status).toBe(404);
    expect((await ws.api('DELETE', `/v1/deals/${deal.id}`)).status).toBe(404);
    expect(await app.db.prisma.dealContact.count({ where: { dealId: deal.id } })).toBe(0);
    const deleted = (await eventsOf(deal.id)).find((e) => e.type === 'deal.deleted');
    expect(deleted?.contactId).toBe(contact.id);
    expect(deleted?.data).toMatchObject({ deal: { id: deal.id, title: 'Big deal' } });
  });
});

describe('list', () => {
  let lw: TestWorkspace;
  let lp: Pipeline;
  let u1: { id: string };
  let u2: { id: string };
  let list: (query: string) => Promise<{ status: number; body: any }>;

  beforeAll(async () => {
    lw = await app.workspace();
    lp = (await lw.api('GET', '/v1/pipelines')).body.data[0];
    u1 = await lw.addUser('One');
    u2 = await lw.addUser('Two');
    for (let i = 0; i < 6; i++) {
      await newDeal(
        {
          title: `D${i}`,
          value: i * 1000,
          owner_id: i % 2 ? u2.id : u1.id,
          expected_close_date: `2027-0${i + 1}-15`,
          stage_id: lp.stages[i % 3].id,
        },
        lw.api,
        lp.id,
      );
    }
    await newDeal({ title: 'No value' }, lw.api, lp.id);
    list = (query) => lw.api('GET', `/v1/deals?limit=100&${query}`);
  });

  const titles = (r: { body: { data: { title: string }[] } }) => r.body.data.map((d) => d.title);

  it('newest first by default, with list meta', async () => {
    const r = await lw.api('GET', '/v1/deals');
    expect(r.status).toBe(200);
    expect(titles(r)).toEqual(['No value', 'D5', 'D4', 'D3', 'D2', 'D1', 'D0']);
    expect(r.body.meta).toMatchObject({ total: 7, limit: 25, has_more: false, next_cursor: null });
    expect(r.body.data[0]).not.toHaveProperty('stage_history');
  });

  it('filters by value range, owner, stage, pipeline, status and close dates', async () => {
    expect(titles(await list(`pipeline_id=${lp.id}&min_value=2000&max_value=4000&sort=-value`))).toEqual([
      'D4',
      'D3',
      'D2',
    ]);
    expect(titles(await list('min_value=4500.5&sort=value'))).toEqual(['D5']);
    expect(titles(await list(`owner_id=${u2.id}&sort=created_at`))).toEqual(['D1', 'D3', 'D5']);
    expect(titles(await list(`stage_id=${lp.stages[1].id}&sort=created_at`))).toEqual(['D1', 'D4']);
    expect(
      titles(await list('expected_close_after=2027-02-01&expected_close_before=2027-04-30&sort=expected_close_date')),
    ).toEqual(['D1', 'D2', 'D3']);
    expect(titles(await list('pipeline_id=pipe_elsewhere'))).toEqual([]);
    const [d0] = (await list('max_value=0')).body.data;
    await lw.api('PUT', `/v1/deals/${d0.id}`, { status: 'won' });
    expect(titles(await list('status=won'))).toEqual(['D0']);
    expect((await list('status=open')).body.data).toHaveLength(6);
    await lw.api('PUT', `/v1/deals/${d0.id}`, { status: 'open' });
  });

  it('sorts by value with deals without a value last, both directions', async () => {
    expect(titles(await list('sort=value'))).toEqual(['D0', 'D1', 'D2', 'D3', 'D4', 'D5', 'No value']);
    expect(titles(await list('sort=-value'))).toEqual(['D5', 'D4', 'D3', 'D2', 'D1', 'D0', 'No value']);
    expect(titles(await list('sort=-expected_close_date'))).toEqual(['D5', 'D4', 'D3', 'D2', 'D1', 'D0', 'No value']);
    expect((await list('sort=-updated_at')).status).toBe(200);
  });

  it('pages with cursors in any sort, without gaps or repeats', async () => {
    for (const sort of ['-value', 'expected_close_date', 'created_at']) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const r: { body: any } = await lw.api(
          'GET',
          `/v1/deals?limit=2&sort=${sort}${cursor ? `&cursor=${cursor}` : ''}`,
        );
        seen.push(...titles(r));
        cursor = r.body.meta.next_cursor;
      } while (cursor);
      expect(seen.sort(), sort).toEqual(['D0', 'D1', 'D2', 'D3', 'D4', 'D5', 'No value']);
    }
  });

  it.each([
    'status=maybe',
    'sort=title',
    'sort=-stage_id',
    'min_value=abc',
    'max_value=1e',
    'expected_close_after=soon',
    'expected_close_before=2027-13-45',
    'limit=101',
    'limit=ten',
    'cursor=garbage',
  ])('400 for %s', async (query) => {
    const r = await lw.api('GET', `/v1/deals?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
  });
});

describe('update', () => {
  it('changes only the given fields and writes deal.updated with changes and previous values', async () => {
    const deal = await newDeal({ value: 100, owner_id: owner.id, tags: ['a'] });
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, {
      title: 'Bigger deal',
      value: 250,
      owner_id: owner2.id,
      probability: null,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      title: 'Bigger deal',
      value: 250,
      owner_id: owner2.id,
      tags: ['a'],
      stage_id: deal.stage_id,
      currency: 'USD',
    });
    const updated = (await eventsOf(deal.id)).filter((e) => e.type === 'deal.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0].data).toMatchObject({
      deal: { title: 'Bigger deal', value: 250 },
      changes: ['title', 'value', 'owner_id'],
      previous: { title: 'Big deal', value: 100, owner_id: owner.id },
    });
  });

  it('an update that changes nothing writes no event', async () => {
    const deal = await newDeal({ value: 5 });
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { value: 5, title: 'Big deal' })).status).toBe(200);
    expect((await eventsOf(deal.id)).map((e) => e.type)).toEqual(['deal.created']);
  });

  it('open → won → (lost refused) → open → lost → open, with events', async () => {
    const contact = await newContact();
    const deal = await newDeal({ contact_id: contact.id });
    const won = await ws.api('PUT', `/v1/deals/${deal.id}`, { status: 'won', won_reason: 'price' });
    expect(won.status).toBe(200);
    expect(won.body.data).toMatchObject({ status: 'won', won_reason: 'price' });
    expect(Date.parse(won.body.data.closed_at)).not.toBeNaN();

    const direct = await ws.api('PUT', `/v1/deals/${deal.id}`, { status: 'lost' });
    expect(direct.status).toBe(422);
    expect(direct.body.error.details.status).toBeDefined();

    const reopened = await ws.api('PUT', `/v1/deals/${deal.id}`, { status: 'open' });
    expect(reopened.body.data).toMatchObject({ status: 'open', won_reason: null, closed_at: null });
    const lost = await ws.api('PUT', `/v1/deals/${deal.id}`, {
      status: 'lost',
      lost_reason: 'budget',
      competitor: 'Rival',
    });
    expect(lost.body.data).toMatchObject({ status: 'lost', lost_reason: 'budget', competitor: 'Rival' });
    const again = await ws.api('PUT', `/v1/deals/${deal.id}`, { status: 'open' });
    expect(again.body.data).toMatchObject({ status: 'open', lost_reason: null, competitor: null });

    const events = await eventsOf(deal.id);
    expect(events.map((e) => e.type)).toEqual([
      'deal.created',
      'deal.updated',
      'deal.won',
      'deal.updated',
      'deal.updated',
      'deal.lost',
      'deal.updated',
    ]);
    expect(events.every((e) => e.contactId === contact.id)).toBe(true);
    expect(events[2].data).toMatchObject({ deal: { status: 'won', won_reason: 'price' }, previous_status: 'open' });
    expect(events[5].data).toMatchObject({ deal: { status: 'lost', competitor: 'Rival' } });
  });

  it('422 for a reason that does not fit the status', async () => {
    const deal = await newDeal();
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, { won_reason: 'early' });
    expect(r.status).toBe(422);
    expect(r.body.error.details.won_reason).toBeDefined();
  });

  it('a new pipeline without stage_id puts the deal in its first stage, with history and stage_changed', async () => {
    const deal = await newDeal({ stage_id: pipe.stages[1].id });
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, { pipeline_id: pipe2.id });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ pipeline_id: pipe2.id, stage_id: pipe2.stages[0].id, stage_name: 'Due' });
    expect(r.body.data.stage_history.at(-1)).toMatchObject({
      from_stage_id: pipe.stages[1].id,
      from_stage_name: 'Qualified',
      to_stage_id: pipe2.stages[0].id,
      to_stage_name: 'Due',
    });
    const events = await eventsOf(deal.id);
    expect(events.map((e) => e.type)).toEqual(['deal.created', 'deal.updated', 'deal.stage_changed']);
    expect(events[1].data).toMatchObject({ changes: ['pipeline_id', 'stage_id'] });
    const both = await ws.api('PUT', `/v1/deals/${deal.id}`, { pipeline_id: pipe.id, stage_id: pipe.stages[3].id });
    expect(both.body.data).toMatchObject({ pipeline_id: pipe.id, stage_id: pipe.stages[3].id });
  });

  it('stage_id of another pipeline is 422; unknown pipeline is 422', async () => {
    const deal = await newDeal();
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { stage_id: pipe2.stages[1].id })).status).toBe(422);
    expect(
      (await ws.api('PUT', `/v1/deals/${deal.id}`, { pipeline_id: pipe2.id, stage_id: pipe.stages[1].id })).status,
    ).toBe(422);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { pipeline_id: 'pipe_nope' })).status).toBe(422);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { owner_id: 'usr_nope' })).status).toBe(422);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { contact_id: 'con_nope' })).status).toBe(422);
  });

  it.each([
    [{ value: '10' }, 'value'],
    [{ title: null }, 'title'],
    [{ status: 'maybe' }, 'status'],
    [{ pipeline_id: null }, 'pipeline_id'],
    [{ currency: null }, 'currency'],
  ])('400 for %j', async (body, field) => {
    const deal = await newDeal();
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, body);
    expect(r.status).toBe(400);
    expect(r.body.error.details[field]).toBeDefined();
  });

  it('a new primary contact is associated and marked; the previous one stays associated', async () => {
    const first = await newContact(ws.api, 'First');
    const second = await newContact(ws.api, 'Second');
    const deal = await newDeal({ contact_id: first.id });
    const r = await ws.api('PUT', `/v1/deals/${deal.id}`, { contact_id: second.id });
    expect(r.body.data.contact_id).toBe(second.id);
    expect(
      r.body.data.contacts.map((c: { contact_id: string; is_primary: boolean }) => [c.contact_id, c.is_primary]),
    ).toEqual([
      [second.id, true],
      [first.id, false],
    ]);
    const added = (await eventsOf(deal.id)).find((e) => e.type === 'deal.contact_added');
    expect(added?.contactId).toBe(second.id);
    const cleared = await ws.api('PUT', `/v1/deals/${deal.id}`, { contact_id: null });
    expect(cleared.body.data.contact_id).toBeNull();
    expect(cleared.body.data.contacts.every((c: { is_primary: boolean }) => !c.is_primary)).toBe(true);
  });
});

describe('move stage', () => {
  it('moves within the pipeline and records history with note, actor and time', async () => {
    const contact = await newContact();
    const deal = await newDeal({ contact_id: contact.id, owner_id: owner.id });
    const r = await ws.api('PUT', `/v1/deals/${deal.id}/stage`, {
      stage_id: pipe.stages[1].id,
      note: 'qualified on call',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ stage_id: pipe.stages[1].id, stage_name: 'Qualified', status: 'open' });
    const entry = r.body.data.stage_history.at(-1);
    expect(entry).toMatchObject({
      from_stage_id: pipe.stages[0].id,
      from_stage_name: 'Lead',
      to_stage_id: pipe.stages[1].id,
      to_stage_name: 'Qualified',
      note: 'qualified on call',
    });
    expect(entry.changed_by).toMatchObject({ type: 'api_key', name: 'test key' });
    expect(Date.parse(entry.changed_at)).toBeGreaterThan(Date.now() - 60_000);

    const events = await eventsOf(deal.id);
    expect(events.map((e) => e.type)).toEqual(['deal.created', 'deal.updated', 'deal.stage_changed']);
    const moved = events[2];
    expect(moved.contactId).toBe(contact.id);
    expect(moved.data).toMatchObject({
      deal: {
        id: deal.id,
        title: 'Big deal',
        stage_id: pipe.stages[1].id,
        stage_name: 'Qualified',
        previous_stage_id: pipe.stages[0].id,
        previous_stage_name: 'Lead',
        owner_id: owner.id,
        currency: 'USD',
      },
      changed_by: { id: expect.any(String), name: 'test key' },
      note: 'qualified on call',
    });
  });

  it('moving to the current stage changes nothing', async () => {
    const deal = await newDeal();
    const r = await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: deal.stage_id });
    expect(r.status).toBe(200);
    expect(r.body.data.stage_history).toHaveLength(1);
    expect((await eventsOf(deal.id)).map((e) => e.type)).toEqual(['deal.created']);
  });

  it('422 for a stage of another pipeline or an unknown stage; 400 without stage_id; 404 unknown deal', async () => {
    const deal = await newDeal();
    const cross = await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipe2.stages[0].id });
    expect(cross.status).toBe(422);
    expect(cross.body.error.code).toBe('unprocessable_entity');
    expect((await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: 'stg_nope' })).status).toBe(422);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { note: 'x' })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipe.stages[1].id, note: 5 })).status).toBe(
      400,
    );
    expect((await ws.api('PUT', '/v1/deals/deal_nope/stage', { stage_id: pipe.stages[1].id })).status).toBe(404);
    expect((await ws.api('GET', `/v1/deals/${deal.id}/stage`)).status).toBe(405);
  });
});

describe('deal contacts', () => {
  it('adds with a role (201), lists primary first, refuses duplicates (409) and unknown contacts (422)', async () => {
    const primary = await newContact(ws.api, 'Primary');
    const champ = await newContact(ws.api, 'Champ');
    const deal = await newDeal({ contact_id: primary.id });
    const r = await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: champ.id, role: 'champion' });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      contact_id: champ.id,
      role: 'champion',
      is_primary: false,
      first_name: 'Champ',
      email: champ.email,
    });

    const list = await ws.api('GET', `/v1/deals/${deal.id}/contacts`);
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: { contact_id: string; role: string | null }) => [c.contact_id, c.role])).toEqual([
      [primary.id, null],
      [champ.id, 'champion'],
    ]);
    expect(list.body.meta).toMatchObject({ total: 2, has_more: false, next_cursor: null });
    const page1 = await ws.api('GET', `/v1/deals/${deal.id}/contacts?limit=1`);
    expect(page1.body.meta.has_more).toBe(true);
    const page2 = await ws.api('GET', `/v1/deals/${deal.id}/contacts?limit=1&cursor=${page1.body.meta.next_cursor}`);
    expect(page2.body.data[0].contact_id).toBe(champ.id);

    const dup = await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: champ.id, role: 'other' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    expect((await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: primary.id })).status).toBe(409);
    const foreign = await newContact(other.api);
    expect((await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: foreign.id })).status).toBe(422);
    expect((await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: 'con_nope' })).status).toBe(422);
    expect((await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { role: 'x' })).status).toBe(400);
    expect((await ws.api('POST', '/v1/deals/deal_nope/contacts', { contact_id: champ.id })).status).toBe(404);
    expect((await ws.api('GET', '/v1/deals/deal_nope/contacts')).status).toBe(404);

    const added = (await eventsOf(deal.id)).filter((e) => e.type === 'deal.contact_added');
    expect(added.map((e) => e.contactId)).toEqual([champ.id]);
    expect(added[0].data).toMatchObject({ deal: { id: deal.id }, contact_id: champ.id, role: 'champion' });
  });

  it('removes an association (404 when absent); removing the primary clears contact_id', async () => {
    const primary = await newContact(ws.api, 'Primary');
    const champ = await newContact(ws.api, 'Champ');
    const deal = await newDeal({ contact_id: primary.id });
    await ws.api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: champ.id, role: 'champion' });
    const r = await ws.api('DELETE', `/v1/deals/${deal.id}/contacts/${champ.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: champ.id, deleted: true });
    expect((await ws.api('DELETE', `/v1/deals/${deal.id}/contacts/${champ.id}`)).status).toBe(404);

    expect((await ws.api('DELETE', `/v1/deals/${deal.id}/contacts/${primary.id}`)).status).toBe(200);
    const after = (await ws.api('GET', `/v1/deals/${deal.id}`)).body.data;
    expect(after).toMatchObject({ contact_id: null, contacts: [] });
    const events = (await eventsOf(deal.id)).map((e) => [e.type, e.contactId]);
    expect(events).toEqual([
      ['deal.created', primary.id],
      ['deal.contact_added', champ.id],
      ['deal.contact_removed', champ.id],
      ['deal.updated', null],
      ['deal.contact_removed', primary.id],
    ]);
  });

  it('GET /contacts/:id/deals lists deals where the contact is primary or associated; needs deals:read', async () => {
    const contact = await newContact();
    const a = await newDeal({ title: 'Primary deal', contact_id: contact.id });
    const b = await newDeal({ title: 'Associated deal' });
    await newDeal({ title: 'Unrelated' });
    await ws.api('POST', `/v1/deals/${b.id}/contacts`, { contact_id: contact.id, role: 'influencer' });
    const r = await ws.api('GET', `/v1/contacts/${contact.id}/deals`);
    expect(r.status).toBe(200);
    expect(r.body.data.map((d: { id: string }) => d.id)).toEqual([b.id, a.id]);
    expect(r.body.meta.total).toBe(2);
    expect((await ws.api('GET', '/v1/contacts/con_nope/deals')).status).toBe(404);
    expect((await other.api('GET', `/v1/contacts/${contact.id}/deals`)).status).toBe(404);
    expect((await contactsOnly('GET', `/v1/contacts/${contact.id}/deals`)).status).toBe(403);
    expect((await dealsRead('GET', `/v1/contacts/${contact.id}/deals`)).status).toBe(200);
    expect((await ws.api('GET', `/v1/contacts/${contact.id}/deals?sort=title`)).status).toBe(400);
  });

  it('the contact timeline shows the deal events with summaries', async () => {
    const contact = await newContact();
    const deal = await newDeal({ title: 'Timeline deal', contact_id: contact.id });
    await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipe.stages[1].id });
    await ws.api('PUT', `/v1/deals/${deal.id}`, { status: 'won' });
    const t = await ws.api('GET', `/v1/contacts/${contact.id}/timeline?limit=100`);
    const summaries = t.body.data.map((e: { summary: string }) => e.summary);
    expect(summaries).toContain('Deal "Timeline deal" created');
    expect(summaries).toContain('Deal "Timeline deal" moved to Qualified');
    expect(summaries).toContain('Deal "Timeline deal" won');
    expect(summaries).toContain('Deal "Timeline deal" updated: stage_id');
  });
});

describe('scopes', () => {
  it('read-only keys read deals but cannot change them: 403', async () => {
    const contact = await newContact();
    const deal = await newDeal({ contact_id: contact.id });
    expect((await readOnly('GET', '/v1/deals')).status).toBe(200);
    expect((await readOnly('GET', `/v1/deals/${deal.id}`)).status).toBe(200);
    expect((await readOnly('GET', `/v1/deals/${deal.id}/contacts`)).status).toBe(200);
    const writes: [string, string, unknown?][] = [
      ['POST', '/v1/deals', { title: 'x', pipeline_id: pipe.id }],
      ['PUT', `/v1/deals/${deal.id}`, { title: 'x' }],
      ['DELETE', `/v1/deals/${deal.id}`],
      ['PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipe.stages[1].id }],
      ['POST', `/v1/deals/${deal.id}/contacts`, { contact_id: contact.id }],
      ['DELETE', `/v1/deals/${deal.id}/contacts/${contact.id}`],
    ];
    for (const [method, path, body] of writes) {
      const r = await readOnly(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
  });

  it('custom keys need the deals permissions', async () => {
    const deal = await newDeal();
    expect((await contactsOnly('GET', '/v1/deals')).status).toBe(403);
    expect((await contactsOnly('GET', `/v1/deals/${deal.id}`)).status).toBe(403);
    expect((await contactsOnly('POST', '/v1/deals', { title: 'x', pipeline_id: pipe.id })).status).toBe(403);
    expect((await dealsRead('GET', `/v1/deals/${deal.id}`)).status).toBe(200);
    expect((await dealsRead('PUT', `/v1/deals/${deal.id}`, { title: 'x' })).status).toBe(403);
    expect((await dealsRead('GET', '/v1/pipelines')).status).toBe(403);
  });

  it('a sandbox key works on the sandbox pipelines and deals only', async () => {
    const sandbox = (await ws.addKey({ sandbox: true })).api;
    const sandboxPipe = (await sandbox('GET', '/v1/pipelines')).body.data[0];
    expect(sandboxPipe.id).not.toBe(pipe.id);
    expect((await sandbox('POST', '/v1/deals', { title: 'x', pipeline_id: pipe.id })).status).toBe(422);
    const deal = await newDeal({ title: 'Sandbox deal' }, sandbox, sandboxPipe.id);
    expect((await ws.api('GET', `/v1/deals/${deal.id}`)).status).toBe(404);
  });
});

describe('GraphQL', () => {
  const DEAL =
    'id title value stage_name status contact { email } stage { name position } owner { name } pipeline { name }' +
    ' contacts { contact_id is_primary } stage_history { to_stage_name note }';

  it('creates, moves, reads and lists deals with their relations', async () => {
    const contact = await newContact();
    const created = await gql(
      app.base,
      ws.key,
      `mutation($input: DealCreateInput!) { createDeal(input: $input) { ${DEAL} } }`,
      {
        input: { title: 'GQL deal', pipeline_id: pipe.id, value: 99.5, contact_id: contact.id, owner_id: owner.id },
      },
    );
    expect(created.errors).toBeUndefined();
    const deal = created.data.createDeal;
    expect(deal).toMatchObject({
      title: 'GQL deal',
      value: 99.5,
      stage_name: 'Lead',
      contact: { email: contact.email },
      stage: { name: 'Lead', position: 1 },
      owner: { name: 'Olivia Owner' },
      pipeline: { name: 'Sales Pipeline' },
      contacts: [{ contact_id: contact.id, is_primary: true }],
    });
    const moved = await gql(
      app.base,
      ws.key,
      `mutation($id: ID!, $input: DealStageMoveInput!) { moveDealStage(id: $id, input: $input) { ${DEAL} } }`,
      {
        id: deal.id,
        input: { stage_id: pipe.stages[2].id, note: 'sent proposal' },
      },
    );
    expect(moved.data.moveDealStage.stage_history.map((h: { to_stage_name: string }) => h.to_stage_name)).toEqual([
      'Lead',
      'Proposal',
    ]);
    const read = await gql(app.base, ws.key, `query($id: ID!) { deal(id: $id) { ${DEAL} } }`, { id: deal.id });
    expect(read.data.deal.stage).toEqual({ name: 'Proposal', position: 3 });
    const listed = await gql(
      app.base,
      ws.key,
      `query($f: DealFilter) { deals(filter: $f, sort: [value_desc], limit: 5) { total nodes { ${DEAL} } } }`,
      {
        f: { owner_id: owner.id, min_value: 99 },
      },
    );
    expect(listed.data.deals.nodes.map((d: { id: string }) => d.id)).toContain(deal.id);
    const contactDeals = await gql(
      app.base,
      ws.key,
      'query($c: ID!) { contactDeals(contactId: $c) { nodes { id } } }',
      { c: contact.id },
    );
    expect(contactDeals.data.contactDeals.nodes).toEqual([{ id: deal.id }]);
  });

  it('reports rule errors with their codes', async () => {
    const deal = await newDeal();
    const cross = await gql(
      app.base,
      ws.key,
      'mutation($id: ID!, $s: String!) { moveDealStage(id: $id, input: { stage_id: $s }) { id } }',
      { id: deal.id, s: pipe2.stages[0].id },
    );
    expect(cross.errors?.[0].extensions).toMatchObject({ code: 'unprocessable_entity', status: 422 });
    // A value of the wrong type is refused by the input type, naming the field.
    const bad = await gql(app.base, ws.key, 'mutation($i: DealCreateInput!) { createDeal(input: $i) { id } }', {
      i: { title: 'x', pipeline_id: pipe.id, value: '1000' },
    });
    expect(bad.errors?.[0].extensions).toMatchObject({
      code: 'validation_error',
      details: { value: [expect.stringMatching(/Float/)] },
    });
    // A value of the right type that breaks a rule is the resolver's validation error, with details.
    const negative = await gql(app.base, ws.key, 'mutation($i: DealCreateInput!) { createDeal(input: $i) { id } }', {
      i: { title: 'x', pipeline_id: pipe.id, value: -1 },
    });
    expect(negative.errors?.[0].extensions).toMatchObject({
      code: 'validation_error',
      details: { value: ['must be 0 or more'] },
    });
    const denied = await gql(
      app.base,
      (await ws.addKey({ scope: 'read_only' })).key,
      'mutation($id: ID!) { deleteDeal(id: $id) { id } }',
      { id: deal.id },
    );
    expect(denied.errors?.[0].extensions?.code).toBe('forbidden');
  });

  it('REST and GraphQL write the same events', async () => {
    const run = async (via: 'rest' | 'graphql') => {
      const contact = await newContact(ws.api, via);
      const champ = await newContact(ws.api, `${via}champ`);
      const call = async (rest: [string, string, unknown?], query: string, variables: Record<string, unknown>) => {
        if (via === 'rest') return (await ws.api(...rest)).body.data;
        const r = await gql(app.base, ws.key, query, variables);
        expect(r.errors).toBeUndefined();
        return Object.values(r.data as object)[0];
      };
      const input = { title: 'Parity', pipeline_id: pipe.id, value: 10, contact_id: contact.id };
      const deal = await call(
        ['POST', '/v1/deals', input],
        'mutation($i: DealCreateInput!) { createDeal(input: $i) { id } }',
        { i: input },
      );
      const upd = { value: 20, status: 'won', won_reason: 'fit' };
      await call(
        ['PUT', `/v1/deals/${deal.id}`, upd],
        'mutation($id: ID!, $i: DealUpdateInput!) { updateDeal(id: $id, input: $i) { id } }',
        { id: deal.id, i: upd },
      );
      const move = { stage_id: pipe.stages[4].id, note: 'done' };
      await call(
        ['PUT', `/v1/deals/${deal.id}/stage`, move],
        'mutation($id: ID!, $i: DealStageMoveInput!) { moveDealStage(id: $id, input: $i) { id } }',
        { id: deal.id, i: move },
      );
      const dc = { contact_id: champ.id, role: 'champion' };
      await call(
        ['POST', `/v1/deals/${deal.id}/contacts`, dc],
        'mutation($id: ID!, $i: DealContactInput!) { addDealContact(dealId: $id, input: $i) { contact_id } }',
        { id: deal.id, i: dc },
      );
      await call(
        ['DELETE', `/v1/deals/${deal.id}/contacts/${champ.id}`],
        'mutation($id: ID!, $c: ID!) { removeDealContact(dealId: $id, contactId: $c) { id } }',
        { id: deal.id, c: champ.id },
      );
      await call(['DELETE', `/v1/deals/${deal.id}`], 'mutation($id: ID!) { deleteDeal(id: $id) { id } }', {
        id: deal.id,
      });
      const ids = new Map([
        [contact.id, 'primary'],
        [champ.id, 'champ'],
      ]);
      return (await eventsOf(deal.id)).map((e) => {
        const data = e.data as Record<string, any>;
        return {
          type: e.type,
          contact: ids.get(e.contactId ?? ''),
          keys: Object.keys(data).sort(),
          dealKeys: Object.keys(data.deal).sort(),
          changes: data.changes ?? null,
        };
      });
    };
    const rest = await run('rest');
    const graphql = await run('graphql');
    expect(rest.map((e) => e.type)).toEqual([
      'deal.created',
      'deal.updated',
      'deal.won',
      'deal.updated',
      'deal.stage_changed',
      'deal.contact_added',
      'deal.contact_removed',
      'deal.deleted',
    ]);
    expect(graphql).toEqual(rest);
  });
});
