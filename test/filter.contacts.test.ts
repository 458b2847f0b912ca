// The filter language on contacts: REST `POST /v1/contacts/query` and GraphQL `where`, the same
// conditions on both, and every kind of bad filter answered with a 400 naming the field.
import { describe, expect } from 'vitest';
import { gql } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

const ids = (r: { body: { data: { id: string }[] } }) => r.body.data.map((c) => c.id).sort();

interface Seeded {
  ada: string;
  bob: string;
  cy: string;
  dee: string;
}
let seeded: Seeded;

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('seats', 'number');
  await ws.addCustomField('plan', 'select', ['free', 'pro']);
  await ws.addCustomField('renewal', 'date');
  const make = async (body: Record<string, unknown>) => {
    const r = await ws.api('POST', '/v1/contacts', body);
    expect(r.status).toBe(201);
    return r.body.data.id as string;
  };
  seeded = {
    ada: await make({
      first_name: 'Ada',
      last_name: 'Lovelace',
      email: 'ada@analytical.example',
      status: 'customer',
      tags: ['vip', 'math'],
      company: 'Analytical 50%_Engines',
      custom_fields: { seats: 12, plan: 'pro', renewal: '2027-03-01' },
    }),
    bob: await make({
      first_name: 'Bob',
      email: 'bob@builder.example',
      status: 'lead',
      tags: ['math'],
      custom_fields: { seats: 3, plan: 'free' },
    }),
    cy: await make({ first_name: 'Cy', last_name: 'Young', email: 'cy@analytical.example', status: 'churned' }),
    dee: await make({ first_name: 'dee', email: 'Dee@Other.example', status: 'lead', tags: ['vip'] }),
  };
});

async function query(ws: { api: (m: string, p: string, b?: unknown) => Promise<any> }, where: unknown, extra = {}) {
  return ws.api('POST', '/v1/contacts/query', { where, limit: 100, ...extra });
}

