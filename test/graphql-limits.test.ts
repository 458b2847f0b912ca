// GraphQL document limits (depth, aliases, tokens, directives, cost multiplied by list sizes),
// the response budget, and introspection with the suggestions that would spell the schema out:
// refused before any resolver runs, over HTTP and over WebSocket. Normal queries, the REST
// operations and GraphiQL's introspection stay well inside them.
import {
  getIntrospectionQuery,
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  parse,
  typeFromAST,
  validate,
  type DocumentNode,
  type GraphQLInputType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { LIST_SIZES, operationCost } from '../src/graphql/cost.ts';
import { DEFAULT_GRAPHQL_LIMITS, limitRules } from '../src/graphql/limits.ts';
import { API_KEYS_SHOWN } from '../src/schema/api-key/api-key.queries.ts';
import { MAX_CUSTOM_FIELDS } from '../src/schema/custom-field/custom-field.write.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { schema } from '../src/schema/index.ts';
import { startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';
import { subscribe } from './helpers/subscriptions.ts';

let app: TestApp;
let ws: TestWorkspace;

test.beforeAll(async ({ app: started, ws: main }) => {
  app = started;
  ws = main;
});

const post = (query: string, variables?: Record<string, unknown>) => ws.api('POST', '/graphql', { query, variables });
/** As a GraphQL-over-HTTP client that asks for the newer media type, which gets 400 for refused documents. */
const strict = (query: string) =>
  ws.api('POST', '/graphql', { query }, { accept: 'application/graphql-response+json' });

/**
 * `first { contact { deals(limit: 1) { contact ... leaf } } }`: `levels` fields deep, through the
 * Contact.deals / Deal.contact cycle; one item per list, so that only the depth is over a limit.
 */
function cycle(first: string[], levels: number, leaf = 'id'): string {
  const names = [...first];
  while (names.length < levels) names.push(names[names.length - 1] === 'contact' ? 'deals(limit: 1)' : 'contact');
  return names.slice(0, levels).reduceRight((inner, name) => `${name} { ${inner} }`, leaf);
}
const chain = (levels: number, leaf?: string) => cycle(['activities(limit: 1)', 'nodes'], levels, leaf);

const NESTED_DEALS =
  'deals(limit: 100) { contacts { contact { deals(limit: 100) { contacts { contact {' +
  ' deals(limit: 100) { id title } } } } } } }';
/** The example: over a contact with 30 deals it asks for about 108,000 objects. */
const costly = (id: string, aliases = 4) =>
  `{ ${Array.from({ length: aliases }, (_v, i) => `a${i}: contact(id: "${id}") { ${NESTED_DEALS} }`).join(' ')} }`;

/**
 * A refusal: no data, our error code, a message naming the limit
 * (200 to Accept: application/json, like any validation error).
 */
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

  it('the cost multiplies by list sizes: the nested lists of the example are refused before they run', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Costly', email: uniqueEmail('costly') })).body.data;
    const refused = await post(costly(c.id));
    expectRefused(refused, /cost limit of 20000 exceeded, found \d{9,}/i);
    expect((await strict(costly(c.id))).status).toBe(400);
    // One level of nesting less, 1 + 100 × (1 + 25 × (2 + 10)) =
    // 30,101, is still over the limit; with deals(limit: 2) it is not.
    expectRefused(
      await post(
        `{ contact(id: "${c.id}") { deals(limit: 100) { contacts { contact { deals(limit: 10) { id } } } } } }`,
      ),
      /found 30101/i,
    );
    expect(
      (
        await post(
          `{ contact(id: "${c.id}") { deals(limit: 100) { contacts { contact { deals(limit: 2) { id } } } } } }`,
        )
      ).body.errors,
    ).toBeUndefined();
    expect(
      (await post(`{ contact(id: "${c.id}") { deals(limit: 100) { id title contacts { contact_id } } } }`)).body.errors,
    ).toBeUndefined();
  });

  it('a list without `limit` counts as a full page; `limit` from variables counts with its value', async () => {
    const q =
      'query ($n: Int) { contacts(limit: $n) { total nodes {' +
      ' id deals(limit: $n) { id contacts { contact { id } } } } } }';
    // 1 + n × (1 + n × (1 + 25 × 2)): 2 → 207, 30 → 45,931.
    expect((await post(q, { n: 2 })).body.errors).toBeUndefined();
    expectRefused(await post(q, { n: 30 }), /cost limit of 20000 exceeded, found 45931/i);
    expectRefused(
      await post('{ contacts { nodes { deals { contacts { contact { id } } } } } }'),
      /cost limit of 20000 exceeded/i,
    );
  });

  it('long texts count their size: aliases of a page of notes are refused, one page is not', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Notes', email: uniqueEmail('notes') })).body.data;
    const page = (i: number) => `n${i}: contactNotes(contactId: "${c.id}", limit: 100) { nodes { id content } }`;
    expect((await post(`{ ${page(0)} }`)).body.data.n0.nodes).toEqual([]);
    expectRefused(await post(`{ ${[0, 1, 2].map(page).join(' ')} }`), /cost limit of 20000 exceeded/i);
  });

  it('fragments that multiply when expanded are refused', async () => {
    // 2^14 spreads of one field, in 15 short fragments.
    const fragments = Array.from(
      { length: 14 },
      (_v, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    ).join(' ');
    const r = await post(`{ ...F0 } ${fragments} fragment F14 on Query { __typename }`);
    expectRefused(r, /more than 10000 fields once its fragments are expanded/i);
  });

  it('a document with too many tokens, while it is being parsed', async () => {
    const r = await post(`{ contacts { nodes { ${'id '.repeat(2100)} } } }`);
    expectRefused(r, /token limit of 2000/i);
    expect((await strict(`{ contacts { nodes { ${'id '.repeat(2100)} } } }`)).status).toBe(400);
  });

  it('too many directives', async () => {
    expectRefused(
      await post(`{ ${'... on Query @include(if: true) { __typename } '.repeat(51)} }`),
      /directives limit of 50/i,
    );
    expect(
      (await post(`{ ${'... on Query @include(if: true) { __typename } '.repeat(50)} }`)).body.data.__typename,
    ).toBe('Query');
  });

  it('refused mutations create nothing: no resolver ran', async () => {
    const before = await contactCount();
    const create = (i: number) =>
      `c${i}: createContact(input: { first_name: "Flood", email: "${uniqueEmail('flood')}" }) { id }`;
    expectRefused(await post(`mutation { ${Array.from({ length: 16 }, (_, i) => create(i)).join(' ')} }`), /aliases/i);
    const deep = cycle(
      ['createContact(input: { first_name: "Deep", email: "' + uniqueEmail('deep') + '" })', 'deals'],
      11,
    );
    expectRefused(await post(`mutation { ${deep} }`), /depth/i);
    expect(await contactCount()).toBe(before);
  });

  it('apply to GraphQL over WebSocket too (yoga.getEnveloped)', async () => {
    const sub = subscribe(
      app.base,
      { authorization: `Bearer ${ws.key}` },
      `subscription { ${cycle(['contactChanged', 'contact'], 12)} }`,
    );
    await sub.ended;
    expect(sub.errors[0]?.message).toMatch(/depth limit of 10/i);
    expect(sub.errors[0]?.extensions?.code).toBe('validation_error');
    await sub.close();
    const costlySub = subscribe(
      app.base,
      { authorization: `Bearer ${ws.key}` },
      'subscription { contactChanged { contact {' +
        ' deals(limit: 100) { contacts { contact { deals(limit: 100) { id } } } } } } }',
    );
    await costlySub.ended;
    expect(costlySub.errors[0]?.message).toMatch(/cost limit of 20000 exceeded/i);
    expect(costlySub.errors[0]?.extensions?.code).toBe('validation_error');
    await costlySub.close();
    const costlyQuery = subscribe(app.base, { authorization: `Bearer ${ws.key}` }, costly('ct_none'));
    await costlyQuery.ended;
    expect(costlyQuery.errors[0]?.message).toMatch(/cost limit of 20000 exceeded/i);
    await costlyQuery.close();
  });
});

