// Hostile and sloppy REST bodies, by class, against every route with a body: whatever a field holds,
// the answer is a 2xx or a 4xx in the API's envelope (never a 5xx), a 400 names the field, keys
// such as __proto__ reach neither the stored record nor any object's prototype, and unknown keys
// are ignored as they always were. Then the shapes whose typing is easy to get wrong: a single value
// where a list goes, a list or text where an object goes, and bulk rows that are no rows at all,
// which fail alone as every other bad row does.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type Client } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

/** Keys of one workspace taken in turn: the table sends more requests than one key's burst allows. */
let apis: Client[];
let turn = 0;
const api: Client = (...args) => apis[turn++ % apis.length](...args);
let ids: {
  pipeline: string;
  stage: string;
  ownPipeline: string;
  ownStage: string;
  contact: string;
  contact2: string;
  deal: string;
  task: string;
  webhook: string;
  user: string;
  company: string;
};

test.beforeAll(async ({ ws }) => {
  apis = [ws.api, ...(await Promise.all(Array.from({ length: 5 }, () => ws.addKey({})))).map((k) => k.api)];
  const user = await ws.addUser('Hostile Owner');
  const pipelines = (await api('GET', '/v1/pipelines')).body.data;
  const own = (await api('POST', '/v1/pipelines', { name: 'Own', stages: [{ name: 'a' }, { name: 'b' }] })).body.data;
  const contact = (await api('POST', '/v1/contacts', { first_name: 'C', email: uniqueEmail() })).body.data;
  const contact2 = (await api('POST', '/v1/contacts', { first_name: 'C2', email: uniqueEmail() })).body.data;
  const deal = (await api('POST', '/v1/deals', { title: 'D', pipeline_id: pipelines[0].id })).body.data;
  const task = (await api('POST', '/v1/tasks', { title: 'T' })).body.data;
  const company = (await api('POST', '/v1/companies', { name: 'Co' })).body.data;
  const webhook = (await api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: ['contact.created'] })).body
    .data;
  ids = {
    pipeline: pipelines[0].id,
    stage: pipelines[0].stages[1].id,
    ownPipeline: own.id,
    ownStage: own.stages[0].id,
    contact: contact.id,
    contact2: contact2.id,
    deal: deal.id,
    task: task.id,
    webhook: webhook.id,
    user: user.id,
    company: company.id,
  };
}, 120_000);

