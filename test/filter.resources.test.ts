// The filter language on deals, tasks and activities: one-hop relations, decimals and dates, the
// SQL-listed tasks, and GraphQL `where` with the same meaning as REST.
import { describe, expect } from 'vitest';
import { gql } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((c) => c.id).sort();

const made: Record<string, string> = {};

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('region', 'text');
  const post = async (path: string, body: Record<string, unknown>) => {
    const r = await ws.api('POST', path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.data.id as string;
  };
  const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  made.acme = await post('/v1/companies', { name: 'Acme', domain: 'acme.example', size: 500, industry: 'retail' });
  made.tiny = await post('/v1/companies', { name: 'Tiny', domain: 'tiny.example', size: 3 });
  made.ann = await post('/v1/contacts', {
    first_name: 'Ann',
    email: 'ann@acme.example',
    status: 'customer',
    company_id: made.acme,
  });
  made.ben = await post('/v1/contacts', { first_name: 'Ben', email: 'ben@other.example', status: 'lead' });
  made.big = await post('/v1/deals', {
    title: 'Big',
    pipeline_id: pipeline.id,
    value: 50000.5,
    contact_id: made.ann,
    company_id: made.acme,
    expected_close_date: '2031-06-30',
    custom_fields: { region: 'EMEA' },
  });
  made.small = await post('/v1/deals', { title: 'Small', pipeline_id: pipeline.id, value: 10, contact_id: made.ben });
  made.none = await post('/v1/deals', { title: 'No value', pipeline_id: pipeline.id });
  made.call = await post('/v1/tasks', {
    title: 'Call Ann',
    type: 'call',
    priority: 'high',
    due_date: '2031-01-01T09:00:00Z',
  });
  made.mail = await post('/v1/tasks', { title: 'Mail Ben', type: 'email', priority: 'low' });
  made.met = await post('/v1/activities', {
    type: 'meeting',
    subject: 'Kick-off',
    contact_id: made.ann,
    deal_id: made.big,
    duration: 60,
  });
  made.rang = await post('/v1/activities', { type: 'call', subject: 'Cold call', contact_id: made.ben, duration: 5 });
});

describe('deals', () => {
  it.for<[string, unknown, string[]]>([
    ['decimal range', { value: { gte: 10000 } }, ['big']],
    ['decimal is_null', { value: null }, ['none']],
    ['a calendar date', { expected_close_date: { lte: '2031-12-31' } }, ['big']],
    ['one hop to the contact', { 'contact.email': { starts_with: 'ann@' } }, ['big']],
    ['one hop, typed enum', { contact: { status: { in: ['lead'] } } }, ['small']],
    ['not over a relation', { not: { 'contact.status': 'customer' } }, ['small', 'none']],
    ['a custom field', { 'custom_fields.region': { contains: 'em' } }, ['big']],
    ['text contains', { title: { contains: 'value' } }, ['none']],
  ])('%s', async ([, where, expected], { ws }) => {
    const r = await ws.api('POST', '/v1/deals/query', { where, limit: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r)).toEqual(expected.map((k) => made[k]).sort());
  });

  it('contacts filtered by their deals (a list relation: any deal matches)', async ({ ws }) => {
    const r = await ws.api('POST', '/v1/contacts/query', { where: { 'deals.value': { gt: 1000 } } });
    expect(ids(r)).toEqual([made.ann]);
  });

  it('a bad calendar date and a relation field that does not exist', async ({ ws }) => {
    const bad = await ws.api('POST', '/v1/deals/query', { where: { expected_close_date: { gt: '2031-02-30' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details['where.expected_close_date.gt']).toBeDefined();
    const unknown = await ws.api('POST', '/v1/deals/query', { where: { 'contact.shoe': 1 } });
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.error.details)).toEqual(['where.contact.shoe']);
  });
});

describe('companies', () => {
  it.for<[string, unknown, string[]]>([
    ['int range', { size: { gte: 100 } }, ['acme']],
    ['domain, any case', { domain: 'ACME.example' }, ['acme']],
    ['one hop to its deals (any deal)', { 'deals.value': { gt: 1000 } }, ['acme']],
    ['none of its contacts is a customer', { not: { 'contacts.status': 'customer' } }, ['tiny']],
    ['is_null on a text field', { industry: null }, ['tiny']],
  ])('%s', async ([, where, expected], { ws }) => {
    const r = await ws.api('POST', '/v1/companies/query', { where, limit: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r)).toEqual(expected.map((k) => made[k]).sort());
  });

  it('contacts and deals through their company, on both surfaces', async ({ app, ws }) => {
    const contacts = await ws.api('POST', '/v1/contacts/query', { where: { 'company.domain': 'acme.example' } });
    expect(ids(contacts)).toEqual([made.ann]);
    const deals = await ws.api('POST', '/v1/deals/query', { where: { 'company.size': { gt: 100 } } });
    expect(ids(deals)).toEqual([made.big]);
    const r = await gql(
      app.base,
      ws.key,
      `{ contacts(where: { company_record: { size: { gt: 100 } } }) { nodes { id } } }`,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.contacts.nodes.map((n: { id: string }) => n.id)).toEqual([made.ann]);
  });
});

describe('tasks (listed in SQL)', () => {
  it.for<[string, unknown, string[]]>([
    ['enum in', { priority: { in: ['high', 'urgent'] } }, ['call']],
    ['due date range', { due_date: { gte: '2030-12-31' } }, ['call']],
    ['is_null', { due_date: { is_null: true } }, ['mail']],
    ['neq', { type: { neq: 'call' } }, ['mail']],
    ['contains ignores case', { title: { contains: 'BEN' } }, ['mail']],
    ['or', { or: [{ type: 'call' }, { priority: 'low' }] }, ['call', 'mail']],
    ['not', { not: { type: 'call' } }, ['mail']],
    ['nin empty keeps all', { status: { nin: [] } }, ['call', 'mail']],
  ])('%s', async ([, where, expected], { ws }) => {
    const r = await ws.api('POST', '/v1/tasks/query', { where, sort: '-priority', limit: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r)).toEqual(expected.map((k) => made[k]).sort());
  });

  it('GraphQL where on tasks', async ({ app, ws }) => {
    const r = await gql(app.base, ws.key, `{ tasks(where: { priority: { eq: low } }) { nodes { id } } }`);
    expect(r.errors).toBeUndefined();
    expect(r.data.tasks.nodes.map((n: { id: string }) => n.id)).toEqual([made.mail]);
  });
});

describe('activities', () => {
  it.for<[string, unknown, string[]]>([
    ['int range', { duration: { gt: 30 } }, ['met']],
    ['one hop to the deal', { 'deal.title': 'Big' }, ['met']],
    ['one hop to the contact', { 'contact.email': { contains: 'other' } }, ['rang']],
    ['enum', { type: 'call' }, ['rang']],
  ])('%s', async ([, where, expected], { ws }) => {
    const r = await ws.api('POST', '/v1/activities/query', { where, limit: 100 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r)).toEqual(expected.map((k) => made[k]).sort());
  });
});

describe('keys and workspaces', () => {
  it('a key that may not read deals cannot query them', async ({ ws }) => {
    const key = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    expect((await key.api('POST', '/v1/deals/query', { where: {} })).status).toBe(403);
    expect((await key.api('POST', '/v1/contacts/query', { where: {} })).status).toBe(200);
  });

  it('another workspace filters its own records only', async ({ other }) => {
    const r = await other.api('POST', '/v1/deals/query', { where: { title: 'Big' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
  });
});
