// GraphQL document limits (depth, aliases, cost, tokens, directives) and introspection: refused
// at parse or validation time, before any resolver runs, over HTTP and over WebSocket. Normal
// queries, the REST operations and GraphiQL's introspection stay well inside them.
import { getIntrospectionQuery, getNamedType, getNullableType, isListType, isObjectType, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { DEFAULT_GRAPHQL_LIMITS, limitRules } from '../src/http/graphql-limits.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { schema } from '../src/schema/index.ts';
import { startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { subscribe } from './helpers/subscriptions.ts';

let app: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp();
  ws = await app.workspace();
});
afterAll(() => app.close());

const post = (query: string, variables?: Record<string, unknown>) => ws.api('POST', '/graphql', { query, variables });
/** As a GraphQL-over-HTTP client that asks for the newer media type, which gets 400 for refused documents. */
const strict = (query: string) => ws.api('POST', '/graphql', { query }, { accept: 'application/graphql-response+json' });

/** `first { contact { deals { contact ... leaf } } }`: `levels` fields deep, through the Contact.deals / Deal.contact cycle. */
function cycle(first: string[], levels: number, leaf = 'id'): string {
  const names = [...first];
  while (names.length < levels) names.push(names[names.length - 1] === 'contact' ? 'deals' : 'contact');
  return names.slice(0, levels).reduceRight((inner, name) => `${name} { ${inner} }`, leaf);
}
const chain = (levels: number, leaf?: string) => cycle(['activities', 'nodes'], levels, leaf);

/** A refusal: no data, our error code, a message naming the limit (200 to Accept: application/json, like any validation error). */
function expectRefused(r: { status: number; body: any }, limit: RegExp) {
  expect(r.status).toBe(200);
  expect(r.body.data).toBeUndefined();
  expect(r.body.errors[0].extensions.code).toBe('validation_error');
  expect(r.body.errors[0].message).toMatch(limit);
}

async function contactCount(): Promise<number> {
  return (await ws.api('GET', '/v1/contacts?limit=1')).body.meta.total;
}

describe('limits refuse documents before anything runs', () => {
  it('an alias flood', async () => {
    const aliases = Array.from({ length: 200 }, (_, i) => `a${i}: __typename`).join(' ');
    expectRefused(await post(`{ ${aliases} }`), /aliases limit of 15/i);
    const fifteen = Array.from({ length: 15 }, (_, i) => `a${i}: __typename`).join(' ');
    expect((await post(`{ ${fifteen} }`)).body.data.a14).toBe('Query');
  });

  it('a 15-deep query through the Contact.deals / Deal.contact cycle; 10 levels are fine', async () => {
    // After the leading `activities { nodes`, the path alternates contact / deals forever.
    // 15 fields and the __typename inside them: the query the conformance check builds.
    expectRefused(await post(`{ ${chain(15, '__typename')} }`), /depth limit of 10/i);
    const refused = await strict(`{ ${chain(15, '__typename')} }`);
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0].extensions.code).toBe('validation_error');
    expectRefused(await post(`{ ${chain(10)} }`), /depth limit of 10 exceeded, found 11/i);
    const ten = await post(`{ ${chain(9)} }`);
    expect(ten.body.errors).toBeUndefined();
    expect(ten.body.data.activities.nodes).toBeInstanceOf(Array);
  });

  it('a document that is cheap to write but expensive to answer (cost)', async () => {
    // Repeating a field costs nothing to merge but counts once per selection, weighted by depth.
    const r = await post(`{ ${chain(9, 'id '.repeat(200))} }`);
    expectRefused(r, /cost limit of 5000/i);
  });

  it('a document with too many tokens, while it is being parsed', async () => {
    const r = await post(`{ contacts { nodes { ${'id '.repeat(2100)} } } }`);
    expectRefused(r, /token limit of 2000/i);
    expect((await strict(`{ contacts { nodes { ${'id '.repeat(2100)} } } }`)).status).toBe(400);
  });

  it('too many directives', async () => {
    expectRefused(await post(`{ ${'... on Query @include(if: true) { __typename } '.repeat(51)} }`), /directives limit of 50/i);
    expect((await post(`{ ${'... on Query @include(if: true) { __typename } '.repeat(50)} }`)).body.data.__typename).toBe('Query');
  });

  it('refused mutations create nothing: no resolver ran', async () => {
    const before = await contactCount();
    const create = (i: number) => `c${i}: createContact(input: { first_name: "Flood", email: "${uniqueEmail('flood')}" }) { id }`;
    expectRefused(await post(`mutation { ${Array.from({ length: 16 }, (_, i) => create(i)).join(' ')} }`), /aliases/i);
    const deep = cycle(['createContact(input: { first_name: "Deep", email: "' + uniqueEmail('deep') + '" })', 'deals'], 11);
    expectRefused(await post(`mutation { ${deep} }`), /depth/i);
    expect(await contactCount()).toBe(before);
  });

  it('apply to GraphQL over WebSocket too (yoga.getEnveloped)', async () => {
    const sub = subscribe(app.base, { authorization: `Bearer ${ws.key}` }, `subscription { ${cycle(['contactChanged', 'contact'], 12)} }`);
    await sub.ended;
    expect(sub.errors[0]?.message).toMatch(/depth limit of 10/i);
    expect(sub.errors[0]?.extensions?.code).toBe('validation_error');
    await sub.close();
  });
});

