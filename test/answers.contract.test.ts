// Real answers against the documents: each REST answer validates against its OpenAPI response
// schema (which is only worth something because fields are non-null and enumerated where the
// service guarantees it), and every enum field answers a value of its enum over GraphQL too.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { getNamedType, isEnumType, isNonNullType, isObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect } from 'vitest';
import { schema } from '../src/schema/index.ts';
import { client, gql, uniqueEmail, type Res } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

type Json = Record<string, any>;

let doc: Json;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
const DOC_ID = 'https://crm.invalid/openapi.json';

let contact: Json;
let deal: Json;
let task: Json;
let activity: Json;
let webhook: Json;

test.beforeAll(async ({ app, ws }) => {
  doc = (await client(app.base)('GET', '/v1/openapi.json')).body;
  // The whole document as one schema resource, so `#/components/schemas/...` references resolve.
  ajv.addSchema({ ...doc, $id: DOC_ID });
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
  await ws.addCustomField('seats', 'number');
  const user = await ws.addUser('Owner');
  contact = (
    await ws.api('POST', '/v1/contacts', {
      first_name: 'Ada',
      email: uniqueEmail('ada'),
      status: 'customer',
      address: { city: 'Oslo' },
      custom_fields: { tier: 'gold', seats: 5 },
    })
  ).body.data;
  const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  deal = (
    await ws.api('POST', '/v1/deals', {
      title: 'Renewal',
      pipeline_id: pipeline.id,
      contact_id: contact.id,
      owner_id: user.id,
      value: 1200,
    })
  ).body.data;
  await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: pipeline.stages[1].id, note: 'Qualified' });
  task = (
    await ws.api('POST', '/v1/tasks', {
      title: 'Call back',
      priority: 'urgent',
      type: 'call',
      due_date: '2099-01-02T10:00:00Z',
      related_to_type: 'contact',
      related_to_id: contact.id,
      reminder: { type: 'email', before_minutes: 30 },
    })
  ).body.data;
  activity = (
    await ws.api('POST', '/v1/activities', {
      type: 'call',
      outcome: 'voicemail',
      contact_id: contact.id,
      deal_id: deal.id,
    })
  ).body.data;
  webhook = (
    await ws.api('POST', '/v1/webhooks', {
      url: 'https://example.com/hook',
      events: ['contact.created'],
      headers: { 'X-Team': 'crm' },
      filters: { status: ['lead'] },
    })
  ).body.data;
});

/** JSON pointer escaping of one path segment. */
const pointer = (segment: string) => segment.replace(/~/g, '~0').replace(/\//g, '~1');

/** Checks an answer against the response schema the document gives its route and status. */
function expectDocumented(method: string, route: string, r: Res) {
  const path = '/v1' + route.replace(/:(\w+)/g, '{$1}');
  const response = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(r.status)];
  expect(response, `${method} ${path} ${r.status} is documented`).toBeDefined();
  const operation = `${DOC_ID}#/paths/${pointer(path)}/${method.toLowerCase()}`;
  const ref = `${operation}/responses/${r.status}/content/${pointer('application/json')}/schema`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const ok = validate(r.body);
  expect(ok, `${method} ${path} ${r.status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

describe('REST answers validate against their OpenAPI response schemas', () => {
  const reads: [string, () => string][] = [
    ['/contacts/:id', () => `/v1/contacts/${contact.id}`],
    ['/contacts', () => '/v1/contacts'],
    ['/contacts/:id/timeline', () => `/v1/contacts/${contact.id}/timeline`],
    ['/deals/:id', () => `/v1/deals/${deal.id}`],
    ['/deals', () => '/v1/deals'],
    ['/pipelines', () => '/v1/pipelines'],
    ['/tasks/:id', () => `/v1/tasks/${task.id}`],
    ['/tasks', () => '/v1/tasks'],
    ['/activities/:id', () => `/v1/activities/${activity.id}`],
    ['/users', () => '/v1/users'],
    ['/webhooks/:id', () => `/v1/webhooks/${webhook.id}`],
    ['/webhooks/:id/logs', () => `/v1/webhooks/${webhook.id}/logs`],
  ];

  it.for(reads)('GET %s', async ([route, url], { ws }) => {
    const r = await ws.api('GET', url());
    expect(r.status).toBe(200);
    expectDocumented('GET', route, r);
  });

  it('writes, a partly failed bulk create included', async ({ ws }) => {
    const created = await ws.api('POST', '/v1/contacts', { first_name: 'Bo', email: uniqueEmail('bo') });
    expectDocumented('POST', '/contacts', created);
    const bulk = await ws.api('POST', '/v1/contacts/bulk', {
      contacts: [{ first_name: 'Ok', email: uniqueEmail() }, { first_name: 'No email' }],
    });
    expect(bulk.status).toBe(207);
    expectDocumented('POST', '/contacts/bulk', bulk);
    expectDocumented(
      'PUT',
      '/contacts/:id',
      await ws.api('PUT', `/v1/contacts/${created.body.data.id}`, { tags: ['vip'] }),
    );
    const other = await ws.api('POST', '/v1/tasks', { title: 'Send the deck' });
    expectDocumented('POST', '/tasks', other);
    expectDocumented(
      'PUT',
      '/tasks/:id/complete',
      await ws.api('PUT', `/v1/tasks/${other.body.data.id}/complete`, { completion_note: 'Done' }),
    );
    expectDocumented('DELETE', '/contacts/:id', await ws.api('DELETE', `/v1/contacts/${created.body.data.id}`));
  });

  it('answers are not documented loosely: a wrong value fails the schema', () => {
    const ref = `${DOC_ID}#/components/schemas/Contact`;
    const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
    expect(validate(contact)).toBe(true);
    expect(validate({ ...contact, status: 'prospect' })).toBe(false);
    expect(validate({ ...contact, created_at: null })).toBe(false);
    expect(validate({ ...contact, address: { city: 'Oslo' } })).toBe(false);
    expect(validate({ ...contact, custom_fields: { tier: ['gold'] } })).toBe(false);
  });

  it('answers the shapes the document names', () => {
    expect(contact.address).toEqual({ street: null, city: 'Oslo', state: null, zip: null, country: null });
    expect(contact.custom_fields).toEqual({ tier: 'gold', seats: 5 });
    expect(webhook.retry_policy).toEqual({ max_retries: 5, intervals_seconds: [5, 30, 120, 900, 3600] });
    expect(webhook.headers).toEqual({ 'X-Team': 'crm' });
    expect(task.related_to).toEqual({ type: 'contact', id: contact.id, name: 'Ada' });
  });
});

