// Differential attack on compiled execution: every request runs twice (the first interpreted by
// graphql-js, the second compiled by graphql-jit, GRAPHQL_COMPILE_AFTER=1) and the two answers
// must be equal, byte for byte, whatever the document does: directives with variables, fragments,
// aliases, __typename, null propagation, default values, coercion errors, introspection,
// field permissions of a narrow key and the response-size cut.
import { describe, expect } from 'vitest';
import { client } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { DEFAULT_GRAPHQL_LIMITS } from '../src/graphql/limits.ts';

const test = withAppOptions({ graphql: { graphqlCompileAfter: 1 } });

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /** Which key sends it: the full one or one that may read deals but not contacts. */
  key?: 'full' | 'deals';
}

const CASES: Case[] = [
  {
    name: '@skip/@include with variables and defaults',
    query: `query ($s: Boolean!, $i: Boolean = true) {
      contacts(limit: 2, sort: [created_at_asc]) { nodes { id first_name @skip(if: $s) email @include(if: $i) } }
    }`,
    variables: { s: true },
  },
  {
    name: 'a non-null @skip variable with a default, omitted',
    query: `query ($s: Boolean! = false, $i: Boolean = true) {
      contacts(limit: 2, sort: [created_at_asc]) { nodes { id first_name @skip(if: $s) email @include(if: $i) } }
    }`,
    variables: { i: false },
  },
  {
    name: 'fragments, inline fragments, aliases and __typename',
    query: `fragment F on Contact { id __typename ...G } fragment G on Contact { mail: email }
      query { a: contacts(limit: 1, sort: [created_at_asc]) { __typename nodes { ...F ... on Contact { first_name } } }
              b: contacts(limit: 1, sort: [created_at_desc]) { nodes { ...F } } }`,
  },
  {
    name: 'an error in a non-null root field',
    query: '{ contact(id: "con_nope") { id } }',
  },
  {
    name: 'an error in a nested list argument',
    query: '{ contacts(limit: 2, sort: [created_at_asc]) { nodes { id deals(limit: 1000) { id } } } }',
  },
  {
    name: 'an unreadable neighbour: null with forbidden at its path',
    query: '{ deals(limit: 2, sort: [created_at_asc]) { nodes { id title contact { id first_name email } } } }',
    key: 'deals',
  },
  {
    name: 'a root field of an unreadable resource',
    query: '{ contacts(limit: 1) { nodes { id email } } }',
    key: 'deals',
  },
  {
    name: 'a variable with a default value, omitted',
    query: 'query ($limit: Int = 1) { contacts(limit: $limit, sort: [created_at_asc]) { nodes { id } limit } }',
    variables: {},
  },
  {
    name: 'a variable with a default value, explicit null',
    query: 'query ($limit: Int = 1) { contacts(limit: $limit, sort: [created_at_asc]) { nodes { id } limit } }',
    variables: { limit: null },
  },
  {
    name: 'an unknown enum value in a list variable',
    query: 'query ($s: [ContactSort!]) { contacts(limit: 1, sort: $s) { nodes { id } } }',
    variables: { s: ['created_at_asc', 'bogus'] },
  },
  {
    name: 'an Int variable beyond 32 bits',
    query: 'query ($l: Int) { contacts(limit: $l) { nodes { id } } }',
    variables: { l: 2 ** 31 },
  },
  {
    name: 'a float for an Int variable',
    query: 'query ($l: Int) { contacts(limit: $l) { nodes { id } } }',
    variables: { l: 1.5 },
  },
  {
    name: 'an input object missing its required fields',
    query: 'mutation ($input: ContactCreateInput!) { createContact(input: $input) { id } }',
    variables: { input: { last_name: 'x' } },
  },
  {
    name: 'an input object with an unknown field',
    query: 'mutation ($input: ContactCreateInput!) { createContact(input: $input) { id } }',
    variables: { input: { first_name: 'x', email: 'x@x.io', bogus: 1 } },
  },
  {
    name: 'a list of inputs with a wrong item',
    query: 'mutation ($input: ContactBulkInput!) { bulkCreateContacts(input: $input) { created { id } } }',
    variables: { input: { contacts: [{ first_name: 'a', email: 'a@x.io' }, 5, { first_name: 1 }] } },
  },
  {
    name: 'a wrong type for a custom scalar variable (JSON map)',
    query: 'query ($id: ID!) { contact(id: $id) { id } }',
    variables: { id: true },
  },
  {
    name: 'a wrong filter variable (object for a string)',
    query: 'query ($f: ContactFilter) { contacts(limit: 1, filter: $f) { nodes { id } } }',
    variables: { f: { created_after: { a: 1 } } },
  },
  {
    name: 'introspection of a type',
    query: '{ __type(name: "Contact") { name kind fields(includeDeprecated: true) { name } } __typename }',
  },
  {
    name: 'introspection of the schema root',
    query: '{ __schema { queryType { name } mutationType { name } subscriptionType { name } } }',
  },
  {
    name: 'the same field twice under aliases with different arguments',
    query: `{ x: contacts(limit: 1, sort: [created_at_asc]) { nodes { id } }
              y: contacts(limit: 2, sort: [created_at_asc]) { nodes { id } total has_more } }`,
  },
  {
    name: 'a single value for a list variable',
    query: 'query ($s: [ContactSort!]) { contacts(limit: 2, sort: $s) { nodes { id } } }',
    variables: { s: 'created_at_desc' },
  },
  {
    name: 'a null item in a list of non-null enums',
    query: 'query ($s: [ContactSort!]) { contacts(limit: 2, sort: $s) { nodes { id } } }',
    variables: { s: [null] },
  },
  {
    name: 'a nullable variable omitted in @include',
    query: 'query ($i: Boolean) { contacts(limit: 1, sort: [created_at_asc]) { nodes { id email @include(if: $i) } } }',
    variables: {},
  },
  {
    name: 'an object default value for an input variable',
    query: `query ($f: ContactFilter = { status: lead }, $l: Int! = 2) {
      contacts(limit: $l, filter: $f, sort: [created_at_asc]) { nodes { id status } } }`,
    variables: {},
  },
  {
    name: 'a text for an Int variable',
    query: 'query ($l: Int) { contacts(limit: $l) { nodes { id } } }',
    variables: { l: '5' },
  },
  {
    name: 'a non-null list variable with a default, omitted',
    query: 'query ($s: [ContactSort!]! = [created_at_desc]) { contacts(limit: 2, sort: $s) { nodes { id } } }',
    variables: {},
  },
  {
    name: 'custom scalars and nested objects in answers (JSON maps, DateTime, event data)',
    query: `{ contacts(limit: 2, sort: [created_at_asc]) { nodes { id created_at custom_fields address { city } tags } }
              eventLog(limit: 3) { nodes { id type data occurred_at } } }`,
  },
  {
    name: 'a huge list variable of wrong values (at most 50 errors, short messages)',
    query: 'query ($s: [ContactSort!]) { contacts(limit: 1, sort: $s) { nodes { id } } }',
    variables: { s: Array.from({ length: 20_000 }, (_, i) => `bogus${i}`) },
  },
  {
    name: 'a huge list of wrong input objects',
    query: 'mutation ($input: ContactBulkInput!) { bulkCreateContacts(input: $input) { created { id } } }',
    variables: { input: { contacts: Array.from({ length: 20_000 }, () => ({ first_name: 5, nope: true })) } },
  },
];