/** A value for each required variable of a REST operation; the optional ones (limit, cursor...) are left out. */
/** The smallest value of a type: its required fields only, each the smallest of its own type. */
function smallest(type: GraphQLInputType): unknown {
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) return [];
  if (isEnumType(inner)) return inner.getValues()[0].value;
  if (isInputObjectType(inner)) {
    const required = Object.values(inner.getFields()).filter((f) => isNonNullType(f.type));
    return Object.fromEntries(required.map((f) => [f.name, smallest(f.type)]));
  }
  const name = getNamedType(inner).name;
  return name === 'Int' || name === 'Float' ? 1 : name === 'Boolean' ? true : 'x';
}

function requiredVariables(document: DocumentNode): Record<string, unknown> {
  const operation = document.definitions.find((d) => d.kind === Kind.OPERATION_DEFINITION)!;
  const values: Record<string, unknown> = {};
  for (const v of operation.variableDefinitions ?? []) {
    if (v.type.kind !== Kind.NON_NULL_TYPE) continue;
    values[v.variable.name.value] = smallest(typeFromAST(schema, v.type) as GraphQLInputType);
  }
  return values;
}

describe('what stays allowed', () => {
  it('every REST operation passes the limits with room to spare, at the largest page size', () => {
    const halved = { ...DEFAULT_GRAPHQL_LIMITS, maxDepth: 7, maxCost: DEFAULT_GRAPHQL_LIMITS.maxCost / 2 };
    for (const [name, document] of loadOperations(schema)) {
      expect(validate(schema, document, limitRules(halved)), name).toEqual([]);
      // No `limit` counts as 100, the most a REST list takes.
      const cost = operationCost(schema, document, requiredVariables(document), name);
      expect(cost, name).toHaveProperty('cost');
      expect((cost as { cost: number }).cost, name).toBeLessThanOrEqual(halved.maxCost);
    }
  });

  it("GraphiQL's introspection query passes", async () => {
    const r = await post(
      getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true, directiveIsRepeatable: true }),
    );
    expect(r.status).toBe(200);
    expect(r.body.data.__schema.queryType.name).toBe('Query');
  });

  it('a rich client query: contacts with their deals, stages, owners and linked contacts', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Rich', email: uniqueEmail('rich') })).body.data;
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    for (const title of ['Older', 'Newer']) {
      expect(
        (
          await ws.api('POST', '/v1/deals', {
            title,
            pipeline_id: pipeline.id,
            stage_id: pipeline.stages[0].id,
            contact_id: c.id,
          })
        ).status,
      ).toBe(201);
    }
    // 1 + 20 × (2 + 5 × (4 + 25 × 2 + 25)) = 7,941: under the cost limit with deals(limit: 5), not with 100.
    const r = await post(`{
      contacts(limit: 20) { total next_cursor nodes {
        id first_name last_name email phone company job_title status source tags custom_fields created_at
        assigned_user { id name email }
        deals(limit: 5) { id title value currency status stage_name created_at
          stage { id name probability pipeline { id name } }
          owner { id name }
          contacts { contact_id role is_primary contact { id email } }
          stage_history { from_stage_name to_stage_name changed_at } }
      } } }`);
    expect(r.body.errors).toBeUndefined();
    expect(r.body.data.contacts.nodes.length).toBeGreaterThan(0);
    const mine = await post(
      `{ contact(id: "${c.id}") { deals(limit: 5) {` +
        ' title contacts { contact { id } } stage_history { to_stage_name } } } }',
    );
    expect(mine.body.data.contact.deals.map((d: { title: string }) => d.title)).toEqual(['Newer', 'Older']);
  });
});

