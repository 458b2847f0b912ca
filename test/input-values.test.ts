// Bad input is a 400, never a 500 and never silently changed. Tables by class, generated from the
// REST route table: every date field of every body and filter, every list's cursor, and every
// body field, path and query parameter holding text PostgreSQL cannot store.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routes, type RestRoute } from '../src/rest/routes.ts';
import { requestSchema, type JsonSchema } from '../src/rest/openapi/request.ts';
import { client, gql, startTestApp, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';

let app: TestApp;
let ws: TestWorkspace;
/** Ids standing in for each path parameter, by the path segment before it. */
const ids: Record<string, string> = {};
/** A second record of each parent resource, whose sub-lists have their own cursors. */
const others: Record<string, string> = {};

// The tables send thousands of requests: a new key every few hundred keeps them under its rate limit.
let calls = 0;
let key = '';
async function freshKey(): Promise<string> {
  if (calls++ % 300 === 0) key = (await ws.addKey({})).key;
  return key;
}
const api: Client = async (...args) => client(app.base, await freshKey())(...args);
const graphql = async (query: string, variables?: Record<string, unknown>) => gql(app.base, await freshKey(), query, variables);

const ok = async (p: Promise<{ status: number; text: string; body: any }>, status = 201) => {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  return r.body.data;
};

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
  const contacts = [];
  for (const name of ['Ada', 'Grace', 'Linus']) contacts.push(await ok(api('POST', '/v1/contacts', { first_name: name, last_name: 'Test', email: uniqueEmail(name), company: `${name} Co`, tags: ['t'] })));
  const pipeline = (await ok(api('GET', '/v1/pipelines'), 200))[0];
  const second = await ok(api('POST', '/v1/pipelines', { name: 'Second' }));
  const deals = [];
  for (const [i, title] of ['D1', 'D2', 'D3'].entries()) {
    deals.push(await ok(api('POST', '/v1/deals', { title, pipeline_id: pipeline.id, value: 100 + i * 10.5, expected_close_date: `2027-0${i + 1}-15`, contact_id: contacts[0].id })));
  }
  for (const c of contacts.slice(1)) await ok(api('POST', `/v1/deals/${deals[0].id}/contacts`, { contact_id: c.id, role: 'buyer' }));
  for (const [i, priority] of ['low', 'high', 'urgent'].entries()) await ok(api('POST', '/v1/tasks', { title: `T${i}`, priority, due_date: `2027-05-0${i + 1}` }));
  for (let i = 0; i < 3; i++) await ok(api('POST', '/v1/activities', { type: 'call', subject: `A${i}`, contact_id: contacts[0].id, deal_id: deals[0].id }));
  for (let i = 0; i < 3; i++) await ok(api('POST', `/v1/contacts/${contacts[0].id}/notes`, { content: `note ${i}` }));
  for (const name of ['U1', 'U2']) await ws.addUser(name);
  const hooks = [];
  for (let i = 0; i < 2; i++) hooks.push(await ok(api('POST', '/v1/webhooks', { url: `http://127.0.0.1:9/hook${i}`, events: ['contact.created'] })));
  for (let i = 0; i < 3; i++) await api('POST', `/v1/webhooks/${hooks[0].id}/test`);
  Object.assign(ids, { contacts: contacts[0].id, deals: deals[0].id, pipelines: pipeline.id, tasks: '', webhooks: hooks[0].id, users: '' });
  const task = (await ok(api('GET', '/v1/tasks'), 200))[0];
  const user = (await ok(api('GET', '/v1/users'), 200))[0];
  const stage = (await ok(api('GET', `/v1/pipelines/${pipeline.id}/stages`), 200))[0];
  const log = (await ok(api('GET', `/v1/webhooks/${hooks[0].id}/logs`), 200))[0];
  const activity = (await ok(api('GET', '/v1/activities'), 200))[0];
  Object.assign(ids, { tasks: task.id, users: user.id, activities: activity.id, stages: stage.id, logs: log.id });
  // Second parents with two items in each sub-list, so each has a second page.
  for (let i = 0; i < 2; i++) {
    await ok(api('POST', `/v1/contacts/${contacts[1].id}/notes`, { content: `other ${i}` }));
    await ok(api('POST', '/v1/activities', { type: 'call', subject: `B${i}`, contact_id: contacts[1].id, deal_id: deals[1].id }));
    await ok(api('POST', `/v1/deals/${deals[1].id}/contacts`, { contact_id: contacts[i + 1].id, role: 'buyer' }));
    await api('POST', `/v1/webhooks/${hooks[1].id}/test`);
  }
  await ok(api('POST', '/v1/deals', { title: 'D4', pipeline_id: pipeline.id, contact_id: contacts[1].id }));
  Object.assign(others, { contacts: contacts[1].id, deals: deals[1].id, pipelines: second.id, webhooks: hooks[1].id });
});
afterAll(() => app.close());

