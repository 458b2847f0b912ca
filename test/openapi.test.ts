// The OpenAPI document and the /docs page, as a client meets them: without a key, over HTTP.
import { compileErrors, validate } from '@readme/openapi-parser';
import { describe, expect } from 'vitest';
import { z } from 'zod';
import { buildOpenApi } from '../src/rest/openapi.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { routes } from '../src/rest/routes.ts';
import { schema } from '../src/schema/index.ts';
import { contactCreateInput } from '../src/schema/contact/contact.inputs.ts';
import { client, uniqueEmail } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

type Json = Record<string, any>;

let doc: Json;

test.beforeAll(async ({ app }) => {
  const r = await client(app.base)('GET', '/v1/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
});

const openApiPath = (path: string) => '/v1' + path.replace(/:(\w+)/g, '{$1}');
/** Follows a local `$ref` (`#/components/...`). */
const deref = (node: Json): Json =>
  node.$ref
    ? node.$ref
        .slice(2)
        .split('/')
        .reduce((n: Json, k: string) => n[k], doc)
    : node;
const requestBody = (path: string, method: string) =>
  deref(doc.paths[path][method].requestBody.content['application/json'].schema);

describe('GET /v1/openapi.json', () => {
  it('answers an OpenAPI 3.1 document without a key, also under /api/v1', async ({ app }) => {
    expect(doc.openapi).toMatch(/^3\.1\./);
    const alias = await client(app.base)('GET', '/api/v1/openapi.json');
    expect(alias.status).toBe(200);
    expect(alias.headers.get('content-type')).toMatch(/^application\/json/);
    expect(alias.body).toEqual(doc);
  });

  it('is a valid OpenAPI document', async () => {
    const result = await validate(structuredClone(doc) as Parameters<typeof validate>[0]);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('describes every route of the route table with its method and path parameters', () => {
    for (const route of routes) {
      const path = openApiPath(route.path);
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${path}`).toBeDefined();
      expect(op.operationId).toBe(route.operationId ?? route.operation);
      const pathParams = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name);
      expect(pathParams).toEqual([...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]));
    }
    const documented = Object.values(doc.paths).reduce((n: number, ops) => n + Object.keys(ops as Json).length, 0);
    expect(documented).toBe(routes.length);
  });

  it('generates request bodies from the zod schemas the resolvers validate with', () => {
    const contact = requestBody('/v1/contacts', 'post');
    const { $schema: _, ...fromZod } = z.toJSONSchema(contactCreateInput, {
      target: 'draft-2020-12',
      io: 'input',
      unrepresentable: 'any',
    });
    expect(contact).toEqual(fromZod);
    expect(contact.required).toEqual(['first_name', 'email']);
    expect(contact.properties.email.format).toBe('email');
    expect(doc.paths['/v1/contacts'].post.requestBody.required).toBe(true);

    const deal = requestBody('/v1/deals', 'post');
    expect(deal.required).toEqual(['title', 'pipeline_id']);
    expect(deal.properties.value.anyOf).toContainEqual(expect.objectContaining({ type: 'number' }));
    expect(requestBody('/v1/deals/{id}', 'put').properties.status.enum).toEqual(['open', 'won', 'lost']);
    // Bulk rows are checked one by one, and documented as the create body.
    expect(requestBody('/v1/contacts/bulk', 'post').properties.contacts.items).toEqual(contact);
    for (const route of routes.filter((r) => r.body)) {
      expect(
        doc.paths[openApiPath(route.path)][route.method.toLowerCase()].requestBody,
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
  });

  it('lists filters and paging parameters where a route takes them', () => {
    const names = (path: string, method = 'get') => doc.paths[path][method].parameters.map((p: Json) => p.name);
    expect(names('/v1/contacts')).toEqual(
      expect.arrayContaining(['status', 'tags', 'created_after', 'limit', 'cursor', 'sort', 'fields']),
    );
    expect(names('/v1/deals')).toEqual(
      expect.arrayContaining(['pipeline_id', 'min_value', 'expected_close_before', 'limit', 'cursor', 'sort']),
    );
    expect(names('/v1/tasks')).toEqual(
      expect.arrayContaining(['assignee_id', 'priority', 'due_before', 'related_to_type']),
    );
    expect(names('/v1/contacts/search')).toEqual(expect.arrayContaining(['q', 'limit', 'cursor', 'fields']));
    expect(names('/v1/deals/{id}/contacts')).not.toContain('sort');
    const status = doc.paths['/v1/contacts'].get.parameters.find((p: Json) => p.name === 'status');
    expect(status.schema.enum).toEqual(['active', 'inactive', 'lead', 'customer', 'churned']);
    const limit = doc.paths['/v1/contacts'].get.parameters.find((p: Json) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 25 });
    expect(doc.paths['/v1/contacts/search'].get.parameters.find((p: Json) => p.name === 'q').required).toBe(true);
  });

  it('wraps data in the envelope; lists carry the list meta', () => {
    const list = doc.paths['/v1/contacts'].get.responses['200'].content['application/json'].schema;
    expect(list.required).toEqual(['success', 'data', 'meta']);
    expect(list.properties.data.type).toBe('array');
    expect(deref(list.properties.meta).required).toEqual(['total', 'limit', 'has_more', 'next_cursor']);
    const created = doc.paths['/v1/deals'].post.responses['201'].content['application/json'].schema;
    const deal = deref(created.properties.data);
    expect(deal.properties.value.type).toEqual(['number', 'null']);
    expect(deal.properties.created_at).toMatchObject({ format: 'date-time' });
    expect(deal.properties.stage_history.items.properties).toHaveProperty('changed_by');
    expect(Object.keys(doc.paths['/v1/contacts/bulk'].post.responses)).toEqual(expect.arrayContaining(['201', '207']));
  });

  it('documents answers as typed as the schema: enums, named object shapes, null only where it can be', () => {
    const schemas = doc.components.schemas;
    expect(schemas.Contact.properties.status).toEqual({
      type: 'string',
      enum: ['active', 'churned', 'customer', 'inactive', 'lead'],
    });
    expect(schemas.Contact.properties.id).toEqual({ type: 'string' });
    expect(schemas.Contact.properties.created_at).toEqual({ type: 'string', format: 'date-time' });
    expect(schemas.Contact.properties.address.anyOf).toEqual([
      { $ref: '#/components/schemas/Address' },
      { type: 'null' },
    ]);
    expect(schemas.Address.required).toEqual(['street', 'city', 'state', 'zip', 'country']);
    expect(schemas.Contact.properties.custom_fields).toMatchObject({
      type: 'object',
      additionalProperties: { type: ['string', 'number', 'boolean'] },
    });
    expect(schemas.Webhook.properties.retry_policy).toEqual({ $ref: '#/components/schemas/RetryPolicy' });
    expect(schemas.Webhook.properties.headers).toMatchObject({
      type: 'object',
      additionalProperties: { type: 'string' },
    });
    expect(schemas.DealDetail.properties.stage_history.items.properties.changed_by.anyOf[0]).toEqual({
      $ref: '#/components/schemas/Actor',
    });
    expect(schemas.Actor.properties.type.enum).toEqual(['api_key', 'system', 'user']);
    // Nothing in an answer is a bare object any more.
    const bare: string[] = [];
    const walk = (node: unknown, at: string) => {
      if (!node || typeof node !== 'object') return;
      const n = node as Json;
      if (
        (n.type === 'object' || (Array.isArray(n.type) && n.type.includes('object'))) &&
        !n.properties &&
        !n.additionalProperties
      )
        bare.push(at);
      for (const [k, v] of Object.entries(n)) walk(v, `${at}/${k}`);
    };
    for (const [name, s] of Object.entries(schemas)) if (!name.endsWith('Body')) walk(s, name);
    expect(bare).toEqual([]);
  });

  it('documents the data a route really answers', async ({ ws }) => {
    const r = await ws.api('POST', '/v1/contacts', { first_name: 'Ada', email: uniqueEmail('ada') });
    expect(r.status).toBe(201);
    const schema = deref(
      doc.paths['/v1/contacts'].post.responses['201'].content['application/json'].schema.properties.data,
    );
    expect(Object.keys(r.body.data).sort()).toEqual(Object.keys(schema.properties).sort());
    expect(Object.keys(r.body.meta)).toEqual(
      expect.arrayContaining(deref({ $ref: '#/components/schemas/Meta' }).required),
    );
  });

  it('answers errors in the shared error envelope, with the statuses each route can give', () => {
    const envelope = doc.components.schemas.ErrorEnvelope;
    expect(envelope.required).toEqual(['success', 'error', 'meta']);
    expect(envelope.properties.error.required).toEqual(['code', 'message']);
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops as Json)) {
        const errors = Object.entries(op.responses as Json).filter(([status]) => Number(status) >= 400);
        expect(
          errors.map(([s]) => s),
          `${method} ${path}`,
        ).toEqual(expect.arrayContaining(['401', '429', '500']));
        for (const [status, response] of errors) {
          expect(deref(response).content['application/json'].schema, `${method} ${path} ${status}`).toEqual({
            $ref: '#/components/schemas/ErrorEnvelope',
          });
        }
      }
    }
    expect(Object.keys(doc.paths['/v1/contacts'].post.responses)).toEqual(
      expect.arrayContaining(['400', '403', '409', '413', '415', '422']),
    );
    expect(Object.keys(doc.paths['/v1/contacts/{id}'].get.responses)).toContain('404');
    expect(Object.keys(doc.paths['/v1/users'].get.responses)).not.toContain('403');
    expect(deref(doc.paths['/v1/contacts'].get.responses['429']).headers).toHaveProperty('Retry-After');
  });

  it('names the bearer key scheme and the rate-limit headers', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    const headers = doc.paths['/v1/tasks'].get.responses['200'].headers;
    expect(Object.keys(headers)).toEqual(
      expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'X-Request-Id']),
    );
  });
});

describe('the document as a client generator reads it', () => {
  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops as Json).map(([method, op]) => ({ path, method, op: op as Json })),
    );
  /** Every node of a JSON value, with its path. */
  function* walk(node: unknown, at = '#'): Generator<[string, Json]> {
    if (!node || typeof node !== 'object') return;
    yield [at, node as Json];
    for (const [k, v] of Object.entries(node)) yield* walk(v, `${at}/${k}`);
  }

  it('describes every operation, tag and server', () => {
    for (const { path, method, op } of operations()) expect(op.description, `${method} ${path}`).toMatch(/\S/);
    for (const tag of doc.tags) expect(tag.description, tag.name).toMatch(/\S/);
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/', description: expect.any(String) })]);
  });

  it('names PUBLIC_URL as the first server when it is set', () => {
    const served = buildOpenApi(schema, loadOperations(schema), { publicOrigin: 'https://crm.example.com' });
    expect(served.servers.map((s) => s.url)).toEqual(['https://crm.example.com', '/']);
  });

  it('marks the headers every answer carries as required, and the replay header as optional on writes', async ({
    app,
    ws,
  }) => {
    for (const name of [
      'X-Request-Id',
      'X-API-Version',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
    ]) {
      expect(doc.components.headers[name].required, name).toBe(true);
    }
    expect(doc.components.headers['Idempotent-Replayed'].required).toBe(false);
    for (const { path, method, op } of operations()) {
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const headers = deref(response).headers;
        expect(Object.keys(headers), `${method} ${path} ${status}`).toEqual(
          expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Remaining']),
        );
        // Exports are reads: a POST that names its filter in the body, never replayed. An import's
        // upload is read as it arrives, never kept whole to replay.
        const replayable =
          Number(status) < 300 &&
          (method === 'post' || method === 'put') &&
          !path.endsWith('/export') &&
          path !== '/v1/imports';
        expect('Idempotent-Replayed' in headers, `${method} ${path} ${status}`).toBe(replayable);
      }
    }
    expect(deref(doc.paths['/v1/contacts'].get.responses['503']).headers).toHaveProperty('Retry-After');
    // What the document promises, on answers that are not successes: an unknown id and a missing key.
    const missing = await ws.api('GET', '/v1/contacts/con_missing');
    const unauthorized = await client(app.base)('GET', '/v1/contacts');
    for (const r of [missing, unauthorized]) {
      for (const name of [
        'x-request-id',
        'x-api-version',
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
      ])
        expect(r.headers.get(name), `${r.status} ${name}`).not.toBeNull();
    }
  });

  it('gives dates, date-times and URLs in requests their formats', () => {
    expect(requestBody('/v1/deals', 'post').properties.expected_close_date.anyOf).toContainEqual(
      expect.objectContaining({ type: 'string', format: 'date' }),
    );
    const due = requestBody('/v1/tasks', 'post').properties.due_date.anyOf.find((s: Json) => s.type === 'string');
    expect(due.anyOf.map((s: Json) => s.format)).toEqual(['date', 'date-time']);
    const createdAfter = doc.paths['/v1/contacts'].get.parameters.find((p: Json) => p.name === 'created_after');
    expect(createdAfter.schema.anyOf.map((s: Json) => s.format)).toEqual(['date', 'date-time']);
    expect(requestBody('/v1/webhooks', 'post').properties.url.format).toBe('uri');
  });

  it('tells request defaults in descriptions, so generated clients do not have to send them', () => {
    for (const [name, schema] of Object.entries(doc.components.schemas as Json).filter(([n]) => n.endsWith('Body'))) {
      for (const [at, node] of walk(schema)) expect('default' in node, `${name} ${at}`).toBe(false);
    }
    const merge = requestBody('/v1/contacts/merge', 'post');
    expect(merge.required).not.toContain('merge_strategy');
    expect(merge.properties.merge_strategy.description).toContain('Default: `prefer_primary`');
  });
});

describe('GET /docs', () => {
  const remote = /(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i;

  it('serves an API reference page without a key that loads nothing from other hosts', async ({ app }) => {
    const api = client(app.base);
    const page = await api('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.text).not.toMatch(remote);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    const init = await api('GET', '/docs/init.js');
    expect(init.text).toContain("url: '/v1/openapi.json'");
    expect(init.text).toContain('validatorUrl: null');
    expect(init.text).not.toMatch(remote);
    for (const asset of page.text.matchAll(/(?:src|href)="([^"]+)"/g)) {
      expect((await api('GET', asset[1])).status, asset[1]).toBe(200);
    }
  });

  it('serves only the assets the page needs from the package', async ({ app }) => {
    expect((await client(app.base)('GET', '/docs/index.html')).status).toBe(404);
  });
});
