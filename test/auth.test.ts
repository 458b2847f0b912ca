import { describe, expect } from 'vitest';
import { client, gql, uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';
import { revokeApiKey } from '../src/admin/workspaces.ts';

describe('API keys', () => {
  it('have the documented prefixes and are stored only as hashes', async ({ app, ws }) => {
    const sandbox = await ws.addKey({ sandbox: true });
    expect(ws.key).toMatch(/^crm_live_[0-9A-Za-z]{32}$/);
    expect(sandbox.key).toMatch(/^crm_test_[0-9A-Za-z]{32}$/);
    const rows = await app.db.prisma.apiKey.findMany({ where: { workspaceId: ws.id } });
    for (const row of rows) expect(JSON.stringify(row)).not.toContain(ws.key.slice(9));
  });

  // Each answer says what is wrong: the header's form, or the key.
  it.for([
    ['no header', undefined, /^Missing API key/],
    ['two spaces', 'Bearer  KEY', /^Malformed Authorization header/],
    ['no scheme', 'KEY', /^Malformed Authorization header/],
    ['other scheme', 'Basic KEY', /^Malformed Authorization header/],
    ['lower-case scheme glued', 'bearerKEY', /^Malformed Authorization header/],
    ['wrong key shape', 'Bearer KEYx', /^Invalid API key: keys are crm_live_ or crm_test_/],
    ['a truncated key', 'Bearer crm_live_nope', /^Invalid API key: keys are crm_live_ or crm_test_/],
    ['unknown key', 'Bearer crm_live_00000000000000000000000000000000', /^Invalid or revoked API key/],
  ] as const)('401 unauthorized: %s', async ([, header, message], { app, ws }) => {
    const headers: Record<string, string> = header ? { authorization: header.replace('KEY', ws.key) } : {};
    const r = await client(app.base)('GET', '/v1/contacts', undefined, headers);
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect(r.body.error.message).toMatch(message);
  });

  it('401 for expired and revoked keys', async ({ app, ws }) => {
    const expiring = await ws.addKey({ expiresAt: new Date(Date.now() + 600).toISOString() });
    expect((await expiring.api('GET', '/v1/contacts')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 700));
    expect((await expiring.api('GET', '/v1/contacts')).status).toBe(401);
    const doomed = await ws.addKey({});
    await revokeApiKey(app.db.prisma, doomed.id);
    expect((await doomed.api('GET', '/v1/contacts')).status).toBe(401);
  });

  it('401 on GraphQL without a valid key', async ({ app }) => {
    const r = await client(app.base)('POST', '/graphql', { query: '{ __typename }' });
    expect(r.status).toBe(401);
    expect(r.body.errors[0].extensions.code).toBe('unauthorized');
  });
});

describe('scopes', () => {
  it('read_only reads but every write is 403 forbidden, on REST and GraphQL', async ({ app, ws }) => {
    const ro = await ws.addKey({ scope: 'read_only' });
    expect((await ro.api('GET', '/v1/contacts')).status).toBe(200);
    const w = await ro.api('POST', '/v1/contacts', { first_name: 'x', email: uniqueEmail() });
    expect(w.status).toBe(403);
    expect(w.body.error.code).toBe('forbidden');
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'x', email: uniqueEmail() })).body.data;
    expect((await ro.api('PUT', `/v1/contacts/${c.id}`, { company: 'x' })).status).toBe(403);
    expect((await ro.api('DELETE', `/v1/contacts/${c.id}`)).status).toBe(403);
    const g = await gql(app.base, ro.key, 'mutation($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'x', email: uniqueEmail() },
    });
    expect(g.errors?.[0].extensions?.code).toBe('forbidden');
  });

  it('custom keys get exactly their permissions; write implies read', async ({ ws }) => {
    const reader = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    expect((await reader.api('GET', '/v1/contacts')).status).toBe(200);
    expect((await reader.api('POST', '/v1/contacts', { first_name: 'x', email: uniqueEmail() })).status).toBe(403);
    const writer = await ws.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    expect((await writer.api('POST', '/v1/contacts', { first_name: 'x', email: uniqueEmail() })).status).toBe(201);
    expect((await writer.api('GET', '/v1/contacts')).status).toBe(200);
    const noContacts = await ws.addKey({ scope: 'custom', permissions: ['webhooks:read'] });
    expect((await noContacts.api('GET', '/v1/contacts')).status).toBe(403);
  });
});

describe('isolation', () => {
  it('sandbox keys work on separate data', async ({ ws }) => {
    const sandbox = await ws.addKey({ sandbox: true });
    const email = uniqueEmail('sandy');
    const s = await sandbox.api('POST', '/v1/contacts', { first_name: 'Sandy', email });
    expect(s.status).toBe(201);
    expect((await ws.api('GET', `/v1/contacts/${s.body.data.id}`)).status).toBe(404);
    // The same email is free in production: the data sets are separate.
    const live = await ws.api('POST', '/v1/contacts', { first_name: 'Live', email });
    expect(live.status).toBe(201);
    expect((await sandbox.api('GET', `/v1/contacts/${live.body.data.id}`)).status).toBe(404);
    const list = await sandbox.api('GET', '/v1/contacts?limit=100');
    expect(list.body.data.map((c: { id: string }) => c.id)).toEqual([s.body.data.id]);
  });

  it('a key of workspace A never sees workspace B (REST and GraphQL)', async ({ app, ws, other }) => {
    const b = (await other.api('POST', '/v1/contacts', { first_name: 'Bee', email: uniqueEmail('bee') })).body.data;
    expect((await ws.api('GET', `/v1/contacts/${b.id}`)).status).toBe(404);
    expect((await ws.api('GET', `/v1/contacts/${b.id}/notes`)).status).toBe(404);
    expect((await ws.api('POST', `/v1/contacts/${b.id}/notes`, { content: 'x' })).status).toBe(404);
    expect((await ws.api('GET', `/v1/contacts/${b.id}/timeline`)).status).toBe(404);
    const list = await ws.api('GET', '/v1/contacts?limit=100');
    expect(list.body.data.some((c: { id: string }) => c.id === b.id)).toBe(false);
    const g = await gql(app.base, ws.key, 'query($id: ID!) { contact(id: $id) { id } }', { id: b.id });
    expect(g.data?.contact ?? null).toBeNull();
    expect(g.errors?.[0].extensions?.code).toBe('not_found');
  });
});