describe('what stays allowed', () => {
  it('every REST operation passes the limits with room to spare', () => {
    const halved = { ...DEFAULT_GRAPHQL_LIMITS, maxDepth: 7, maxCost: 2500 };
    for (const [name, document] of loadOperations(schema)) {
      expect(validate(schema, document, limitRules(halved)), name).toEqual([]);
    }
  });

  it("GraphiQL's introspection query passes", async () => {
    const r = await post(getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, directiveIsRepeatable: true }));
    expect(r.status).toBe(200);
    expect(r.body.data.__schema.queryType.name).toBe('Query');
  });

  it('a rich client query: contacts with their deals, stages, owners and linked contacts', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Rich', email: uniqueEmail('rich') })).body.data;
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    for (const title of ['Older', 'Newer']) {
      expect((await ws.api('POST', '/v1/deals', { title, pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id, contact_id: c.id })).status).toBe(201);
    }
    const r = await post(`{
      contacts(limit: 100) { total next_cursor nodes {
        id first_name last_name email phone company job_title status source tags custom_fields created_at
        assigned_user { id name email }
        deals(limit: 100) { id title value currency status stage_name created_at
          stage { id name probability pipeline { id name } }
          owner { id name }
          contacts { contact_id role is_primary contact { id email } }
          stage_history { from_stage_name to_stage_name changed_at } }
      } } }`);
    expect(r.body.errors).toBeUndefined();
    const mine = r.body.data.contacts.nodes.find((n: { id: string }) => n.id === c.id);
    expect(mine.deals.map((d: { title: string }) => d.title)).toEqual(['Newer', 'Older']);
  });
});

