// Typed inputs, by class: every argument of the schema has a precise type (no JSONObject), each
// input type is read off the zod schema its resolver validates with (same fields, same required
// ones), and both surfaces refuse what does not fit in their own words — REST naming the field in
// `details` as it always did, GraphQL with the path inside the variable.
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  typeFromAST,
  type GraphQLInputType,
  type NamedTypeNode,
} from 'graphql';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { routes } from '../src/rest/routes.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { schema } from '../src/schema/index.ts';
import { gql, uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

const rootFields = () =>
  [schema.getQueryType()!, schema.getMutationType()!, schema.getSubscriptionType()!].flatMap((t) =>
    Object.values(t.getFields()),
  );

describe('the schema types every argument', () => {
  it('no argument or input field anywhere takes JSON or JSONObject', () => {
    const open: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (isInputObjectType(type))
        for (const f of Object.values(type.getFields()))
          if (/^JSON/.test(getNamedType(f.type).name)) open.push(`${type.name}.${f.name}`);
    }
    for (const f of rootFields())
      for (const a of f.args) if (/^JSON/.test(getNamedType(a.type).name)) open.push(`${f.name}(${a.name})`);
    expect(open).toEqual([]);
  });

  it('every mutation input is a named input type, every filter an input type, every sort a list of a sort enum', () => {
    let inputs = 0;
    for (const f of rootFields()) {
      for (const a of f.args) {
        const named = getNamedType(a.type);
        if (a.name === 'input' || a.name === 'filter') {
          expect(isInputObjectType(named), `${f.name}(${a.name})`).toBe(true);
          expect(named.name, `${f.name}(${a.name})`).toMatch(a.name === 'input' ? /Input$/ : /Filter$/);
          expect(named.description, `${named.name} has a description`).toBeTruthy();
          inputs++;
        }
        if (a.name === 'sort') {
          const list = isNonNullType(a.type) ? a.type.ofType : a.type;
          expect(
            isListType(list) && isEnumType(getNamedType(list)) && getNamedType(list).name.endsWith('Sort'),
            `${f.name}(sort)`,
          ).toBe(true);
        }
      }
    }
    expect(inputs).toBeGreaterThan(25);
  });

  it('each REST body type is its zod schema: the same fields, required where zod requires them', () => {
    const operations = loadOperations(schema);
    let compared = 0;
    for (const route of routes.filter((r) => r.body)) {
      const definition = operations.get(route.operation)!.definitions.find((d) => d.kind === 'OperationDefinition')!;
      const variable = definition.variableDefinitions!.find((v) => v.variable.name.value === 'input');
      if (!variable) {
        // A query's body (POST …/query, and …/export) is its variables: the filter (typed as <Type>Where),
        // sort and paging.
        expect((route.list || route.export !== undefined) && route.method === 'POST', route.operation).toBe(true);
        compared++;
        continue;
      }
      const type = getNamedType(typeFromAST(schema, variable.type as NamedTypeNode));
      expect(isInputObjectType(type), route.operation).toBe(true);
      if (!isInputObjectType(type)) continue;
      const json = z.toJSONSchema(route.body!, { io: 'input', unrepresentable: 'any' }) as {
        properties: object;
        required?: string[];
      };
      const fields = type.getFields();
      expect(Object.keys(fields).sort(), route.operation).toEqual(Object.keys(json.properties).sort());
      const required = Object.entries(fields)
        .filter(([, f]) => isNonNullType(f.type as GraphQLInputType))
        .map(([k]) => k)
        .sort();
      expect(required, `${route.operation} required fields`).toEqual([...(json.required ?? [])].sort());
      compared++;
    }
    expect(compared).toBe(routes.filter((r) => r.body).length);
  });
});