describe('Contact.deals and every other list field are bounded', () => {
  it('Contact.deals takes limit 1..100, newest first', async () => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Limit', email: uniqueEmail('limit') })).body.data;
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    for (const title of ['D1', 'D2', 'D3']) {
      await ws.api('POST', '/v1/deals', {
        title,
        pipeline_id: pipeline.id,
        stage_id: pipeline.stages[0].id,
        contact_id: c.id,
      });
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
    const ok = await ws.api('POST', '/graphql', {
      query: '{ activities(limit: 5) { nodes { subject contact { id } } } }',
    });
    expect(ok.body.data.activities.nodes[0].contact.id).toBe(c.id);
  });

  it('every list of objects is a page (limit 1..100), takes limit, or is bounded by a rule', () => {
    // Lists whose length a rule bounds (or, for a deal's contacts and stage moves, an estimate the
    // response budget backs): the cost analysis counts them with these sizes.
    expect(LIST_SIZES['Query.apiKeys']).toBe(API_KEYS_SHOWN);
    expect(LIST_SIZES['Query.customFields']).toBe(MAX_CUSTOM_FIELDS);
    const unbounded: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (!isObjectType(type) || type.name.startsWith('__')) continue;
      for (const field of Object.values(type.getFields())) {
        if (!isListType(getNullableType(field.type)) || !isObjectType(getNamedType(field.type))) continue;
        const name = `${type.name}.${field.name}`;
        const isPage = field.name === 'nodes' && type.name.endsWith('Page');
        if (!isPage && !field.args.some((a) => a.name === 'limit') && !(name in LIST_SIZES)) unbounded.push(name);
      }
    }
    expect(unbounded).toEqual([]);
  });
});