/** The enum-typed leaf fields of an object type, as a selection set. */
function enumSelection(type: GraphQLObjectType): string {
  const fields = Object.values(type.getFields()).filter((f) => isEnumType(getNamedType(f.type)));
  return fields.map((f) => f.name).join(' ');
}

/** Every enum-typed value in `value` (an answer of `type`) is one of its enum's values. */
function expectEnumValues(type: GraphQLObjectType, value: Json, seen: string[]) {
  for (const [key, v] of Object.entries(value)) {
    const field = type.getFields()[key];
    const named = getNamedType(field.type);
    if (v === null) {
      expect(isNonNullType(field.type), `${type.name}.${key} is null`).toBe(false);
      continue;
    }
    if (isEnumType(named)) {
      expect(
        named.getValues().map((e) => e.name),
        `${type.name}.${key}`,
      ).toContain(v);
      seen.push(`${type.name}.${key}`);
    } else if (isObjectType(named)) {
      for (const item of Array.isArray(v) ? v : [v]) expectEnumValues(named, item, seen);
    }
  }
}

describe('enum fields answer enum values over GraphQL and REST alike', () => {
  it('contacts, deals, tasks, activities and webhooks', async ({ app, ws }) => {
    const type = (name: string) => schema.getType(name) as GraphQLObjectType;
    const query = `query ($c: ID!, $d: ID!, $t: ID!, $a: ID!, $w: ID!) {
      contact(id: $c) { ${enumSelection(type('Contact'))} }
      deal(id: $d) { ${enumSelection(type('Deal'))} stage_history { changed_by { ${enumSelection(type('Actor'))} } } }
      task(id: $t) { ${enumSelection(type('Task'))} related_to { type } reminder { type } }
      activity(id: $a) { ${enumSelection(type('Activity'))} }
      webhook(id: $w) { ${enumSelection(type('Webhook'))} }
      contactTimeline(contactId: $c) { nodes { actor { type } } }
    }`;
    const r = await gql(app.base, ws.key, query, {
      c: contact.id,
      d: deal.id,
      t: task.id,
      a: activity.id,
      w: webhook.id,
    });
    expect(r.errors).toBeUndefined();
    const seen: string[] = [];
    expectEnumValues(schema.getQueryType()!, r.data, seen);
    expect(seen).toEqual(
      expect.arrayContaining([
        'Contact.status',
        'Contact.source',
        'Deal.status',
        'Actor.type',
        'Task.priority',
        'TaskRelatedTo.type',
        'TaskReminder.type',
        'Activity.outcome',
        'Webhook.http_method',
        'Webhook.payload_format',
      ]),
    );
    // REST answers the same values under the same names.
    expect(r.data.contact).toMatchObject({ status: contact.status, source: contact.source });
    expect(r.data.task).toMatchObject({
      status: task.status,
      priority: 'urgent',
      type: 'call',
      related_to: { type: 'contact' },
      reminder: { type: 'email' },
    });
    expect(r.data.activity).toMatchObject({ type: 'call', outcome: 'voicemail' });
    expect(r.data.webhook).toMatchObject({
      http_method: webhook.http_method,
      content_type: webhook.content_type,
      payload_format: webhook.payload_format,
    });
    const rest = (await ws.api('GET', `/v1/deals/${deal.id}`)).body.data;
    expect(rest.stage_history.at(-1).changed_by).toEqual({ type: 'api_key', id: expect.any(String), name: 'test key' });
  });
});