describe('Contact.deals and every other list field are bounded', () => {
  it('Contact.deals takes limit 1..100, newest first', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Limit', email: uniqueEmail('limit') })).body.data;
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    for (const title of ['D1', 'D2', 'D3']) {
      await ws.api('POST', '/v1/deals', { title, pipeline_id: pipeline.id, stage_id: pipeline.stages[0].id, contact_id: c.id });
    }
    const q = 'query ($id: ID!, $n: Int) { contact(id: $id) { deals(limit: $n) { title } } }';
    expect((await post(q, { id: c.id, n: 2 })).body.data.contact.deals).toEqual([{ title: 'D3' }, { title: 'D2' }]);
    expect((await post(q, { id: c.id })).body.data.contact.deals).toHaveLength(3);
    for (const n of [0, 101]) {
      expect((await post(q, { id: c.id, n })).body.errors[0].extensions.code).toBe('validation_error');
    }
  });

  it('Contact.deals and Activity.contact / deal need the read permission of what they return', async () => {
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:read', 'activities:read'] });
    const as = (query: string) => contactsOnly.api('POST', '/graphql', { query });
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Scoped', email: uniqueEmail('scoped') })).body.data;
    await ws.api('POST', '/v1/activities', { type: 'call', subject: 'Hello', contact_id: c.id });
    expect((await as(`{ contact(id: "${c.id}") { deals { id } } }`)).body.errors[0].extensions.code).toBe('forbidden');
    expect((await as(`{ contact(id: "${c.id}") { id first_name } }`)).body.errors).toBeUndefined();
    const acts = await as('{ activities(limit: 5) { nodes { subject contact { id } deal { id } } } }');
    expect(acts.body.errors.map((e: { extensions: { code: string } }) => e.extensions.code)).toContain('forbidden');
    const ok = await ws.api('POST', '/graphql', { query: '{ activities(limit: 5) { nodes { subject contact { id } } } }' });
    expect(ok.body.data.activities.nodes[0].contact.id).toBe(c.id);
  });

  it('every list of objects is a page (limit 1..100), takes limit, or is bounded by a rule', () => {
    /** Lists whose length a rule bounds, and the rule. */
    const bounded: Record<string, string> = {
      'Pipeline.stages': 'at most 50 stages per pipeline',
      'BulkContactResult.contacts': 'at most 100 rows per bulk request',
      'BulkContactResult.errors': 'at most 100 rows per bulk request',
      'Mutation.testWebhook': 'one result per subscribed event name',
      // Part of a single deal's answer (GET /v1/deals/:id); they grow with the deal's own history.
      'Deal.contacts': 'the contacts linked to one deal',
      'Deal.stage_history': 'the stage moves of one deal',
      'Query.apiKeys': 'the newest API_KEYS_SHOWN keys',
      'Query.customFields': 'at most MAX_CUSTOM_FIELDS per workspace',
    };
    const unbounded: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isListType(getNullableType(field.type)) || !isObjectType(getNamedType(field.type))) continue;
        const name = `${type.name}.${field.name}`;
        const isPage = field.name === 'nodes' && type.name.endsWith('Page');
        if (!isPage && !field.args.some((a) => a.name === 'limit') && !(name in bounded)) unbounded.push(name);
      }
    }
    expect(unbounded).toEqual([]);
  });
});

describe('introspection', () => {
  it('is off in production unless GRAPHQL_INTROSPECTION turns it on; GraphiQL likewise', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphqlIntrospection: false, graphiql: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true', GRAPHIQL: 'true' })).toMatchObject({ graphqlIntrospection: true, graphiql: true });
    expect(loadConfig({ NODE_ENV: 'development' })).toMatchObject({ graphqlIntrospection: true, graphiql: true });
    expect(loadConfig({ GRAPHQL_INTROSPECTION: 'false' }).graphqlIntrospection).toBe(false);
    expect(loadConfig({ GRAPHQL_MAX_DEPTH: '12' }).graphqlLimits).toEqual({ ...DEFAULT_GRAPHQL_LIMITS, maxDepth: 12 });
  });

  it('when off, __schema and __type are refused and __typename still answers', async () => {
    const closed = await startTestApp({ graphql: { graphqlIntrospection: false } });
    try {
      const w = await closed.workspace();
      const ask = (query: string) => w.api('POST', '/graphql', { query });
      expectRefused(await ask('{ __schema { types { name } } }'), /introspection is disabled/i);
      expectRefused(await ask('{ __type(name: "Contact") { name } }'), /introspection is disabled/i);
      const typename = await ask('{ __typename contacts(limit: 1) { total } }');
      expect(typename.body).toMatchObject({ data: { __typename: 'Query' } });
    } finally {
      await closed.close();
    }
  });
});