/** The route's path with real ids of this workspace. */
function pathOf(route: RestRoute, firstParam?: string): string {
  let n = 0;
  return '/v1' + route.path.replace(/\/(\w+)\/:(\w+)/g, (_m, resource: string, param: string) => {
    const key = param === 'stage_id' ? 'stages' : param === 'log_id' ? 'logs' : param === 'contact_id' ? 'contacts' : resource;
    return `/${resource}/${n++ === 0 && firstParam !== undefined ? firstParam : ids[key]}`;
  });
}

const name = (r: RestRoute) => `${r.method} ${r.path}`;

// ---------------------------------------------------------------------------------------------
// Calendar dates

/** Paths (a.b) of the date and date-time properties of a request schema. */
function dateFields(schema: JsonSchema, prefix = ''): string[] {
  const out: string[] = [];
  const visit = (s: JsonSchema, path: string) => {
    if (s.format === 'date' || (typeof s.description === 'string' && s.description.startsWith('ISO 8601 date'))) out.push(path);
    for (const alt of [...((s.anyOf as JsonSchema[]) ?? []), ...((s.oneOf as JsonSchema[]) ?? [])]) visit({ ...alt, description: alt.description ?? s.description }, path);
    for (const [k, v] of Object.entries((s.properties as Record<string, JsonSchema>) ?? {})) visit(v, path ? `${path}.${k}` : k);
  };
  visit(schema, prefix);
  return [...new Set(out)];
}

const bodyDates = routes.flatMap((r) => (r.body ? dateFields(requestSchema(r.body)).map((field) => ({ route: r, field })) : []));
const queryDates = routes.flatMap((r) => (r.query ? dateFields(requestSchema(r.query)).map((field) => ({ route: r, field })) : []));

const IMPOSSIBLE = [
  '2027-02-30', '2027-02-29', '2100-02-29', '2027-04-31', '2027-13-01', '2027-00-10', '2027-01-00',
  '0000-01-01', '-000001-01-01', '+275760-09-14', '275760-09-13', '+010000-01-01',
  '2027-02-30T10:00:00Z', '2027-01-01T24:00:00Z', '2027-01-01T23:60:00Z', '2027-01-01T23:59:60Z', '2027-01-01T10:00:00+24:00', '2027-01-01T10:00:00+05:60',
];

function setPath(target: Record<string, any>, path: string, value: unknown): Record<string, any> {
  const keys = path.split('.');
  let at = target;
  for (const k of keys.slice(0, -1)) at = at[k] ??= {};
  at[keys[keys.length - 1]] = value;
  return target;
}