/** Every route with a body: a valid body, and the fields it takes. */
const bodyRoutes = () => [
  {
    method: 'POST',
    path: '/v1/contacts',
    valid: () => ({ first_name: 'A', email: uniqueEmail() }),
    fields: ['first_name', 'email', 'phone', 'status', 'source', 'tags', 'assigned_to', 'custom_fields', 'address'],
  },
  {
    method: 'PUT',
    path: `/v1/contacts/${ids.contact}`,
    valid: () => ({ first_name: 'A' }),
    fields: ['first_name', 'email', 'status', 'tags', 'custom_fields', 'address'],
  },
  {
    method: 'POST',
    path: '/v1/contacts/bulk',
    valid: () => ({ contacts: [{ first_name: 'B', email: uniqueEmail() }] }),
    fields: ['contacts'],
  },
  {
    method: 'POST',
    path: '/v1/contacts/merge',
    valid: () => ({ primary_id: ids.contact, secondary_id: 'con_missing' }),
    fields: ['primary_id', 'secondary_id', 'merge_strategy'],
  },
  { method: 'POST', path: `/v1/contacts/${ids.contact}/notes`, valid: () => ({ content: 'n' }), fields: ['content'] },
  { method: 'POST', path: `/v1/companies/${ids.company}/notes`, valid: () => ({ content: 'n' }), fields: ['content'] },
  {
    method: 'POST',
    path: '/v1/companies',
    valid: () => ({ name: 'C' }),
    fields: ['name', 'domain', 'size', 'phone', 'tags', 'owner_id', 'custom_fields', 'address', 'external_id'],
  },
  {
    method: 'PUT',
    path: `/v1/companies/${ids.company}`,
    valid: () => ({ name: 'C2' }),
    fields: ['name', 'domain', 'size', 'industry'],
  },
  { method: 'POST', path: '/v1/pipelines', valid: () => ({ name: 'P' }), fields: ['name', 'is_default', 'stages'] },
  {
    method: 'PUT',
    path: `/v1/pipelines/${ids.ownPipeline}`,
    valid: () => ({ name: 'P2' }),
    fields: ['name', 'is_default'],
  },
  {
    method: 'POST',
    path: `/v1/pipelines/${ids.ownPipeline}/stages`,
    valid: () => ({ name: 'S' }),
    fields: ['name', 'position', 'probability'],
  },
  {
    method: 'PUT',
    path: `/v1/pipelines/${ids.ownPipeline}/stages/${ids.ownStage}`,
    valid: () => ({ name: 'S2' }),
    fields: ['name', 'position', 'probability'],
  },
  {
    method: 'POST',
    path: '/v1/deals',
    valid: () => ({ title: 'D', pipeline_id: ids.pipeline }),
    fields: ['title', 'pipeline_id', 'value', 'probability', 'expected_close_date', 'custom_fields', 'tags'],
  },
  {
    method: 'PUT',
    path: `/v1/deals/${ids.deal}`,
    valid: () => ({ title: 'D2' }),
    fields: ['title', 'value', 'status', 'probability', 'tags'],
  },
  {
    method: 'PUT',
    path: `/v1/deals/${ids.deal}/stage`,
    valid: () => ({ stage_id: ids.stage }),
    fields: ['stage_id', 'note'],
  },
  {
    method: 'POST',
    path: `/v1/deals/${ids.deal}/contacts`,
    valid: () => ({ contact_id: ids.contact2 }),
    fields: ['contact_id', 'role'],
  },
  {
    method: 'POST',
    path: '/v1/tasks',
    valid: () => ({ title: 'T' }),
    fields: ['title', 'due_date', 'priority', 'type', 'status', 'reminder'],
  },
  {
    method: 'PUT',
    path: `/v1/tasks/${ids.task}`,
    valid: () => ({ title: 'T2' }),
    fields: ['title', 'priority', 'reminder'],
  },
  { method: 'PUT', path: `/v1/tasks/${ids.task}/complete`, valid: () => ({}), fields: ['completion_note'] },
  {
    method: 'POST',
    path: '/v1/activities',
    valid: () => ({ type: 'call' }),
    fields: ['type', 'company_id', 'duration', 'outcome', 'occurred_at', 'attendees'],
  },
  {
    method: 'PUT',
    path: `/v1/users/${ids.user}/notification-preferences`,
    valid: () => ({ email: true }),
    fields: ['email', 'push'],
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    valid: () => ({ url: 'http://127.0.0.1:9/h', events: ['contact.created'] }),
    fields: ['url', 'events', 'headers', 'filters', 'timeout_seconds', 'retry_policy', 'http_method'],
  },
  {
    method: 'PUT',
    path: `/v1/webhooks/${ids.webhook}`,
    valid: () => ({ description: 'd' }),
    fields: ['events', 'headers', 'filters', 'retry_policy', 'active'],
  },
];

const deep = (levels: number) => {
  let v: unknown = 1;
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
};

/**
 * One of each class: null, empty and odd text, numbers as text and out of
 * range, booleans as text, wrong containers, nesting, enum look-alikes.
 */
const HOSTILE: Record<string, unknown> = {
  null: null,
  empty: '',
  long: 'x'.repeat(300),
  emoji: '😀',
  numberText: '10',
  nan: 'NaN',
  huge: 1e308,
  negativeZero: -0,
  fraction: 1.5,
  outOfInt: 2 ** 31,
  trueText: 'true',
  true: true,
  emptyList: [],
  listOfNull: [null],
  listOfNumber: [1],
  emptyObject: {},
  nested: deep(40),
  upperEnum: 'LEAD',
  paddedEnum: ' lead ',
  otherEnum: 'won',
};

