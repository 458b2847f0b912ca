// GraphQL as a signed-in dashboard user: the user-only fields (API keys, custom fields), events
// naming the user, and GraphQL over WebSocket authenticated by the session cookie.
import { describe, expect } from 'vitest';
import { newId } from '../src/ids.ts';
import { MAX_CUSTOM_FIELDS } from '../src/schema/custom-field/custom-field.write.ts';
import { client, gql, uniqueEmail } from './helpers/app.ts';
import { setPassword, signIn, type Signed } from './helpers/dashboard.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { contactProbe, subscribe } from './helpers/subscriptions.ts';

let user: Signed;
let userId: string;

const test = withAppOptions(() => ({ bus: fileBus() }));
const it = test;
// Names the feed so that it publishes the event log on the bus for every test of the file.
test.beforeAll(async ({ app, ws, feed }) => {
  void feed;
  const email = uniqueEmail('owner');
  userId = (await ws.addUser('Owner', email)).id;
  await setPassword(app.db, email);
  user = await signIn(app.base, email);
});

const CREATE_KEY =
  'mutation ($i: ApiKeyCreateInput!) { createApiKey(input: $i) { key api_key {' +
  ' id name prefix scope permissions environment created_at last_used_at expires_at revoked_at } } }';
const KEYS = '{ apiKeys { id name prefix environment revoked_at } }';

describe('API keys', () => {
  it('createApiKey returns a working key once; apiKeys lists it with its prefix', async ({ app }) => {
    const r = await user.gql(CREATE_KEY, {
      i: { name: 'Zapier', scope: 'custom', permissions: ['contacts:read'], expires_at: '2099-01-01' },
    });
    expect(r.errors).toBeUndefined();
    const { key, api_key } = r.data.createApiKey;
    expect(key).toMatch(/^crm_live_[0-9A-Za-z]{32}$/);
    expect(api_key).toMatchObject({
      name: 'Zapier',
      scope: 'custom',
      permissions: ['contacts:read'],
      environment: 'production',
      prefix: key.slice(0, 13),
      revoked_at: null,
    });
    expect(api_key.expires_at).toBe('2099-01-01T00:00:00.000Z');

    const api = client(app.base, key);
    expect((await api('GET', '/v1/contacts')).status).toBe(200);
    // The custom scope holds: reading contacts only.
    expect((await api('POST', '/v1/contacts', { first_name: 'No', email: uniqueEmail() })).status).toBe(403);

    const listed = await user.gql(KEYS);
    expect(listed.data.apiKeys.find((k: { id: string }) => k.id === api_key.id)).toMatchObject({
      prefix: key.slice(0, 13),
    });
    expect(JSON.stringify(listed)).not.toContain(key);
    const row = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: api_key.id } });
    expect(row.userId).toBe(userId);
  });

  it('rejects bad input with validation_error details', async () => {
    // The input type refuses a scope that does not exist; the rules refuse an empty name.
    const badScope = await user.gql(CREATE_KEY, { i: { name: 'x', scope: 'root' } });
    expect(badScope.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      details: { scope: [expect.stringMatching(/ApiKeyScope/)] },
    });
    const bad = await user.gql(CREATE_KEY, { i: { name: '', scope: 'full' } });
    expect(bad.errors![0].extensions).toMatchObject({ code: 'validation_error' });
    expect(Object.keys(bad.errors![0].extensions!.details)).toEqual(['name']);
    const perms = await user.gql(CREATE_KEY, { i: { name: 'x', scope: 'custom', permissions: ['invoices:read'] } });
    expect(perms.errors![0].extensions!.details.permissions[0]).toMatch(/invoices:read/);
    const past = await user.gql(CREATE_KEY, { i: { name: 'x', scope: 'full', expires_at: '2001-01-01T00:00:00Z' } });
    expect(past.errors![0].extensions!.details).toEqual({ expires_at: ['must be in the future'] });
  });

  it('in the sandbox environment creates and lists sandbox keys only', async ({ app }) => {
    const other = await signIn(app.base, user.login.body.user.email);
    await other.api('POST', '/dashboard/api/session', { environment: 'sandbox' });
    const r = await other.gql(CREATE_KEY, { i: { name: 'Test key', scope: 'full' } });
    expect(r.data.createApiKey.key).toMatch(/^crm_test_/);
    expect(r.data.createApiKey.api_key.environment).toBe('sandbox');
    const listed = (await other.gql(KEYS)).data.apiKeys;
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((k: { environment: string }) => k.environment === 'sandbox')).toBe(true);
    expect(
      (await user.gql(KEYS)).data.apiKeys.some((k: { id: string }) => k.id === r.data.createApiKey.api_key.id),
    ).toBe(false);
  });

  it('revokeApiKey takes effect at once, although the key was just verified (and cached)', async ({ app }) => {
    const created = (await user.gql(CREATE_KEY, { i: { name: 'Short-lived', scope: 'full' } })).data.createApiKey;
    const api = client(app.base, created.key);
    expect((await api('GET', '/v1/contacts')).status).toBe(200);
    const revoked = await user.gql('mutation ($id: ID!) { revokeApiKey(id: $id) { id revoked_at } }', {
      id: created.api_key.id,
    });
    expect(revoked.errors).toBeUndefined();
    expect(revoked.data.revokeApiKey.revoked_at).toEqual(expect.any(String));
    expect((await api('GET', '/v1/contacts')).status).toBe(401);
    const other = await app.workspace();
    const foreign = await user.gql('mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', {
      id: (await other.addKey({})).id,
    });
    expect(foreign.errors![0].extensions!.code).toBe('not_found');
  });

  it('refuses API keys: they cannot list, mint or revoke keys', async ({ app, ws }) => {
    for (const query of [
      KEYS,
      'mutation { createApiKey(input: { name: "x", scope: full }) { key } }',
      'mutation { revokeApiKey(id: "key_x") { id } }',
    ]) {
      const r = await gql(app.base, ws.key, query);
      expect(r.errors![0].extensions).toMatchObject({ code: 'forbidden' });
      expect(r.data?.createApiKey ?? null).toBeNull();
    }
  });
});