describe('refusals on both surfaces', () => {
  it.for<[string, Record<string, unknown>, string, string]>([
    ['a number for text', { first_name: 7, email: 'a@b.co' }, 'first_name', 'must be text'],
    [
      'a value outside a closed set',
      { first_name: 'A', email: 'a@b.co', status: 'vip' },
      'status',
      'must be one of: active, churned, customer, inactive, lead',
    ],
    ['one value for a list', { first_name: 'A', email: 'a@b.co', tags: 'vip' }, 'tags', 'must be a list'],
    [
      'text for an object',
      { first_name: 'A', email: 'a@b.co', address: 'Main St' },
      'address',
      'must be a JSON object',
    ],
    [
      'a nested field of the wrong type',
      { first_name: 'A', email: 'a@b.co', address: { city: 5 } },
      'address.city',
      'must be text',
    ],
    ['a required field left out', { email: 'a@b.co' }, 'first_name', 'is required'],
    ['a required field null', { first_name: null, email: 'a@b.co' }, 'first_name', 'must not be null'],
  ])('REST POST /v1/contacts: %s is a 400 naming the field', async ([, body, field, message], { ws }) => {
    const res = await ws.api('POST', '/v1/contacts', body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details[field]).toEqual([message]);
    expect(res.text).not.toMatch(/Variable "\$|cannot represent|GraphQL/);
  });

  it('REST names every field at fault at once: type errors and rule errors together', async ({ ws }) => {
    const res = await ws.api('POST', '/v1/contacts', { first_name: 7, email: 'not an email', phone: '12' });
    expect(res.status).toBe(400);
    expect(Object.keys(res.body.error.details).sort()).toEqual(['email', 'first_name', 'phone']);
  });

  it('REST still ignores fields the body type does not have, at every depth', async ({ ws }) => {
    const email = uniqueEmail('ignored');
    const res = await ws.api('POST', '/v1/contacts', {
      first_name: 'A',
      email,
      id: 'con_mine',
      engagement_score: 99,
      address: { city: 'Oslo', planet: 'Earth' },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.body.data).toMatchObject({ email, engagement_score: 0, address: { city: 'Oslo' } });
    expect(res.body.data.id).not.toBe('con_mine');
    expect(JSON.stringify(res.body.data.address)).not.toContain('planet');
  });

  it('REST sort and query filters: field names and text become the typed values, bad ones are named', async ({
    ws,
  }) => {
    const sorted = await ws.api('GET', '/v1/contacts?sort=-first_name,created_at&limit=2');
    expect(sorted.status, sorted.text).toBe(200);
    const badSort = await ws.api('GET', '/v1/contacts?sort=-shoe_size');
    expect(badSort.status).toBe(400);
    expect(badSort.body.error.details.sort[0]).toBe(
      'cannot sort by "shoe_size"; allowed: company, created_at, first_name, last_name, updated_at',
    );
    expect((await ws.api('GET', '/v1/deals?min_value=100.5&max_value=2000')).status).toBe(200);
    const badNumber = await ws.api('GET', '/v1/deals?min_value=lots');
    expect(badNumber.status).toBe(400);
    expect(badNumber.body.error.details.min_value).toEqual(['must be a number']);
    const badEnum = await ws.api('GET', '/v1/tasks?priority=whenever');
    expect(badEnum.body.error.details.priority).toEqual(['must be one of: high, low, medium, urgent']);
    expect((await ws.api('GET', '/v1/users?active=false')).status).toBe(200);
    expect((await ws.api('GET', '/v1/contacts?tags=a,b&status=lead')).status).toBe(200);
  });

  it('GraphQL takes enum literals and sort lists, and names the path of a variable that does not fit', async ({
    app,
    ws,
  }) => {
    const created = await gql(
      app.base,
      ws.key,
      'mutation($i: ContactCreateInput!) { createContact(input: $i) { id status } }',
      {
        i: { first_name: 'Typed', email: uniqueEmail('typed'), status: 'customer', address: { city: 'Lyon' } },
      },
    );
    expect(created.errors).toBeUndefined();
    expect(created.data.createContact.status).toBe('customer');
    const listed = await gql(
      app.base,
      ws.key,
      '{ contacts(filter: { status: customer }, sort: [first_name_asc, created_at_desc], limit: 5) { nodes { id } } }',
    );
    expect(listed.errors).toBeUndefined();
    expect(listed.data.contacts.nodes.map((n: { id: string }) => n.id)).toContain(created.data.createContact.id);
    const wrong = await gql(app.base, ws.key, 'mutation($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'X', email: uniqueEmail('x'), address: { city: 5 } },
    });
    expect(wrong.errors?.[0].extensions).toMatchObject({
      code: 'validation_error',
      status: 400,
      details: { 'address.city': [expect.stringMatching(/String/)] },
    });
    const missing = await gql(
      app.base,
      ws.key,
      'mutation($i: ContactCreateInput!) { createContact(input: $i) { id } }',
      { i: { email: uniqueEmail('y') } },
    );
    expect(missing.errors?.[0].extensions).toMatchObject({
      code: 'validation_error',
      details: { first_name: ['is required'] },
    });
  });
});