describe('introspection', () => {
  it('is off in production unless GRAPHQL_INTROSPECTION turns it on; GraphiQL likewise', () => {
    expect(loadConfig({ NODE_ENV: 'production' })).toMatchObject({ graphqlIntrospection: false, graphiql: false });
    expect(loadConfig({ NODE_ENV: 'production', GRAPHQL_INTROSPECTION: 'true', GRAPHIQL: 'true' })).toMatchObject({
      graphqlIntrospection: true,
      graphiql: true,
    });
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

  /** Misspelt fields, arguments, types and fragment types: each one graphql-js would answer with a suggestion. */
  const MISSPELT = [
    ['{ contacts { nodes { emial } } }', /Cannot query field "emial" on type "Contact"/],
    ['{ contacts(limt: 1) { total } }', /Unknown argument "limt" on field "Query.contacts"/],
    ['query ($f: JSONObjec) { contacts(filter: $f) { total } }', /Unknown type "JSONObjec"/],
    ['{ contacts { nodes { ... on Contac { id } } } }', /Unknown type "Contac"/],
    ['{ contact(id: "x") { deal { id } } }', /Cannot query field "deal" on type "Contact"/],
  ] as const;

  it('when off, error messages suggest no field, argument or type names, over HTTP and WebSocket', async () => {
    const open = await post(MISSPELT[0][0]);
    expect(open.body.errors[0].message).toMatch(/Did you mean "email"\?/);
    const closed = await startTestApp({ graphql: { graphqlIntrospection: false } });
    try {
      const w = await closed.workspace();
      for (const [query, message] of MISSPELT) {
        const r = await w.api('POST', '/graphql', { query });
        expect(r.body.errors[0].message, query).toMatch(message);
        expect(r.text, query).not.toMatch(/did you mean/i);
        const sub = subscribe(closed.base, { authorization: `Bearer ${w.key}` }, query);
        await sub.ended;
        expect(sub.errors[0]?.message, query).toMatch(message);
        expect(JSON.stringify(sub.errors), query).not.toMatch(/did you mean/i);
        await sub.close();
      }
    } finally {
      await closed.close();
    }
  });
});

describe('the response budget', () => {
  it('an answer over GRAPHQL_MAX_RESPONSE_BYTES is one coded error and no data, over HTTP and WebSocket', async () => {
    const small = await startTestApp({
      graphql: { graphqlLimits: { ...DEFAULT_GRAPHQL_LIMITS, maxResponseBytes: 20_000 } },
    });
    try {
      const w = await small.workspace();
      const c = (await w.api('POST', '/v1/contacts', { first_name: 'Budget', email: uniqueEmail('budget') })).body.data;
      for (let i = 0; i < 3; i++)
        expect((await w.api('POST', `/v1/contacts/${c.id}/notes`, { content: 'x'.repeat(9_000) })).status).toBe(201);
      const notes = (limit: number) =>
        `{ contactNotes(contactId: "${c.id}", limit: ${limit}) { nodes { id content } } }`;
      // Two notes (about 18 KB) fit; three do not.
      expect((await w.api('POST', '/graphql', { query: notes(2) })).body.data.contactNotes.nodes).toHaveLength(2);
      const cut = await w.api('POST', '/graphql', { query: notes(3) });
      expect(cut.body.data).toBeUndefined();
      expect(cut.body.errors).toHaveLength(1);
      expect(cut.body.errors[0].extensions.code).toBe('validation_error');
      expect(cut.body.errors[0].message).toMatch(/larger than 20000 bytes/);
      const sub = subscribe(small.base, { authorization: `Bearer ${w.key}` }, notes(3));
      await sub.ended;
      expect(sub.received.filter(Boolean)).toEqual([]);
      expect(sub.errors[0]?.message).toMatch(/larger than 20000 bytes/);
      await sub.close();
      // Each answer has a budget of its own.
      expect((await w.api('POST', '/graphql', { query: notes(2) })).body.data.contactNotes.nodes).toHaveLength(2);
    } finally {
      await small.close();
    }
  });

  it('is read from GRAPHQL_MAX_RESPONSE_BYTES, 16 MiB by default', () => {
    expect(loadConfig({}).graphqlLimits.maxResponseBytes).toBe(16 * 1024 * 1024);
    expect(loadConfig({ GRAPHQL_MAX_RESPONSE_BYTES: '1000' }).graphqlLimits.maxResponseBytes).toBe(1000);
    expect(() => loadConfig({ GRAPHQL_MAX_RESPONSE_BYTES: '0' })).toThrow(/at least 1/);
  });
});

describe('the cost of a document seen before', () => {
  // A document's cost is kept by the values of the variables it depends on; a kept cost must
  // never stand in for other values of them.
  const PAGED = `query Paged($n: Int, $withDeals: Boolean!) {
    contacts(limit: $n) { nodes { id ...Deals @include(if: $withDeals) } }
  }
  fragment Deals on Contact { deals(limit: $n) { id title } }`;
  const costOf = (document: DocumentNode, variables: Record<string, unknown>) => {
    const result = operationCost(schema, document, variables, 'Paged');
    expect(result).toHaveProperty('cost');
    return (result as { cost: number }).cost;
  };

  it('follows the limit and the @include condition, also inside fragments, in any order', () => {
    const document = parse(PAGED);
    const fresh = (variables: Record<string, unknown>) => costOf(parse(PAGED), variables);
    const cases = [
      { n: 1, withDeals: false },
      { n: 50, withDeals: false },
      { n: 50, withDeals: true },
      { n: 1, withDeals: true },
    ];
    const first = cases.map((v) => costOf(document, v));
    expect(new Set(first).size).toBe(4);
    expect(first[2]).toBeGreaterThan(first[1] * 10);
    // Asked again in the opposite order: each as it was, and as a document never seen before costs.
    for (const [i, v] of [...cases.entries()].reverse()) {
      expect(costOf(document, v)).toBe(first[i]);
      expect(fresh(v)).toBe(first[i]);
    }
  });

  it('a document run cheaply first is still refused with a large limit', async () => {
    const query = `query Deep($n: Int) { contacts(limit: $n) { nodes { ${NESTED_DEALS.replaceAll('100', '$n')} } } }`;
    const cheap = await post(query, { n: 1 });
    expect(cheap.body.errors).toBeUndefined();
    expectRefused(await post(query, { n: 100 }), /Query cost limit of \d+ exceeded/);
    expect((await post(query, { n: 1 })).body.errors).toBeUndefined();
  });

  it('a variable left out (its default applies) and one sent as null are weighed apart', async () => {
    const nested = NESTED_DEALS.replaceAll('100', '$n');
    const query = `query Deep($n: Int = 1) { contacts(limit: $n) { nodes { ${nested} } } }`;
    expect((await post(query)).body.errors).toBeUndefined();
    // null is not replaced by the default: each list may hold its most.
    expectRefused(await post(query, { n: null }), /Query cost limit of \d+ exceeded/);
    expect((await post(query, {})).body.errors).toBeUndefined();
    expectRefused(await post(query, { n: null }), /Query cost limit of \d+ exceeded/);
  });

  it('an operation whose cost cannot be computed is refused, and never runs unweighed afterwards', async () => {
    const query = `query Deep($s: Boolean = true) {
      contacts(limit: 100) @include(if: $s) { nodes { ${NESTED_DEALS} } }
    }`;
    expect(operationCost(schema, parse(query), { s: null })).toHaveProperty('error');
    for (let i = 0; i < 2; i++) {
      const nulled = await post(query, { s: null });
      expect(nulled.body.data ?? null).toBeNull();
      expect(nulled.body.errors[0].message).toMatch(/"if".*must not be null/);
      expectRefused(await post(query), /Query cost limit of \d+ exceeded/);
      expectRefused(await post(query, { s: true }), /Query cost limit of \d+ exceeded/);
    }
  });

  it('variables of other types than the declared ones are still refused, however often the document ran', async () => {
    const query = 'query Page($n: Int) { contacts(limit: $n) { nodes { id } } }';
    for (let i = 0; i < 3; i++) expect((await post(query, { n: 2 })).body.errors).toBeUndefined();
    const wrong = await post(query, { n: 'two' });
    expect(wrong.body.data).toBeUndefined();
    expect(wrong.body.errors[0].message).toMatch(/\$n/);
  });
});