describe('custom fields', () => {
  const FIELDS = '{ customFields { id key label type options created_at } }';
  const CREATE =
    'mutation ($i: CustomFieldCreateInput!) { createCustomField(input: $i) { id key label type options } }';

  it('defines, lists and removes fields; removing drops their values from records', async ({ ws }) => {
    const created = await user.gql(CREATE, {
      i: { key: 'tier', label: 'Tier', type: 'select', options: ['gold', 'silver'] },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createCustomField).toMatchObject({
      key: 'tier',
      label: 'Tier',
      type: 'select',
      options: ['gold', 'silver'],
    });
    expect((await user.gql(FIELDS)).data.customFields.map((f: { key: string }) => f.key)).toContain('tier');

    const contact = await ws.api('POST', '/v1/contacts', {
      first_name: 'Gold',
      email: uniqueEmail(),
      custom_fields: { tier: 'gold' },
    });
    expect(contact.body.data.custom_fields).toEqual({ tier: 'gold' });

    const duplicate = await user.gql(CREATE, { i: { key: 'tier', type: 'text' } });
    expect(duplicate.errors![0].extensions!.code).toBe('conflict');
    const bad = await user.gql(CREATE, { i: { key: '1bad', type: 'colour' } });
    expect(bad.errors![0].extensions!.code).toBe('validation_error');

    const removed = await user.gql('mutation ($id: ID!) { deleteCustomField(id: $id) { id deleted } }', {
      id: created.data.createCustomField.id,
    });
    expect(removed.data.deleteCustomField).toEqual({ id: created.data.createCustomField.id, deleted: true });
    expect((await user.gql(FIELDS)).data.customFields.map((f: { key: string }) => f.key)).not.toContain('tier');
    expect((await ws.api('GET', `/v1/contacts/${contact.body.data.id}`)).body.data.custom_fields).toEqual({});
    const again = await user.gql('mutation ($id: ID!) { deleteCustomField(id: $id) { id } }', {
      id: created.data.createCustomField.id,
    });
    expect(again.errors![0].extensions!.code).toBe('not_found');
  });

  it(`refuses a field beyond ${MAX_CUSTOM_FIELDS} per workspace`, async ({ app, ws }) => {
    const existing = await app.db.prisma.customFieldDefinition.count({ where: { workspaceId: ws.id } });
    const filler = Array.from({ length: MAX_CUSTOM_FIELDS - existing }, (_, i) => ({
      id: newId('cf'),
      workspaceId: ws.id,
      key: `filler_${i}`,
      type: 'text',
    }));
    await app.db.prisma.customFieldDefinition.createMany({ data: filler });
    try {
      const over = await user.gql(CREATE, { i: { key: 'one_too_many', type: 'text' } });
      expect(over.errors![0].extensions!.code).toBe('unprocessable_entity');
      expect((await user.gql(FIELDS)).data.customFields).toHaveLength(MAX_CUSTOM_FIELDS);
    } finally {
      await app.db.prisma.customFieldDefinition.deleteMany({ where: { id: { in: filler.map((f) => f.id) } } });
    }
  });

  it('a write later in the same document sees a definition made or removed before it', async () => {
    // Contacts are created outside a transaction, checked against the request's loaded definitions.
    const around = (change: string) => `mutation ($a: ContactCreateInput!, $b: ContactCreateInput!) {
      before: createContact(input: $a) { custom_fields }
      ${change}
      after: createContact(input: $b) { custom_fields }
    }`;
    const rows = () => ({
      a: { first_name: 'Before', email: uniqueEmail(), custom_fields: { late: 'x' } },
      b: { first_name: 'After', email: uniqueEmail(), custom_fields: { late: 'x' } },
    });
    const define = 'field: createCustomField(input: { key: "late", type: text }) { id }';
    const defined = await user.gql(around(define), rows());
    expect(defined.errors).toBeUndefined();
    expect(defined.data.before.custom_fields).toEqual({});
    expect(defined.data.after.custom_fields).toEqual({ late: 'x' });

    const id = defined.data.field.id;
    const removed = await user.gql(around(`gone: deleteCustomField(id: "${id}") { deleted }`), rows());
    expect(removed.errors).toBeUndefined();
    expect(removed.data.before.custom_fields).toEqual({ late: 'x' });
    expect(removed.data.after.custom_fields).toEqual({});
  });

  it('refuses API keys', async ({ app, ws }) => {
    expect((await gql(app.base, ws.key, FIELDS)).errors![0].extensions!.code).toBe('forbidden');
    expect(
      (await gql(app.base, ws.key, 'mutation { createCustomField(input: { key: "k", type: text }) { id } }')).errors![0]
        .extensions!.code,
    ).toBe('forbidden');
  });
});

describe('the signed-in user as actor', () => {
  it('events caused by the user name the user', async ({ app }) => {
    const r = await user.gql('mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'By', email: uniqueEmail('actor') },
    });
    const event = await app.db.prisma.event.findFirstOrThrow({
      where: { entityId: r.data.createContact.id, type: 'contact.created' },
    });
    expect(event.actor).toEqual({ type: 'user', id: userId, name: 'Owner' });
  });
});

