// Bad input is a 400, never a 500 and never silently changed. Tables by class, generated from the
// REST route table: every date field of every body and filter, every list's cursor, and every
// body field, path and query parameter holding text PostgreSQL cannot store.
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { routes, type RestRoute } from '../src/rest/routes.ts';
import { requestSchema, type JsonSchema } from '../src/rest/openapi/request.ts';
import { client, gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

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
const graphql = async (query: string, variables?: Record<string, unknown>) =>
  gql(app.base, await freshKey(), query, variables);

const ok = async (p: Promise<{ status: number; text: string; body: any }>, status = 201) => {
  const r = await p;
  expect(r.status, r.text).toBe(status);
  return r.body.data;
};

test.beforeAll(async ({ app: started, ws: main }) => {
  app = started;
  ws = main;
  const contacts = [];
  for (const name of ['Ada', 'Grace', 'Linus'])
    contacts.push(
      await ok(
        api('POST', '/v1/contacts', {
          first_name: name,
          last_name: 'Test',
          email: uniqueEmail(name),
          company: `${name} Co`,
          tags: ['t'],
        }),
      ),
    );
  const pipeline = (await ok(api('GET', '/v1/pipelines'), 200))[0];
  const second = await ok(api('POST', '/v1/pipelines', { name: 'Second' }));
  const deals = [];
  for (const [i, title] of ['D1', 'D2', 'D3'].entries()) {
    deals.push(
      await ok(
        api('POST', '/v1/deals', {
          title,
          pipeline_id: pipeline.id,
          value: 100 + i * 10.5,
          expected_close_date: `2027-0${i + 1}-15`,
          contact_id: contacts[0].id,
        }),
      ),
    );
  }
  for (const c of contacts.slice(1))
    await ok(api('POST', `/v1/deals/${deals[0].id}/contacts`, { contact_id: c.id, role: 'buyer' }));
  for (const [i, priority] of ['low', 'high', 'urgent'].entries())
    await ok(api('POST', '/v1/tasks', { title: `T${i}`, priority, due_date: `2027-05-0${i + 1}` }));
  for (let i = 0; i < 3; i++)
    await ok(
      api('POST', '/v1/activities', {
        type: 'call',
        subject: `A${i}`,
        contact_id: contacts[0].id,
        deal_id: deals[0].id,
      }),
    );
  for (let i = 0; i < 3; i++) await ok(api('POST', `/v1/contacts/${contacts[0].id}/notes`, { content: `note ${i}` }));
  for (const name of ['U1', 'U2']) await ws.addUser(name);
  const hooks = [];
  for (let i = 0; i < 2; i++)
    hooks.push(
      await ok(api('POST', '/v1/webhooks', { url: `http://127.0.0.1:9/hook${i}`, events: ['contact.created'] })),
    );
  for (let i = 0; i < 3; i++) await api('POST', `/v1/webhooks/${hooks[0].id}/test`);
  // Two import jobs (queued: no runner here), for a second page of GET /v1/imports.
  for (let i = 0; i < 2; i++) {
    const form = new FormData();
    form.append('resource', 'contacts');
    form.append('file', new Blob([`first_name,email\nImp${i},${uniqueEmail('imp')}\n`]));
    await ok(api('POST', '/v1/imports', form), 202);
  }
  Object.assign(ids, {
    contacts: contacts[0].id,
    deals: deals[0].id,
    pipelines: pipeline.id,
    tasks: '',
    webhooks: hooks[0].id,
    users: '',
  });
  const task = (await ok(api('GET', '/v1/tasks'), 200))[0];
  const user = (await ok(api('GET', '/v1/users'), 200))[0];
  const stage = (await ok(api('GET', `/v1/pipelines/${pipeline.id}/stages`), 200))[0];
  const log = (await ok(api('GET', `/v1/webhooks/${hooks[0].id}/logs`), 200))[0];
  const activity = (await ok(api('GET', '/v1/activities'), 200))[0];
  Object.assign(ids, { tasks: task.id, users: user.id, activities: activity.id, stages: stage.id, logs: log.id });
  // Second parents with two items in each sub-list, so each has a second page.
  for (let i = 0; i < 2; i++) {
    await ok(api('POST', `/v1/contacts/${contacts[1].id}/notes`, { content: `other ${i}` }));
    await ok(
      api('POST', '/v1/activities', {
        type: 'call',
        subject: `B${i}`,
        contact_id: contacts[1].id,
        deal_id: deals[1].id,
      }),
    );
    await ok(api('POST', `/v1/deals/${deals[1].id}/contacts`, { contact_id: contacts[i + 1].id, role: 'buyer' }));
    await api('POST', `/v1/webhooks/${hooks[1].id}/test`);
  }
  await ok(api('POST', '/v1/deals', { title: 'D4', pipeline_id: pipeline.id, contact_id: contacts[1].id }));
  // Companies, each with two contacts and two deals (so its lists and its timeline have a second page).
  const companies = [];
  for (const name of ['Test One', 'Test Two', 'Test Three']) {
    const company = await ok(
      api('POST', '/v1/companies', { name, domain: `${uniqueEmail('co').split('@')[0]}.example` }),
    );
    companies.push(company);
    for (let i = 0; i < 2; i++) {
      await ok(
        api('POST', '/v1/contacts', { first_name: `${name} ${i}`, email: uniqueEmail('co'), company_id: company.id }),
      );
      await ok(
        api('POST', '/v1/deals', { title: `${name} deal ${i}`, pipeline_id: pipeline.id, company_id: company.id }),
      );
      await ok(api('POST', `/v1/companies/${company.id}/notes`, { content: `${name} note ${i}` }));
      await ok(api('POST', '/v1/activities', { type: 'meeting', subject: `${name} ${i}`, company_id: company.id }));
    }
  }
  Object.assign(ids, { companies: companies[0].id });
  Object.assign(others, {
    contacts: contacts[1].id,
    deals: deals[1].id,
    pipelines: second.id,
    webhooks: hooks[1].id,
    companies: companies[1].id,
  });
});

/** Searches need their `q`. */
const SEARCHES = new Set(['/contacts/search', '/companies/search']);

/** The route's path with real ids of this workspace. */
function pathOf(route: RestRoute, firstParam?: string): string {
  let n = 0;
  return (
    '/v1' +
    route.path.replace(/\/(\w+)\/:(\w+)/g, (_m, resource: string, param: string) => {
      const key =
        param === 'stage_id' ? 'stages' : param === 'log_id' ? 'logs' : param === 'contact_id' ? 'contacts' : resource;
      return `/${resource}/${n++ === 0 && firstParam !== undefined ? firstParam : ids[key]}`;
    })
  );
}

const name = (r: RestRoute) => `${r.method} ${r.path}`;

// ---------------------------------------------------------------------------------------------
// Calendar dates

/** Paths (a.b) of the date and date-time properties of a request schema. */
function dateFields(schema: JsonSchema, prefix = ''): string[] {
  const out: string[] = [];
  const visit = (s: JsonSchema, path: string) => {
    if (s.format === 'date' || (typeof s.description === 'string' && s.description.startsWith('ISO 8601 date')))
      out.push(path);
    for (const alt of [...((s.anyOf as JsonSchema[]) ?? []), ...((s.oneOf as JsonSchema[]) ?? [])])
      visit({ ...alt, description: alt.description ?? s.description }, path);
    for (const [k, v] of Object.entries((s.properties as Record<string, JsonSchema>) ?? {}))
      visit(v, path ? `${path}.${k}` : k);
  };
  visit(schema, prefix);
  return [...new Set(out)];
}

const bodyDates = routes.flatMap((r) =>
  r.body ? dateFields(requestSchema(r.body)).map((field) => ({ route: r, field })) : [],
);
const queryDates = routes.flatMap((r) =>
  r.query ? dateFields(requestSchema(r.query)).map((field) => ({ route: r, field })) : [],
);

const IMPOSSIBLE = [
  '2027-02-30',
  '2027-02-29',
  '2100-02-29',
  '2027-04-31',
  '2027-13-01',
  '2027-00-10',
  '2027-01-00',
  '0000-01-01',
  '-000001-01-01',
  '+275760-09-14',
  '275760-09-13',
  '+010000-01-01',
  '2027-02-30T10:00:00Z',
  '2027-01-01T24:00:00Z',
  '2027-01-01T23:60:00Z',
  '2027-01-01T23:59:60Z',
  '2027-01-01T10:00:00+24:00',
  '2027-01-01T10:00:00+05:60',
];

function setPath(target: Record<string, any>, path: string, value: unknown): Record<string, any> {
  const keys = path.split('.');
  let at = target;
  for (const k of keys.slice(0, -1)) at = at[k] ??= {};
  at[keys[keys.length - 1]] = value;
  return target;
}

describe('every date field refuses impossible calendar values', () => {
  it.each(bodyDates.map((d) => [`${name(d.route)} ${d.field}`, d] as const))(
    'date in body %s',
    async (_n, { route, field }) => {
      for (const value of IMPOSSIBLE) {
        const r = await api(route.method, pathOf(route), setPath({}, field, value));
        expect(r.status, `${field}=${value}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(r.body.error.details?.[field], `${field}=${value}: ${r.text}`).toBeDefined();
      }
    },
  );

  it.each(queryDates.map((d) => [`${name(d.route)} ${d.field}`, d] as const))(
    'date in filter %s',
    async (_n, { route, field }) => {
      for (const value of IMPOSSIBLE) {
        const r = await api('GET', `${pathOf(route)}?${field}=${encodeURIComponent(value)}`);
        expect(r.status, `${field}=${value}: ${r.text}`).toBe(400);
        expect(r.body.error.details?.[field], `${field}=${value}: ${r.text}`).toBeDefined();
      }
    },
  );

  it('GraphQL inputs and filters too; the tables cover the known fields; real days keep their value', async () => {
    expect(bodyDates.map((d) => `${name(d.route)} ${d.field}`)).toEqual(
      expect.arrayContaining([
        'POST /tasks due_date',
        'PUT /tasks/:id due_date',
        'POST /activities occurred_at',
        'POST /deals expected_close_date',
        'PUT /deals/:id expected_close_date',
      ]),
    );
    expect(queryDates.map((d) => `${name(d.route)} ${d.field}`)).toEqual(
      expect.arrayContaining([
        'GET /contacts created_after',
        'GET /contacts created_before',
        'GET /contacts updated_after',
        'GET /tasks due_before',
        'GET /tasks due_after',
        'GET /activities date_from',
        'GET /deals expected_close_after',
      ]),
    );
    for (const [query, variables] of [
      [
        'mutation ($i: TaskCreateInput!) { createTask(input: $i) { id } }',
        { i: { title: 'T', due_date: '2027-02-30' } },
      ],
      [
        'mutation ($i: ActivityCreateInput!) { createActivity(input: $i) { id } }',
        { i: { type: 'call', occurred_at: '2027-02-29T10:00:00Z' } },
      ],
      ['query ($f: TaskFilter) { tasks(filter: $f) { total } }', { f: { due_before: '2027-04-31' } }],
      ['query ($f: ContactFilter) { contacts(filter: $f) { total } }', { f: { created_after: '0000-01-01' } }],
    ] as const) {
      const r = await graphql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, JSON.stringify(r)).toBe('validation_error');
    }
    const leap = await ok(api('POST', '/v1/tasks', { title: 'Leap', due_date: '2028-02-29' }));
    expect(leap.due_date).toMatch(/^2028-02-29T00:00:00/);
    const offset = await ok(api('POST', '/v1/activities', { type: 'call', occurred_at: '2027-03-01T01:30:00+02:00' }));
    expect(offset.occurred_at).toBe('2027-02-28T23:30:00.000Z');
    const far = await ok(
      api('POST', '/v1/deals', { title: 'Far', pipeline_id: ids.pipelines, expected_close_date: '9999-12-31' }),
    );
    expect(far.expected_close_date).toMatch(/^9999-12-31/);
  });

  it('custom fields of type date refuse impossible days', async () => {
    await ws.addCustomField('renewal', 'date');
    const bad = await api('POST', '/v1/contacts', {
      first_name: 'CF',
      email: uniqueEmail('cf'),
      custom_fields: { renewal: '2027-02-30' },
    });
    expect(bad.status, bad.text).toBe(400);
    expect(bad.body.error.details['custom_fields.renewal']).toBeDefined();
    const good = await ok(
      api('POST', '/v1/contacts', {
        first_name: 'CF',
        email: uniqueEmail('cf'),
        custom_fields: { renewal: '2028-02-29' },
      }),
    );
    expect(good.custom_fields.renewal).toBe('2028-02-29');
  });
});

// ---------------------------------------------------------------------------------------------
// Cursors

const listRoutes = routes.filter((r) => r.list && r.method === 'GET');
/** Sort orders whose cursors carry each kind of value (decimal, int, bigint, nullable date, text). */
const SORTS: Record<string, string[]> = {
  '/deals': ['value', 'expected_close_date'],
  '/tasks': ['priority', 'due_date'],
  '/contacts': ['first_name', '-last_name'],
  '/users': ['name'],
  '/pipelines': ['name'],
};

/** Sorts whose first key is a column that may hold nulls (a cursor may carry null for it). */
const NULLABLE_SORTS = /^-?(last_name|company|value|expected_close_date|due_date)$/;

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
  date: [
    'not a date',
    '2027-02-30T00:00:00.000Z',
    '+275760-09-13T00:00:00.000Z',
    '0000-01-01T00:00:00.000Z',
    1e308,
    '9'.repeat(3000),
  ],
  integer: ['9'.repeat(3000), '1.5', 1.5, 1e308, -1e308, 'abc', '-1e999', 2 ** 53, '92233720368547758070'],
  decimal: ['9'.repeat(3000), 'abc', 1e308, 'NaN', 'Infinity', '1e999'],
  text: ['x\u0000y', '\ud800'],
  offset: [],
};

/**
 * Cursors a client could forge from a real one: each value replaced
 * by what its column cannot hold, a NUL in the id, garbage.
 */
function tampered(cursor: string, sort?: string): { label: string; cursor: string }[] {
  const raw = Buffer.from(cursor, 'base64url').toString('utf8');
  const out = [
    { label: 'not base64 JSON', cursor: '!!!' },
    { label: 'JSON of another shape', cursor: encode({ s: 1 }) },
    { label: '3000 digits', cursor: encode('9'.repeat(3000)) },
  ];
  const parsed = JSON.parse(raw) as { l: string; s: string; v: unknown[]; id: string; o?: number };
  if (parsed.o !== undefined) {
    for (const o of ['9'.repeat(3000), 1e308, -1, 1.5, '1'])
      out.push({ label: `offset ${String(o).slice(0, 20)}`, cursor: encode({ ...parsed, o }) });
    return out;
  }
  out.push(
    { label: 'NUL in id', cursor: encode({ ...parsed, id: 'x\u0000' }) },
    { label: 'lone surrogate in id', cursor: encode({ ...parsed, id: '\udc00' }) },
  );
  parsed.v.forEach((value, i) => {
    if (value === null) return;
    // A null where the column holds none (the sort's first key may be a nullable column).
    if (!(i === 0 && sort && NULLABLE_SORTS.test(sort))) {
      const v = [...parsed.v];
      v[i] = null;
      out.push({ label: 'null for a column that holds no nulls', cursor: encode({ ...parsed, v }) });
    }
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

  it.each(cases.map((c) => [`${name(c.route)}${c.sort ? ` sort=${c.sort}` : ''}`, c] as const))(
    '%s',
    async (_n, { route, sort }) => {
      const search = SEARCHES.has(route.path) ? '&q=test' : '';
      const base = `${pathOf(route)}?limit=1${sort ? `&sort=${sort}` : ''}${search}`;
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
    },
  );

  const firstPage = (route: RestRoute, path = pathOf(route)) =>
    `${path}?limit=1${SEARCHES.has(route.path) ? '&q=test' : ''}`;

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
    const { l: _list, ...unnamed } = JSON.parse(
      Buffer.from(contacts.body.meta.next_cursor, 'base64url').toString('utf8'),
    );
    for (const [path, cursor] of [
      ['/v1/contacts?limit=1', encode(unnamed)],
      ['/v1/contacts/search?q=test&limit=1', encode('o:1')],
    ]) {
      const r = await api('GET', `${path}&cursor=${cursor}`);
      expect(r.status, r.text).toBe(400);
      expect(r.body.error.details.cursor[0]).toMatch(/earlier version/);
    }
  });

  it("GraphQL lists refuse another list's cursor", async () => {
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
      const r = await graphql(
        'query ($c: String) { contactTimeline(contactId: "' + ids.contacts + '", limit: 1, cursor: $c) { total } }',
        { c: t.cursor },
      );
      expect(r.errors?.[0]?.extensions?.code, `${t.label}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Text the service does not store: NUL, the other C0 control characters but tab, line feed and
// carriage return, DEL, and unpaired surrogates

const UNSTORABLE = [
  'a\u0000b',
  'a\ud800b',
  '\udfff',
  'a\u0001b',
  '\u0008',
  'a\u000bb',
  '\u000c',
  'x\u001b[31m',
  '\u001f',
  'a\u007fb',
];

/** A value of the schema's shape holding `text` somewhere. */
function holding(schema: JsonSchema, text: string): unknown {
  const type = schema.type ?? (schema.anyOf as JsonSchema[] | undefined)?.find((s) => s.type !== 'null')?.type;
  if (type === 'array') return [holding((schema.items as JsonSchema) ?? {}, text)];
  if (type === 'object' && schema.properties)
    return Object.fromEntries(
      Object.entries(schema.properties as Record<string, JsonSchema>)
        .slice(0, 1)
        .map(([k, v]) => [k, holding(v, text)]),
    );
  if (type === 'object') return { [`key${text}`]: text };
  return text;
}

const bodyFields = routes.flatMap((r) =>
  r.body
    ? Object.entries((requestSchema(r.body).properties as Record<string, JsonSchema>) ?? {}).map(([field, schema]) => ({
        route: r,
        field,
        schema,
      }))
    : [],
);
const queryFields = routes.flatMap((r) =>
  r.query
    ? Object.keys((requestSchema(r.query).properties as Record<string, JsonSchema>) ?? {}).map((field) => ({
        route: r,
        field,
      }))
    : [],
);

describe('text that cannot be stored is a 400 validation_error, never a 500', () => {
  it.each(routes.filter((r) => r.body).map((r) => [name(r), r] as const))(
    'in any body field of %s',
    async (_n, route) => {
      for (const { field, schema } of bodyFields.filter((f) => f.route === route))
        for (const text of UNSTORABLE) {
          const r = await api(route.method, pathOf(route), { [field]: holding(schema, text) });
          expect(r.status, `${JSON.stringify(text)}: ${r.text}`).toBe(400);
          expect(r.body.error.code).toBe('validation_error');
          expect(
            Object.keys(r.body.error.details ?? {}).some((k) => k.startsWith(field)),
            r.text,
          ).toBe(true);
        }
    },
  );

  it.each(routes.filter((r) => r.query).map((r) => [name(r), r] as const))('in any filter of %s', async (_n, route) => {
    for (const { field } of queryFields.filter((f) => f.route === route))
      for (const text of ['a\u0000b', 'a\u0001b', '\u001f', '\u007f']) {
        const r = await api('GET', `${pathOf(route)}?${field}=${encodeURIComponent(text)}`);
        expect(r.status, `${field}=${JSON.stringify(text)}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
      }
  });

  it.each(routes.filter((r) => r.path.includes(':')).map((r) => [name(r), r] as const))(
    'path parameter %s',
    async (_n, route) => {
      const path = pathOf(route, 'x%00y');
      const r = await api(route.method, path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {});
      expect(r.status, `${path}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    },
  );

  it('custom field keys and values, tags and search queries; whole characters outside the BMP are kept', async () => {
    const text = 'Zoë 😀 𝔘 — 中文';
    const created = await ok(
      api('POST', '/v1/contacts', { first_name: text, email: uniqueEmail('emoji'), tags: [text], company: text }),
    );
    const read = await ok(api('GET', `/v1/contacts/${created.id}`), 200);
    expect([read.first_name, read.tags[0], read.company]).toEqual([text, text, text]);
    await ws.addCustomField('note_text', 'text');
    for (const body of [
      { custom_fields: { note_text: 'a\u0000' } },
      { custom_fields: { 'k\u0000': 'v' } },
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
      [
        'mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }',
        { i: { first_name: 'a\u0000', email: uniqueEmail('g') } },
      ],
      [
        'mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }',
        { i: { first_name: 'a\ud800', email: uniqueEmail('g') } },
      ],
      ['query ($id: ID!) { contact(id: $id) { id } }', { id: 'con_\u0000' }],
      ['{ contact(id: "con_\\u0000") { id } }', undefined],
      ['query ($q: String!) { searchContacts(q: $q) { total } }', { q: '\ud800' }],
      ['mutation { createContact(input: { first_name: "x\\u0000", email: "nul@example.com" }) { id } }', undefined],
      [
        'mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }',
        { i: { first_name: 'a\u0001', email: uniqueEmail('g') } },
      ],
      [
        'mutation ($i: NoteCreateInput!) { createNote(contactId: "' + ids.contacts + '", input: $i) { id } }',
        { i: { content: '\u001b'.repeat(1000) } },
      ],
      ['mutation { createContact(input: { first_name: "x\\u001f", email: "c0@example.com" }) { id } }', undefined],
      ['mutation { createContact(input: { first_name: "x\\u007f", email: "del@example.com" }) { id } }', undefined],
    ] as const) {
      const r = await graphql(query, variables);
      expect(r.errors?.[0]?.extensions?.code, `${query}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
  });

  it('the dashboard sign-in refuses them with 400', async () => {
    for (const email of ['a\u0000@example.com', 'a\u0001@example.com', 'a\u007f@example.com']) {
      const r = await client(app.base)('POST', '/dashboard/api/login', { email, password: 'a long password' });
      expect(r.status, r.text).toBe(400);
    }
  });

  it('tab, line feed and carriage return are kept, as are characters past DEL', async () => {
    const content = 'line one\r\n\tindented\nnon-breaking\u00a0space \u0085';
    const note = await ok(api('POST', `/v1/contacts/${ids.contacts}/notes`, { content }));
    expect(note.content).toBe(content);
  });
});

// ---------------------------------------------------------------------------------------------
// Bytes that are not UTF-8: refused, never decoded to U+FFFD

/**
 * Byte sequences no UTF-8 decoder may accept: a stray byte, a
 * surrogate, an overlong NUL, a cut character, past U+10FFFF.
 */
const NOT_UTF8 = [[0xff], [0xed, 0xa0, 0x80], [0xc0, 0x80], [0xe2, 0x82], [0xf4, 0x90, 0x80, 0x80]];
const percent = (bytes: number[]) => bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
const bytesOf = (...parts: (string | number[])[]) =>
  Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));

/** Sends `body` bytes as they are. */
async function sendBytes(method: string, path: string, body: Buffer, headers: Record<string, string> = {}) {
  const r = await fetch(app.base + path, {
    method,
    body: new Uint8Array(body),
    headers: { authorization: `Bearer ${await freshKey()}`, 'content-type': 'application/json', ...headers },
  });
  const text = await r.text();
  return { status: r.status, text, body: JSON.parse(text) };
}

const firstField = (route: RestRoute) => bodyFields.find((f) => f.route === route)!.field;

describe('bytes that are not UTF-8 are a 400, never stored or searched for as U+FFFD', () => {
  it.each(routes.filter((r) => r.body).map((r) => [name(r), r] as const))('in the body of %s', async (_n, route) => {
    for (const bad of NOT_UTF8) {
      for (const body of [bytesOf(`{"${firstField(route)}":"Raw`, bad, 'Byte"}'), bytesOf('{"', bad, '":"x"}')]) {
        const r = await sendBytes(route.method, pathOf(route), body);
        expect(r.status, `${percent(bad)}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe('malformed_request');
      }
    }
  });

  it.each(routes.filter((r) => r.method === 'GET' && (r.query || r.list)).map((r) => [name(r), r] as const))(
    'in the query string of %s',
    async (_n, route) => {
      const params = [
        ...queryFields.filter((f) => f.route === route).map((f) => f.field),
        ...(route.list ? ['cursor', 'sort'] : []),
        ...(route.fields ? ['fields'] : []),
      ];
      for (const param of params)
        for (const bad of NOT_UTF8) {
          const r = await api('GET', `${pathOf(route)}?${param}=Rep${percent(bad)}lace`);
          expect(r.status, `${param}=${percent(bad)}: ${r.text}`).toBe(400);
          expect(r.body.error.code).toBe('validation_error');
          expect(r.body.error.details?.[param], r.text).toBeDefined();
        }
      const named = await api('GET', `${pathOf(route)}?Rep%FFlace=1`);
      expect(named.status, named.text).toBe(400);
    },
  );

  it('/graphql bodies (string literals and variables) and query strings, and the dashboard sign-in', async () => {
    for (const bad of NOT_UTF8) {
      for (const body of [
        bytesOf('{"query":"{ searchContacts(q: \\"Rep', bad, 'lace\\") { total } }"}'),
        bytesOf(
          '{"query":"query ($q: String!) { searchContacts(q: $q) { total } }","variables":{"q":"Rep',
          bad,
          'lace"}}',
        ),
      ]) {
        const r = await sendBytes('POST', '/graphql', body);
        expect(r.status, r.text).toBe(400);
        expect(r.body.errors[0].extensions.code).toBe('malformed_request');
      }
      for (const [param, value] of [
        ['query', `{ searchContacts(q: "Rep${percent(bad)}lace") { total } }`],
        ['variables', `{"q":"Rep${percent(bad)}lace"}`],
      ]) {
        const query = param === 'query' ? value : 'query ($q: String!) { searchContacts(q: $q) { total } }';
        const qs =
          param === 'query'
            ? `query=${encodeURIComponent(value).replace(/%25/g, '%')}`
            : `query=${encodeURIComponent(query)}&variables=${encodeURIComponent(value).replace(/%25/g, '%')}`;
        const r = await fetch(`${app.base}/graphql?${qs}`, {
          headers: { authorization: `Bearer ${await freshKey()}`, accept: 'application/json' },
        });
        const answer = await r.json();
        expect(r.status, JSON.stringify(answer)).toBe(400);
        expect(answer.errors[0].extensions.details[param], JSON.stringify(answer)).toBeDefined();
      }
      const login = await fetch(`${app.base}/dashboard/api/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: new Uint8Array(bytesOf('{"email":"a', bad, '@example.com","password":"a long password"}')),
      });
      expect(login.status).toBe(400);
    }
    // Other charsets are not read (JSON travels as UTF-8); valid UTF-8 outside the BMP is kept.
    const utf16 = await sendBytes('POST', '/v1/contacts', Buffer.from('{"first_name":"x"}', 'utf16le'), {
      'content-type': 'application/json; charset=utf-16le',
    });
    expect(utf16.status, utf16.text).toBe(415);
    const kept = await sendBytes(
      'POST',
      '/v1/contacts',
      bytesOf('{"first_name":"Zoë 😀","email":"', uniqueEmail('utf8'), '"}'),
    );
    expect(kept.status, kept.text).toBe(201);
    expect(kept.body.data.first_name).toBe('Zoë 😀');
  });
});

// ---------------------------------------------------------------------------------------------
// Numbers and keys JSON.parse would quietly change

/** Number literals a double cannot hold as written: underflow to 0, overflow, lost integer and fraction digits. */
const CHANGED_NUMBERS = ['1e-400', '-2.5e-324', '1e400', '12345678901234567890', '0.10000000000000000000001'];

describe('numbers that would not survive parsing, and keys given twice, are refused', () => {
  it.each(routes.filter((r) => r.body).map((r) => [name(r), r] as const))('in the body of %s', async (_n, route) => {
    const field = firstField(route);
    for (const literal of CHANGED_NUMBERS) {
      for (const [body, path] of [
        [`{"${field}":${literal}}`, field],
        [`{"${field}":{"nested":[1,${literal}]}}`, `${field}.nested.1`],
      ]) {
        const r = await sendBytes(route.method, pathOf(route), Buffer.from(body));
        expect(r.status, `${body}: ${r.text}`).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(r.body.error.details?.[path], `${body}: ${r.text}`).toBeDefined();
      }
    }
    const twice = await sendBytes(route.method, pathOf(route), Buffer.from(`{"${field}":"x","${field}":"y"}`));
    expect(twice.status, twice.text).toBe(400);
    expect(twice.body.error.code).toBe('malformed_request');
    expect(twice.body.error.message).toContain(field);
  });

  it('numbers a double holds keep their value; GraphQL variables and literals refuse the others', async () => {
    const deal = await sendBytes(
      'POST',
      '/v1/deals',
      Buffer.from(`{"title":"N","pipeline_id":"${ids.pipelines}","value":1.25e2}`),
    );
    expect(deal.status, deal.text).toBe(201);
    expect(deal.body.data.value).toBe(125);
    const under = await sendBytes(
      'POST',
      '/v1/deals',
      Buffer.from(`{"title":"N","pipeline_id":"${ids.pipelines}","value":1e-400}`),
    );
    expect(under.body.error.details.value, under.text).toBeDefined();
    const mutation = 'mutation ($i: DealCreateInput!) { createDeal(input: $i) { id value } }';
    const variables = await sendBytes(
      'POST',
      '/graphql',
      Buffer.from(
        `{"query":"${mutation.replace(/"/g, '\\"')}",` +
          `"variables":{"i":{"title":"N","pipeline_id":"${ids.pipelines}","value":1e-400}}}`,
      ),
    );
    expect(variables.status, variables.text).toBe(400);
    expect(variables.body.errors[0].extensions.code).toBe('validation_error');
    expect(variables.body.errors[0].extensions.details['variables.i.value'], variables.text).toBeDefined();
    const twice = await sendBytes(
      'POST',
      '/graphql',
      Buffer.from(`{"query":"{ contacts { total } }","query":"{ deals { total } }"}`),
    );
    expect(twice.status, twice.text).toBe(400);
    expect(twice.body.errors[0].extensions.code).toBe('malformed_request');
    for (const literal of CHANGED_NUMBERS) {
      const r = await graphql(
        `mutation { createDeal(input: { title: "N", pipeline_id: "${ids.pipelines}", value: ${literal} }) {` +
          ' id value } }',
      );
      expect(r.errors?.[0]?.extensions?.code, `${literal}: ${JSON.stringify(r)}`).toBe('validation_error');
    }
    const dealsQuery = encodeURIComponent('query ($f: DealFilter) { deals(filter: $f) { total } }');
    const get = await fetch(
      `${app.base}/graphql?query=${dealsQuery}&variables=${encodeURIComponent('{"f":{"min_value":1e-400}}')}`,
      {
        headers: { authorization: `Bearer ${await freshKey()}`, accept: 'application/json' },
      },
    );
    expect(get.status).toBe(400);
  });
});

// ---------------------------------------------------------------------------------------------
// Query parameters of the wrong type or out of range: the API's words, naming the parameter

describe("REST query parameters are refused in the API's words, naming the parameter", () => {
  it.each(listRoutes.map((r) => [name(r), r] as const))('limit of %s', async (_n, route) => {
    for (const limit of [
      '100000000000000000000000',
      '1e23',
      '-99999999999',
      '2147483648',
      '0',
      '101',
      'abc',
      '1.5',
      '',
      '%20',
    ]) {
      const r = await api('GET', `${pathOf(route)}?limit=${limit}${SEARCHES.has(route.path) ? '&q=test' : ''}`);
      if (limit === '' || limit === '%20') {
        if (r.status === 200) continue;
      }
      expect(r.status, `limit=${limit}: ${r.text}`).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details?.limit, `limit=${limit}: ${r.text}`).toEqual(['must be an integer from 1 to 100']);
      expect(r.text).not.toMatch(/Variable "\$|cannot represent/);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// GraphQL over WebSocket

describe('WebSocket messages are read as strictly as HTTP bodies', () => {
  /** A raw graphql-transport-ws socket; acknowledged when `init` is given. */
  async function socket(init?: Buffer | string): Promise<{ s: WebSocket; messages: any[]; closed: Promise<number> }> {
    const s = new WebSocket(`${app.base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    const messages: any[] = [];
    s.on('message', (data) => messages.push(JSON.parse(String(data))));
    const closed = new Promise<number>((resolve) => s.once('close', (code) => resolve(code)));
    await new Promise((resolve, reject) => (s.once('open', resolve), s.once('error', reject)));
    if (init !== undefined) s.send(init, { binary: Buffer.isBuffer(init) });
    return { s, messages, closed };
  }
  const until = async (check: () => boolean) => {
    for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 25));
  };

  it('frames that are not UTF-8, text or binary, close the socket with 1007', async () => {
    for (const binary of [false, true]) {
      for (const bad of NOT_UTF8) {
        const { s, closed } = await socket();
        s.send(
          bytesOf(
            `{"type":"connection_init","payload":{"authorization":"Bearer ${await freshKey()}","x":"`,
            bad,
            '"}}',
          ),
          { binary },
        );
        expect(await closed, `${binary ? 'binary' : 'text'} ${percent(bad)}`).toBe(1007);
      }
    }
  });

  it('a number that would not survive parsing fails its operation; a repeated key closes with 4400', async () => {
    const { s, messages, closed } = await socket(
      JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${await freshKey()}` } }),
    );
    await until(() => messages.some((m) => m.type === 'connection_ack'));
    const mutation = 'mutation ($i: DealCreateInput!) { createDeal(input: $i) { id value } }';
    s.send(
      `{"id":"n1","type":"subscribe","payload":{"query":${JSON.stringify(mutation)},` +
        `"variables":{"i":{"title":"WS","pipeline_id":"${ids.pipelines}","value":1e-400}}}}`,
    );
    await until(() => messages.some((m) => m.id === 'n1' && m.type !== 'complete'));
    const answer = messages.find((m) => m.id === 'n1');
    expect(answer?.type, JSON.stringify(messages)).toBe('error');
    expect(answer.payload[0].extensions.code).toBe('validation_error');
    expect(answer.payload[0].extensions.details['payload.variables.i.value']).toBeDefined();
    s.send('{"id":"n2","type":"subscribe","payload":{"query":"{ contacts { total } }","query":"{ deals { total } }"}}');
    expect(await closed).toBe(4400);
  });
});