describe('every date field refuses impossible calendar values', () => {
  it.each(bodyDates.map((d) => [`${name(d.route)} ${d.field}`, d] as const))('date in body %s', async (_n, { route, field }) => {
    for (const value of IMPOSSIBLE) {
      const r = await api(route.method, pathOf(route), setPath({}, field, value));
      expect(r.status, `${field}=${value}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details?.[field], `${field}=${value}: ${r.text}`).toBeDefined();
    }
  });

  it.each(queryDates.map((d) => [`${name(d.route)} ${d.field}`, d] as const))('date in filter %s', async (_n, { route, field }) => {
    for (const value of IMPOSSIBLE) {
      const r = await api('GET', `${pathOf(route)}?${field}=${encodeURIComponent(value)}`);
      expect(r.status, `${field}=${value}: ${r.text}`).toBe(400);
      expect(r.body.error.details?.[field], `${field}=${value}: ${r.text}`).toBeDefined();
    }
  });

  it('GraphQL input objects and filters refuse them too; the tables cover the known fields; real days keep their value', async () => {
    expect(bodyDates.map((d) => `${name(d.route)} ${d.field}`)).toEqual(
      expect.arrayContaining(['POST /tasks due_date', 'PUT /tasks/:id due_date', 'POST /activities occurred_at', 'POST /deals expected_close_date', 'PUT /deals/:id expected_close_date']),
    );
    expect(queryDates.map((d) => `${name(d.route)} ${d.field}`)).toEqual(
      expect.arrayContaining(['GET /contacts created_after', 'GET /contacts created_before', 'GET /contacts updated_after', 'GET /tasks due_before', 'GET /tasks due_after', 'GET /activities date_from', 'GET /deals expected_close_after']),
    );
    for (const [query, variables] of [
      ['mutation ($i: JSONObject!) { createTask(input: $i) { id } }', { i: { title: 'T', due_date: '2027-02-30' } }],
      ['mutation ($i: JSONObject!) { createActivity(input: $i) { id } }', { i: { type: 'call', occurred_at: '2027-02-29T10:00:00Z' } }],
      ['query ($f: JSONObject) { tasks(filter: $f) { total } }', { f: { due_before: '2027-04-31' } }],
      ['query ($f: JSONObject) { contacts(filter: $f) { total } }', { f: { created_after: '0000-01-01' } }],
    ] as const) {
      const r = await graphql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r)).toBe('validation_error');
    }
    const leap = await ok(api('POST', '/v1/tasks', { title: 'Leap', due_date: '2028-02-29' }));
    expect(leap.due_date).toMatch(/^2028-02-29T00:00:00/);
    const offset = await ok(api('POST', '/v1/activities', { type: 'call', occurred_at: '2027-03-01T01:30:00+02:00' }));
    expect(offset.occurred_at).toBe('2027-02-28T23:30:00.000Z');
    const far = await ok(api('POST', '/v1/deals', { title: 'Far', pipeline_id: ids.pipelines, expected_close_date: '9999-12-31' }));
    expect(far.expected_close_date).toMatch(/^9999-12-31/);
  });

  it('custom fields of type date refuse impossible days', async () => {
    await ws.addCustomField('renewal', 'date');
    const bad = await api('POST', '/v1/contacts', { first_name: 'CF', email: uniqueEmail('cf'), custom_fields: { renewal: '2027-02-30' } });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.details['custom_fields.renewal']).toBeDefined();
    const good = await ok(api('POST', '/v1/contacts', { first_name: 'CF', email: uniqueEmail('cf'), custom_fields: { renewal: '2028-02-29' } }));
    expect(good.custom_fields.renewal).toBe('2028-02-29');
  });
});

// ---------------------------------------------------------------------------------------------
// Cursors

const listRoutes = routes.filter((r) => r.list && r.method === 'GET');
/** Sort orders whose cursors carry each kind of value (decimal, int, bigint, nullable date, text). */
const SORTS: Record<string, string[]> = { '/deals': ['value', 'expected_close_date'], '/tasks': ['priority', 'due_date'], '/contacts': ['first_name', '-last_name'], '/users': ['name'], '/pipelines': ['name'] };

type Kind = 'date' | 'integer' | 'decimal' | 'text' | 'offset';
/** What a cursor value is, from its form (deal values are the only decimals: their sort says so). */
function kindOf(v: unknown, sort?: string): Kind {
  if (sort === 'value') return 'decimal';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'decimal';
  if (typeof v === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(v)) return 'date';
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/.test(v)) return v.includes('.') ? 'decimal' : 'integer';
  return 'text';
}

const encode = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const BAD: Record<Kind, unknown[]> = {
  date: ['not a date', '2027-02-30T00:00:00.000Z', '+275760-09-13T00:00:00.000Z', '0000-01-01T00:00:00.000Z', 1e308, '9'.repeat(3000)],
  integer: ['9'.repeat(3000), '1.5', 1.5, 1e308, -1e308, 'abc', '-1e999', 2 ** 53, '92233720368547758070'],
  decimal: ['9'.repeat(3000), 'abc', 1e308, 'NaN', 'Infinity', '1e999'],
  text: ['x\u0000y', '\ud800'],
  offset: [],
};

/** Cursors a client could forge from a real one: each value replaced by what its column cannot hold, a NUL in the id, garbage. */
function tampered(cursor: string, sort?: string): { label: string; cursor: string }[] {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const out = [
    { label: 'not base64 JSON', cursor: '!!!' },
    { label: 'JSON of another shape', cursor: encode({ s: 1 }) },
    { label: '3000 digits', cursor: encode('9'.repeat(3000)) },
  ];
  const parsed = JSON.parse(raw) as { l: string; s: string; v: unknown[]; id: string; o?: number };
  if (parsed.o !== undefined) {
    for (const o of ['9'.repeat(3000), 1e308, -1, 1.5, '1']) out.push({ label: `offset ${String(o).slice(0, 20)}`, cursor: encode({ ...parsed, o }) });
    return out;
  }
  out.push({ label: 'NUL in id', cursor: encode({ ...parsed, id: 'x\u0000' }) }, { label: 'lone surrogate in id', cursor: encode({ ...parsed, id: '\udc00' }) });
  parsed.v.forEach((value, i) => {
    if (value === null) return;
    const kind = kindOf(value, sort);
    for (const bad of BAD[kind]) {
      const v = [...parsed.v];
      v[i] = bad;
      out.push({ label: `${kind} value ${JSON.stringify(bad).slice(0, 30)}`, cursor: encode({ ...parsed, v }) });
    }
  });
  return out;
}

describe('every list refuses tampered cursors with 400', () => {
  const cases = listRoutes.flatMap((r) => [undefined, ...(SORTS[r.path] ?? [])].map((sort) => ({ route: r, sort })));

  it.each(cases.map((c) => [`${name(c.route)}${c.sort ? ` sort=${c.sort}` : ''}`, c] as const))('%s', async (_n, { route, sort }) => {
    const base = `${pathOf(route)}?limit=1${sort ? `&sort=${sort}` : ''}${route.path === '/contacts/search' ? '&q=test' : ''}`;
    const first = await api('GET', base);
    expect(first.status, first.text).toBe(200);
    const cursor = first.body.meta.next_cursor;
    expect(cursor, `${base} needs a second page to test`).toEqual(expect.any(String));
    expect((await api('GET', `${base}&cursor=${cursor}`)).status).toBe(200);
    for (const t of tampered(cursor, sort)) {
      const r = await api('GET', `${base}&cursor=${encodeURIComponent(t.cursor)}`);
      expect(r.status, `${t.label}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
  });

  const firstPage = (route: RestRoute, path = pathOf(route)) => `${path}?limit=1${route.path === '/contacts/search' ? '&q=test' : ''}`;

  it('every list refuses the cursor of every other list, and of the same list under another record', async () => {
    const cursors = new Map<string, string>();
    for (const route of listRoutes) {
      const r = await api('GET', firstPage(route));
      expect(r.body.meta?.next_cursor, `${name(route)}: ${r.text}`).toEqual(expect.any(String));
      cursors.set(name(route), r.body.meta.next_cursor);
    }
    for (const route of listRoutes) {
      for (const [from, cursor] of cursors) {
        if (from === name(route)) continue;
        const r = await api('GET', `${firstPage(route)}&cursor=${cursor}`);
        expect(r.status, `${from} cursor on ${name(route)}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(r.body.error.details?.cursor, r.text).toBeDefined();
      }
      const parent = /^\/(\w+)\/:id\//.exec(route.path)?.[1];
      if (!parent) continue;
      const other = firstPage(route, pathOf(route).replace(ids[parent], others[parent]));
      const own = await api('GET', other);
      expect(own.body.meta?.next_cursor, `${other}: ${own.text}`).toEqual(expect.any(String));
      expect((await api('GET', `${other}&cursor=${own.body.meta.next_cursor}`)).status).toBe(200);
      const r = await api('GET', `${other}&cursor=${cursors.get(name(route))}`);
      expect(r.status, `${name(route)} cursor of ${ids[parent]} on ${others[parent]}: ${r.text}`).toBe(400);
      expect(r.body.error.details?.cursor, r.text).toBeDefined();
    }
  });

  it('cursors of the form issued before they named their list are refused with a clear message', async () => {
    const contacts = await api('GET', '/v1/contacts?limit=1');
    const { l: _list, ...unnamed } = JSON.parse(Buffer.from(contacts.body.meta.next_cursor, 'base64url').toString('utf8'));
    for (const [path, cursor] of [['/v1/contacts?limit=1', encode(unnamed)], ['/v1/contacts/search?q=test&limit=1', encode('o:1')]]) {
      const r = await api('GET', `${path}&cursor=${cursor}`);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.details.cursor[0]).toMatch(/earlier version/);
    }
  });

  it('GraphQL lists refuse another list\'s cursor', async () => {
    const timeline = await graphql(`{ contactTimeline(contactId: "${ids.contacts}", limit: 1) { next_cursor } }`);
    const cursor = timeline.data.contactTimeline.next_cursor as string;
    for (const query of [
      `query ($c: String) { contactNotes(contactId: "${ids.contacts}", limit: 1, cursor: $c) { total } }`,
      `query ($c: String) { contactTimeline(contactId: "${others.contacts}", limit: 1, cursor: $c) { total } }`,
      'query ($c: String) { contacts(limit: 1, cursor: $c) { total } }',
    ]) {
      const r = await graphql(query, { c: cursor });
      expect(r.errors?.[0]?.extensions?.code, `${query}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
  });

  it('GraphQL lists refuse them with a coded error', async () => {
    const first = await graphql('{ contactTimeline(contactId: "' + ids.contacts + '", limit: 1) { next_cursor } }');
    const cursor = first.data.contactTimeline.next_cursor as string;
    for (const t of tampered(cursor)) {
      const r = await graphql('query ($c: String) { contactTimeline(contactId: "' + ids.contacts + '", limit: 1, cursor: $c) { total } }', { c: t.cursor });
      expect(r.errors?.[0]?.extensions?.code, `${t.label}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Text PostgreSQL cannot store: NUL and unpaired surrogates

const UNSTORABLE = ['a\u0000b', 'a\ud800b', '\udfff'];

/** A value of the schema's shape holding `text` somewhere. */
function holding(schema: JsonSchema, text: string): unknown {
  const type = schema.type ?? (schema.anyOf as JsonSchema[] | undefined)?.find((s) => s.type !== 'null')?.type;
  if (type === 'array') return [holding((schema.items as JsonSchema) ?? {}, text)];
  if (type === 'object' && schema.properties) return Object.fromEntries(Object.entries(schema.properties as Record<string, JsonSchema>).slice(0, 1).map(([k, v]) => [k, holding(v, text)]));
  if (type === 'object') return { [`key${text}`]: text };
  return text;
}

const bodyFields = routes.flatMap((r) =>
  r.body ? Object.entries((requestSchema(r.body).properties as Record<string, JsonSchema>) ?? {}).map(([field, schema]) => ({ route: r, field, schema })) : [],
);
const queryFields = routes.flatMap((r) => (r.query ? Object.keys((requestSchema(r.query).properties as Record<string, JsonSchema>) ?? {}).map((field) => ({ route: r, field })) : []));

describe('text that cannot be stored is a 400 validation_error, never a 500', () => {
  it.each(routes.filter((r) => r.body).map((r) => [name(r), r] as const))('in any body field of %s', async (_n, route) => {
    for (const { field, schema } of bodyFields.filter((f) => f.route === route)) for (const text of UNSTORABLE) {
      const r = await api(route.method, pathOf(route), { [field]: holding(schema, text) });
      expect(r.status, `${JSON.stringify(text)}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(Object.keys(r.body.error.details ?? {}).some((k) => k.startsWith(field)), r.text).toBe(true);
    }
  });

  it.each(routes.filter((r) => r.query).map((r) => [name(r), r] as const))('in any filter of %s', async (_n, route) => {
    for (const { field } of queryFields.filter((f) => f.route === route)) {
      const text = 'a\u0000b';
      const r = await api('GET', `${pathOf(route)}?${field}=${encodeURIComponent(text)}`);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
  });

  it.each(routes.filter((r) => r.path.includes(':')).map((r) => [name(r), r] as const))('path parameter %s', async (_n, route) => {
    const path = pathOf(route, 'x%00y');
    const r = await api(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
    expect(r.status, `${path}: ${r.text}`).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
  });

  it('custom field keys and values, tags and search queries; whole characters outside the BMP are kept', async () => {
    const text = 'Zoë 😀 𝔘 — 中文';
    const created = await ok(api('POST', '/v1/contacts', { first_name: text, email: uniqueEmail('emoji'), tags: [text], company: text }));
    const read = await ok(api('GET', `/v1/contacts/${created.id}`), 200);
    expect([read.first_name, read.tags[0], read.company]).toEqual([text, text, text]);
    await ws.addCustomField('note_text', 'text');
    for (const body of [
      { custom_fields: { note_text: 'a\u0000' } },
      { custom_fields: { ['k\u0000']: 'v' } },
      { custom_fields: { note_text: '\ud83d' } },
      { tags: ['vip\u0000'] },
    ]) {
      const r = await api('POST', '/v1/contacts', { first_name: 'N', email: uniqueEmail('nul'), ...body });
      expect(r.status, r.text).toBe(400);
    }
    expect((await api('GET', `/v1/contacts/search?q=${encodeURIComponent('a\u0000')}`)).status).toBe(400);
    expect((await api('GET', `/v1/contacts?tags=${encodeURIComponent('v\u0000')}`)).status).toBe(400);
  });

  it('GraphQL variables and string literals, on every field', async () => {
    for (const [query, variables] of [
      ['mutation ($i: JSONObject!) { createContact(input: $i) { id } }', { i: { first_name: 'a\u0000', email: uniqueEmail('g') } }],
      ['mutation ($i: JSONObject!) { createContact(input: $i) { id } }', { i: { first_name: 'a\ud800', email: uniqueEmail('g') } }],
      ['query ($id: ID!) { contact(id: $id) { id } }', { id: 'con_\u0000' }],
      ['{ contact(id: "con_\\u0000") { id } }', undefined],
      ['query ($q: String!) { searchContacts(q: $q) { total } }', { q: '\ud800' }],
      ['mutation { createContact(input: { first_name: "x\\u0000", email: "nul@example.com" }) { id } }', undefined],
    ] as const) {
      const r = await graphql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, `${query}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
  });

  it('the dashboard sign-in refuses them with 400', async () => {
    const r = await client(app.base)('POST', '/dashboard/api/login', { email: 'a\u0000@example.com', password: 'a long password' });
    expect(r.status, r.text).toBe(400);
  });
});