describe('GraphQL over WebSocket with the session cookie', () => {
  const EVENTS = 'subscription { events(types: ["contact.created"]) { id event data } }';

  it('delivers live events to the signed-in user with the csrf_token in connectionParams', async ({ app, ws }) => {
    const sub = subscribe(app.base, { csrf_token: user.csrf }, EVENTS, undefined, { cookie: user.cookie });
    try {
      await sub.ready(app.bus, contactProbe(ws.id));
      const mail = uniqueEmail('live');
      await ws.api('POST', '/v1/contacts', { first_name: 'Live', email: mail });
      const got = await sub.waitFor((d) => d.events.data.contact.email === mail);
      expect(got.events.event).toBe('contact.created');
    } finally {
      await sub.close();
    }
  });

  it('closes the socket without the token (4403) and for an ended session (4401)', async ({ app }) => {
    const noToken = subscribe(app.base, {}, EVENTS, undefined, { cookie: user.cookie });
    await noToken.ended;
    expect(noToken.errors[0].code).toBe(4403);

    const gone = await signIn(app.base, user.login.body.user.email);
    await gone.api('POST', '/dashboard/api/logout');
    const ended = subscribe(app.base, { csrf_token: gone.csrf }, EVENTS, undefined, { cookie: gone.cookie });
    await ended.ended;
    expect(ended.errors[0].code).toBe(4401);
  });
});