describe('compiled and interpreted runs answer alike', () => {
  let deals: string;

  test('setup: records to read', async ({ ws }) => {
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    for (let i = 0; i < 3; i++) {
      const c = (await ws.api('POST', '/v1/contacts', { first_name: `Diff ${i}`, email: `diff${i}@x.io` })).body.data;
      const r = await ws.api('POST', '/v1/deals', {
        title: `Diff deal ${i}`,
        pipeline_id: pipeline.id,
        stage_id: pipeline.stages[0].id,
        value: 5,
        contact_id: c.id,
      });
      expect(r.status, r.text).toBe(201);
    }
    deals = (await ws.addKey({ scope: 'custom', permissions: ['deals:read'] } as never)).key;
    expect(deals).toBeTruthy();
  });

  test.for(CASES)('$name', async (c, { app, ws }) => {
    const key = c.key === 'deals' ? deals : ws.key;
    const send = () => client(app.base, key)('POST', '/graphql', { query: c.query, variables: c.variables });
    const first = await send();
    const second = await send();
    const third = await send();
    expect({ status: second.status, body: second.body }).toEqual({ status: first.status, body: first.body });
    expect({ status: third.status, body: third.body }).toEqual({ status: first.status, body: first.body });
    // graphql-js stops at 50 variable errors and adds one saying so.
    expect(second.body.errors?.length ?? 0).toBeLessThanOrEqual(51);
    expect(second.text.length).toBeLessThan(64 * 1024);
  });
});

describe('the response-size cut, compiled as interpreted', () => {
  test('an answer over GRAPHQL_MAX_RESPONSE_BYTES is cut on every run, and one under it never', async ({
    startApp,
  }) => {
    const small = await startApp({
      graphql: { graphqlCompileAfter: 1, graphqlLimits: { ...DEFAULT_GRAPHQL_LIMITS, maxResponseBytes: 4000 } },
    });
    const w = await small.workspace();
    for (let i = 0; i < 5; i++) {
      const r = await w.api('POST', '/v1/contacts', {
        first_name: `Big ${i}`,
        email: `big${i}@x.io`,
        job_title: `${'é"\\'.repeat(80)}`,
      });
      expect(r.status, r.text).toBe(201);
    }
    const big = '{ contacts(limit: 5, sort: [created_at_asc]) { nodes { __typename id t: job_title job_title } } }';
    const fits = '{ contacts(limit: 1, sort: [created_at_asc]) { nodes { id job_title } } }';
    for (const query of [big, fits]) {
      const answers = [];
      for (let i = 0; i < 3; i++) {
        const r = await client(small.base, w.key)('POST', '/graphql', { query });
        answers.push({ status: r.status, body: r.body });
      }
      expect(answers[1]).toEqual(answers[0]);
      expect(answers[2]).toEqual(answers[0]);
    }
    const cut = await client(small.base, w.key)('POST', '/graphql', { query: big });
    expect(cut.body.data ?? null).toBeNull();
    expect(cut.body.errors?.[0]?.extensions?.code).toBe('validation_error');
  });
});