describe('every route with a body, every field, one value of each hostile class', () => {
  it('answers 2xx or a 4xx in the envelope; a 400 names the field', async () => {
    const wrong: string[] = [];
    let sent = 0;
    for (const route of bodyRoutes()) {
      for (const field of route.fields) {
        for (const [name, value] of Object.entries(HOSTILE)) {
          const r = await api(route.method, route.path, { ...route.valid(), [field]: value });
          sent++;
          const at = `${route.method} ${route.path} ${field}=${name}: ${r.status} ${r.text.slice(0, 200)}`;
          if (r.status >= 500) wrong.push(at);
          else if (r.status >= 400) {
            if (r.body?.success !== false || typeof r.body.error?.code !== 'string') wrong.push(`no envelope: ${at}`);
            else if (r.status === 400 && r.body.error.code === 'validation_error') {
              const keys = Object.keys(r.body.error.details ?? {});
              // related_to_id is refused on related_to_type, the field it needs.
              if (!keys.some((k) => k === field || k.startsWith(`${field}.`)))
                wrong.push(`details miss the field: ${at}`);
            }
          }
          if (r.status === 201 && route.path === '/v1/webhooks') await api('DELETE', `/v1/webhooks/${r.body.data.id}`);
        }
      }
    }
    expect(wrong).toEqual([]);
    expect(sent).toBeGreaterThan(1500);
  }, 300_000);

  it('__proto__, constructor and prototype keys at any depth: ignored, not stored, no prototype touched', async () => {
    const poison =
      '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}},"prototype":{"polluted":"yes"}}';
    for (const route of bodyRoutes()) {
      for (const at of [null, ...route.fields]) {
        const valid = JSON.stringify(route.valid());
        const extra = at === null ? poison.slice(1, -1) : `"${at}":${poison}`;
        const body = valid === '{}' ? `{${extra}}` : `${valid.slice(0, -1)},${extra}}`;
        const r = await api(route.method, route.path, body);
        expect(r.status, `${route.method} ${route.path} at ${at}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
        expect(
          r.text.includes('polluted') && r.status < 300,
          `${route.method} ${route.path} at ${at} stored it: ${r.text.slice(0, 300)}`,
        ).toBe(false);
        if (r.status === 201 && route.path === '/v1/webhooks') await api('DELETE', `/v1/webhooks/${r.body.data.id}`);
      }
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  }, 120_000);

  it('unknown keys, however named, are ignored: the same answer as without them', async () => {
    const extras = [
      { unknown_field: 1 },
      { 'not a graphql name': 1 },
      { ['k'.repeat(5000)]: { deep: [1, 2] } },
      { id: 'x', created_at: 'y', engagement_score: 9 },
    ];
    for (const route of bodyRoutes().filter(
      (r) => r.method === 'POST' && !r.path.endsWith('/merge') && !r.path.includes('/deals/'),
    )) {
      for (const extra of extras) {
        const r = await api(route.method, route.path, { ...route.valid(), ...extra });
        expect(r.status, `${route.path} with ${Object.keys(extra)[0].slice(0, 20)}: ${r.text.slice(0, 200)}`).toBe(201);
        if (route.path === '/v1/webhooks') await api('DELETE', `/v1/webhooks/${r.body.data.id}`);
      }
    }
  }, 60_000);
});

describe('shapes the typing could get wrong', () => {
  it('a single value where a list goes is "must be a list", and only that', async () => {
    const cases: [string, string, Record<string, unknown>, string][] = [
      ['POST', '/v1/pipelines', { name: 'P', stages: { name: 'x' } }, 'stages'],
      ['POST', '/v1/pipelines', { name: 'P', stages: {} }, 'stages'],
      ['POST', '/v1/contacts/bulk', { contacts: { first_name: 'A' } }, 'contacts'],
      ['POST', '/v1/contacts', { first_name: 'A', email: uniqueEmail(), tags: 'vip' }, 'tags'],
      ['POST', '/v1/activities', { type: 'meeting', attendees: 'con_1' }, 'attendees'],
      ['POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/h', events: 'contact.created' }, 'events'],
      [
        'POST',
        '/v1/webhooks',
        {
          url: 'http://127.0.0.1:9/h',
          events: ['contact.created'],
          retry_policy: { max_retries: 1, intervals_seconds: 5 },
        },
        'retry_policy.intervals_seconds',
      ],
    ];
    for (const [method, path, body, field] of cases) {
      const r = await api(method, path, body);
      expect(r.status, `${path} ${field}`).toBe(400);
      expect(r.body.error.details, `${path} ${field}`).toEqual({ [field]: ['must be a list'] });
    }
  });

  it('a list or text for an object: "must be a JSON object" on REST as in GraphQL, value not spelled out', async ({
    app,
    ws,
  }) => {
    const list = Array.from({ length: 1000 }, () => ({}));
    const cases: [string, Record<string, unknown>, string, string, string][] = [
      [
        '/v1/contacts',
        { first_name: 'A', email: uniqueEmail(), custom_fields: list },
        'custom_fields',
        'ContactCreateInput',
        'createContact',
      ],
      [
        '/v1/contacts',
        { first_name: 'A', email: uniqueEmail(), address: 'Main St' },
        'address',
        'ContactCreateInput',
        'createContact',
      ],
      [
        '/v1/webhooks',
        { url: 'http://127.0.0.1:9/h', events: ['contact.created'], headers: list },
        'headers',
        'WebhookCreateInput',
        'createWebhook',
      ],
      [
        '/v1/webhooks',
        { url: 'http://127.0.0.1:9/h', events: ['contact.created'], filters: 'tags=vip' },
        'filters',
        'WebhookCreateInput',
        'createWebhook',
      ],
    ];
    for (const [path, body, field, input, mutation] of cases) {
      const r = await api('POST', path, body);
      expect(r.status, `${path} ${field}`).toBe(400);
      expect(r.body.error.details, `${path} ${field}`).toEqual({ [field]: ['must be a JSON object'] });
      const g = await gql(app.base, ws.key, `mutation($i: ${input}!) { ${mutation}(input: $i) { id } }`, { i: body });
      expect(Object.keys(g.errors![0].extensions!.details), `${path} ${field}`).toEqual([field]);
      expect(JSON.stringify(g.errors)).not.toContain('[object Object]');
      expect(JSON.stringify(g.errors).length, `${path} ${field}`).toBeLessThan(2000);
    }
  });
});

describe('bulk rows that are no rows of the input type', () => {
  const BAD_ROWS: [string, unknown, string][] = [
    ['null', null, '_'],
    ['text', 'ada@example.com', '_'],
    ['a number', 1, '_'],
    ['a list', [], '_'],
    ['an enum value in capitals', { first_name: 'B', email: 'x@example.com', status: 'LEAD' }, 'status'],
    ['tags as text', { first_name: 'B', email: 'x@example.com', tags: 'vip' }, 'tags'],
    ['a number for a name', { first_name: 5, email: 'x@example.com' }, 'first_name'],
    ['text for the address', { first_name: 'B', email: 'x@example.com', address: 'Main St' }, 'address'],
  ];

  for (const [what, bad, field] of BAD_ROWS) {
    it(`${what}: fails alone at its index; the rows around it are created (207)`, async () => {
      const before = uniqueEmail();
      const after = uniqueEmail();
      const bulk = {
        contacts: [{ first_name: 'Before', email: before }, bad, { first_name: 'After', email: after, tags: ['ok'] }],
      };
      const r = await api('POST', '/v1/contacts/bulk', bulk);
      expect(r.status, r.text.slice(0, 300)).toBe(207);
      expect(r.body.data.created).toBe(2);
      expect(r.body.data.failed).toBe(1);
      expect(r.body.data.errors).toHaveLength(1);
      const [error] = r.body.data.errors;
      expect(error.index).toBe(1);
      expect(error.email).toBe(
        bad && typeof bad === 'object' && 'email' in bad ? (bad as { email: string }).email : null,
      );
      expect(error.error.code).toBe('validation_error');
      expect(Object.keys(error.error.details)).toEqual([field]);
      expect(r.body.data.contacts.map((c: { email: string }) => c.email)).toEqual([before, after]);
      // Nothing was stored for the bad row, the others were.
      const stored = await api('GET', `/v1/contacts/search?q=${encodeURIComponent(before)}`);
      expect(stored.body.data.map((c: { email: string }) => c.email)).toEqual([before]);
      if (bad && typeof bad === 'object' && 'email' in bad)
        expect((await api('GET', '/v1/contacts/search?q=x%40example.com')).body.data).toEqual([]);
    });
  }

  it('more than 100 rows is refused whole even when some are no rows', async () => {
    const rows = Array.from({ length: 101 }, (_, i) => (i === 5 ? null : { first_name: 'R', email: uniqueEmail() }));
    const r = await api('POST', '/v1/contacts/bulk', { contacts: rows });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual({
      contacts: ['at most 100 contacts per request'],
      'contacts.5': ['must not be null'],
    });
  });

  it('GraphQL types each row: a row of the wrong type is a variable error naming it', async ({ app, ws }) => {
    const g = await gql(
      app.base,
      ws.key,
      'mutation($i: ContactBulkInput!) { bulkCreateContacts(input: $i) { created } }',
      { i: { contacts: [{ first_name: 'A', email: uniqueEmail() }, null] } },
    );
    expect(g.errors![0].extensions!.code).toBe('validation_error');
    expect(Object.keys(g.errors![0].extensions!.details)).toEqual(['contacts[1]']);
  });
});