describe('POST /v1/contacts/query', () => {
  it.for<[string, unknown, (keyof Seeded)[]]>([
    ['a bare value means eq', { status: 'lead' }, ['bob', 'dee']],
    ['in', { status: { in: ['customer', 'churned'] } }, ['ada', 'cy']],
    ['neq keeps others', { status: { neq: 'lead' } }, ['ada', 'cy']],
    ['nin', { status: { nin: ['lead', 'churned'] } }, ['ada']],
    ['email is matched without case', { email: 'DEE@other.example' }, ['dee']],
    ['email prefix', { email: { starts_with: 'ADA@' } }, ['ada']],
    ['contains ignores case', { first_name: { contains: 'D' } }, ['ada', 'dee']],
    ['% and _ mean themselves', { company: { contains: '50%_' } }, ['ada']],
    ['is_null true', { last_name: null }, ['bob', 'dee']],
    ['is_null false', { last_name: { is_null: false } }, ['ada', 'cy']],
    ['neq includes records without a value', { last_name: { neq: 'Young' } }, ['ada', 'bob', 'dee']],
    ['tags contains', { tags: { contains: 'vip' } }, ['ada', 'dee']],
    ['tags in (any of)', { tags: { in: ['math', 'nothing'] } }, ['ada', 'bob']],
    ['tags nin (none of)', { tags: { nin: ['vip'] } }, ['bob', 'cy']],
    ['tags is_null (none)', { tags: { is_null: true } }, ['cy']],
    ['and', { and: [{ status: 'lead' }, { tags: { contains: 'vip' } }] }, ['dee']],
    ['or', { or: [{ status: 'customer' }, { first_name: 'Cy' }] }, ['ada', 'cy']],
    ['not', { not: { status: 'lead' } }, ['ada', 'cy']],
    [
      'nested and/or/not',
      { and: [{ or: [{ status: 'lead' }, { status: 'customer' }] }, { not: { tags: { contains: 'math' } } }] },
      ['dee'],
    ],
    ['custom number range', { 'custom_fields.seats': { gte: 10 } }, ['ada']],
    ['custom number lt', { custom_fields: { seats: { lt: 10 } } }, ['bob']],
    ['custom select in', { 'custom_fields.plan': { in: ['pro', 'free'] } }, ['ada', 'bob']],
    ['custom neq keeps records without it', { 'custom_fields.plan': { neq: 'pro' } }, ['bob', 'cy', 'dee']],
    ['custom is_null', { 'custom_fields.seats': null }, ['cy', 'dee']],
    ['custom date', { 'custom_fields.renewal': { gt: '2027-01-01' } }, ['ada']],
    ['id in', { id: { in: ['x'] } }, []],
    ['an empty in matches nothing', { status: { in: [] } }, []],
    ['an empty filter matches all', {}, ['ada', 'bob', 'cy', 'dee']],
  ])('%s', async ([, where, expected], { ws }) => {
    const r = await query(ws, where);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(ids(r)).toEqual(expected.map((k) => seeded[k]).sort());
  });

  it('created_at ranges see a write at once', async ({ ws }) => {
    const before = new Date(Date.now() - 1000).toISOString();
    const made = await ws.api('POST', '/v1/contacts', { first_name: 'New', email: 'new-range@x.example' });
    const r = await query(ws, { created_at: { gte: before }, email: { starts_with: 'new-range' } });
    expect(ids(r)).toEqual([made.body.data.id]);
  });

  it('pages through every result with the cursor, sorted as asked, with only the fields asked for', async ({ ws }) => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const r = await query(
        ws,
        { email: { contains: 'example' } },
        { limit: 1, sort: 'first_name', fields: ['email'], cursor },
      );
      expect(r.status).toBe(200);
      for (const c of r.body.data) {
        expect(Object.keys(c).sort()).toEqual(['email', 'id']);
        seen.push(c.id);
      }
      cursor = r.body.meta.next_cursor ?? undefined;
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    for (const id of Object.values(seeded)) expect(seen).toContain(id);
  });

  it('sees another workspace’s contacts never', async ({ other }) => {
    const r = await query(other, { email: { contains: 'analytical' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
  });

  it('agrees with the query-string filters it stands for', async ({ ws }) => {
    const listed = await ws.api('GET', '/v1/contacts?status=lead&tags=vip&limit=100');
    const queried = await query(ws, { status: 'lead', tags: { contains: 'vip' } });
    expect(ids(listed)).toEqual(ids(queried));
  });
});

describe('bad filters are a 400 naming the field', () => {
  it.for<[string, unknown, string, RegExp]>([
    ['an unknown field', { shoe_size: 3 }, 'where.shoe_size', /not a field of contacts/],
    ['an unknown operator', { status: { like: 'x' } }, 'where.status.like', /not an operator/],
    [
      'an operator the kind lacks',
      { engagement_score: { contains: '1' } },
      'where.engagement_score.contains',
      /not an operator/,
    ],
    ['a wrong type', { engagement_score: { gt: 'ten' } }, 'where.engagement_score.gt', /integer/],
    ['a bad enum value', { status: { eq: 'vip' } }, 'where.status.eq', /one of/],
    ['a bad date', { created_at: { gt: '2024-02-30' } }, 'where.created_at.gt', /date/],
    ['a list without in', { status: ['lead'] }, 'where.status', /in/],
    ['and not a list', { and: { status: 'lead' } }, 'where.and', /list/],
    ['an unknown custom field', { 'custom_fields.nope': 1 }, 'where.custom_fields.nope', /not a custom field/],
    [
      'a custom field of the wrong type',
      { 'custom_fields.seats': { gt: 'many' } },
      'where.custom_fields.seats.gt',
      /number/,
    ],
    ['a select value not an option', { 'custom_fields.plan': 'gold' }, 'where.custom_fields.plan.eq', /one of/],
    [
      'contains on a number field',
      { 'custom_fields.seats': { contains: '1' } },
      'where.custom_fields.seats.contains',
      /not an operator/,
    ],
    ['two hops', { 'company.contacts.email': 'x' }, 'where.company.contacts.email', /not a field of companies/],
    ['a NUL byte', { first_name: 'a\u0000b' }, 'where.first_name.eq', /control characters|NUL/],
    ['a huge text', { first_name: 'x'.repeat(1001) }, 'where.first_name.eq', /1000/],
    ['where not an object', 'status=lead', 'where', /object/],
  ])('%s', async ([, where, key, message], { ws }) => {
    const r = await query(ws, where);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.success).toBe(false);
    expect(r.body.error.code).toBe('validation_error');
    expect(Object.keys(r.body.error.details)).toContain(key);
    expect(r.body.error.details[key].join(' ')).toMatch(message);
  });

  it('over the limits: depth, conditions, list values', async ({ ws }) => {
    let deep: Record<string, unknown> = { status: 'lead' };
    for (let i = 0; i < 6; i++) deep = { not: deep };
    const tooDeep = await query(ws, deep);
    expect(tooDeep.status).toBe(400);
    expect(JSON.stringify(tooDeep.body.error.details)).toMatch(/deeper than 5/);

    const many = await query(ws, { or: Array.from({ length: 101 }, (_, i) => ({ first_name: `n${i}` })) });
    expect(many.status).toBe(400);
    expect(many.body.error.details.where.join(' ')).toMatch(/100 conditions/);

    const long = await query(ws, { id: { in: Array.from({ length: 1001 }, (_, i) => `id${i}`) } });
    expect(long.status).toBe(400);
    expect(long.body.error.details['where.id.in'].join(' ')).toMatch(/1000/);

    const atLimit = await query(ws, { id: { in: Array.from({ length: 1000 }, (_, i) => `id${i}`) } });
    expect(atLimit.status).toBe(200);
  });

  it.for<[string, unknown]>([
    ['__proto__', { ['__proto__']: { eq: 1 } }],
    ['constructor', { constructor: 1 }],
    ['hasOwnProperty', { hasOwnProperty: 1 }],
    ['toString on a relation', { 'company.toString': 1 }],
    ['valueOf as an operator', { first_name: { valueOf: 'x' } }],
  ])('a built-in object name is no field or operator: %s', async ([, where], { ws }) => {
    // Sent as text: a JSON body is parsed into own keys, whatever their names.
    const r = await ws.api('POST', '/v1/contacts/query', `{"where":${JSON.stringify(where)}}`);
    expect(r.status, r.text).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
  });

  it('every part of a filter counts against its cost, so no filter is slow to plan or run', async ({ ws }) => {
    // Each value of a custom field's in is a test of its own.
    const values = await query(ws, { 'custom_fields.seats': { in: Array.from({ length: 101 }, (_, i) => i) } });
    expect(values.status).toBe(400);
    expect(values.body.error.details.where.join(' ')).toMatch(/costs more than 100/);
    expect((await query(ws, { 'custom_fields.seats': { in: [1, 2, 3, 12] } })).status).toBe(200);
    // Empty filters are not free.
    const empties = await query(ws, { or: Array.from({ length: 20_000 }, () => ({ not: {} })) });
    expect(empties.status).toBe(400);
    // A relation is a join: ten of them at most.
    const joins = await query(ws, {
      or: Array.from({ length: 11 }, (_, i) => ({ 'company.name': { contains: `n${i}` } })),
    });
    expect(joins.status).toBe(400);
    expect((await query(ws, { or: [{ 'company.name': 'x' }, { 'deals.title': 'y' }] })).status).toBe(200);
  });

  it('a custom field matched as text takes % and _ as themselves', async ({ ws }) => {
    const r = await query(ws, { 'custom_fields.plan': { contains: '%' } });
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(ids(await query(ws, { 'custom_fields.plan': { starts_with: 'p_' } }))).toEqual([]);
    expect(ids(await query(ws, { 'custom_fields.plan': { starts_with: 'PR' } }))).toEqual([seeded.ada]);
  });

  it("a filter reaching a related record needs that record's read permission", async ({ ws }) => {
    const key = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const r = await key.api('POST', '/v1/contacts/query', { where: { 'company.industry': { starts_with: 'S' } } });
    expect(r.status).toBe(403);
    expect((await key.api('POST', '/v1/contacts/query', { where: { 'deals.value': { gt: 1 } } })).status).toBe(403);
    expect((await key.api('POST', '/v1/contacts/query', { where: { status: 'lead' } })).status).toBe(200);
  });

  it('refuses a deep filter sent as deeply nested JSON without recursing through it', async ({ ws }) => {
    // 10,000 levels: refused at level 6, answered quickly, no stack overflow.
    const text = '{"where":' + '{"not":'.repeat(10_000) + '{}' + '}'.repeat(10_000) + '}';
    const res = await ws.api('POST', '/v1/contacts/query', text);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toMatch(/validation_error|malformed_request/);
  });

  it('bad paging in the body', async ({ ws }) => {
    expect((await query(ws, {}, { limit: 0 })).status).toBe(400);
    expect((await query(ws, {}, { limit: '10' })).status).toBe(400);
    expect((await query(ws, {}, { sort: 'shoe_size' })).status).toBe(400);
    expect((await query(ws, {}, { sort: 5 })).status).toBe(400);
    expect((await query(ws, {}, { fields: 'shoe_size' })).status).toBe(400);
    expect((await query(ws, {}, { cursor: 'nope' })).status).toBe(400);
  });
});

describe('GraphQL where', () => {
  it('takes the same filter, typed', async ({ app, ws }) => {
    const r = await gql(
      app.base,
      ws.key,
      `query($w: ContactWhere) { contacts(where: $w, limit: 100) { nodes { id } } }`,
      { w: { status: { in: ['lead'] }, tags: { contains: 'vip' }, custom_fields: { seats: { is_null: true } } } },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.contacts.nodes.map((n: { id: string }) => n.id)).toEqual([seeded.dee]);
  });

  it('answers a bad filter with the same details in extensions', async ({ app, ws }) => {
    const r = await gql(
      app.base,
      ws.key,
      `{ contacts(where: { custom_fields: { seats: { gt: "x" } } }) { nodes { id } } }`,
    );
    expect(r.errors?.[0]?.extensions?.code).toBe('validation_error');
    expect(r.errors?.[0]?.extensions?.details?.['where.custom_fields.seats.gt']).toBeDefined();
  });

  it('refuses an unknown field before running', async ({ app, ws }) => {
    const r = await gql(app.base, ws.key, `{ contacts(where: { shoe_size: { eq: 1 } }) { nodes { id } } }`);
    expect(r.errors?.[0]?.message).toMatch(/shoe_size/);
  });
});
