// Subscriptions API: CRUD, validation, URL rules, secrets at rest, logs, isolation and scopes.
import { describe, expect, it } from 'vitest';
import type { TestApp, TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

let app: TestApp;
let strict: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
const url = 'https://hooks.example.com/crm';

test.beforeAll(async ({ app: started, ws: main, other: neighbour, startApp }) => {
  app = started;
  // The production rules: https only, public addresses only.
  strict = await startApp({ webhooks: { webhookAllowHttp: false, webhookAllowPrivateUrls: false } });
  ws = main;
  other = neighbour;
});

describe('create', () => {
  it('201 with a generated whsec_ secret shown once, defaults of the product decisions', async () => {
    const r = await ws.api('POST', '/v1/webhooks', {
      url,
      events: ['contact.created', 'deal.won'],
      description: 'main',
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      url,
      events: ['contact.created', 'deal.won'],
      description: 'main',
      active: true,
      http_method: 'POST',
      content_type: 'json',
      timeout_seconds: 30,
      auto_disable_after: 10,
      payload_format: 'event',
      retry_policy: { max_retries: 5, intervals_seconds: [5, 30, 120, 900, 3600] },
    });
    expect(r.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await ws.api('GET', `/v1/webhooks/${r.body.data.id}`);
    expect(got.body.data).not.toHaveProperty('secret');
    const row = await app.db.prisma.webhookSubscription.findUnique({ where: { id: r.body.data.id } });
    expect(row!.secretEncrypted).not.toContain(r.body.data.secret.slice(6, 20));
    expect(app.webhooks.box.open(row!.secretEncrypted)).toBe(r.body.data.secret);
  });

  it('takes every setting and a given secret', async () => {
    const body = {
      url,
      events: ['task.created'],
      secret: 'my-own-secret-1234',
      name: 'CRM sync',
      http_method: 'PUT',
      content_type: 'form',
      headers: { 'X-Team': 'sales' },
      timeout_seconds: 5,
      retry_policy: { max_retries: 2, intervals_seconds: [1, 2] },
      auto_disable_after: 3,
      payload_format: 'record',
      filters: { status: 'customer' },
      active: false,
    };
    const r = await ws.api('POST', '/v1/webhooks', body);
    expect(r.status).toBe(201);
    const { secret, ...rest } = body;
    expect(r.body.data).toMatchObject(rest);
    expect(r.body.data.secret).toBe(secret);
  });

  it.each([
    [{ url, events: ['contact.exploded'] }, 'events'],
    [{ url }, 'events'],
    [{ url, events: [] }, 'events'],
    [{ events: ['contact.created'] }, 'url'],
    [{ url: 'ftp://x.example.com', events: ['contact.created'] }, 'url'],
    [{ url: 'not a url', events: ['contact.created'] }, 'url'],
    [{ url, events: ['contact.created'], timeout_seconds: 61 }, 'timeout_seconds'],
    [{ url, events: ['contact.created'], retry_policy: { max_retries: 11 } }, 'retry_policy.max_retries'],
    [{ url, events: ['contact.created'], http_method: 'GET' }, 'http_method'],
    [{ url, events: ['contact.created'], headers: { 'X-Service-Signature': 'forged' } }, 'headers'],
    [{ url, events: ['contact.created'], payload_format: 'xml' }, 'payload_format'],
  ])('400 for %j (%s)', async (body, field) => {
    const r = await ws.api('POST', '/v1/webhooks', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    // Item errors name the item, e.g. events.0.
    expect(Object.keys(r.body.error.details).some((k) => k === field || k.startsWith(`${field}.`))).toBe(true);
  });

  it('accepts the spec event names nothing emits yet', async () => {
    expect((await ws.api('POST', '/v1/webhooks', { url, events: ['invoice.paid', 'form.submitted'] })).status).toBe(
      201,
    );
  });
});

describe('URL rules (production settings)', () => {
  it.each([
    'http://hooks.example.com/x',
    'https://127.0.0.1/x',
    'https://10.1.2.3/x',
    'https://192.168.0.10/x',
    'https://172.16.5.5/x',
    'https://169.254.169.254/latest/meta-data',
    'https://100.64.0.1/x',
    'https://0.0.0.0/x',
    'https://[::1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://[fe80::1]/x',
    'https://localhost/x',
  ])('refuses %s at save', async (target) => {
    const w = await strict.workspace();
    const r = await w.api('POST', '/v1/webhooks', { url: target, events: ['contact.created'] });
    expect(r.status).toBe(400);
    expect(r.body.error.details.url).toBeDefined();
  });

  it('accepts a public https address', async () => {
    const w = await strict.workspace();
    expect(
      (await w.api('POST', '/v1/webhooks', { url: 'https://93.184.215.14/hook', events: ['contact.created'] })).status,
    ).toBe(201);
  });
});

describe('read, update, delete', () => {
  it('lists, gets, updates and deletes; isolation and scopes', async () => {
    const w = await app.workspace();
    const a = (await w.api('POST', '/v1/webhooks', { url, events: ['contact.created'] })).body.data;
    await w.api('POST', '/v1/webhooks', { url, events: ['deal.won'] });
    const list = await w.api('GET', '/v1/webhooks');
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.every((x: object) => !('secret' in x))).toBe(true);
    const up = await w.api('PUT', `/v1/webhooks/${a.id}`, {
      events: ['contact.updated'],
      active: false,
      timeout_seconds: 10,
    });
    expect(up.status).toBe(200);
    expect(up.body.data).toMatchObject({ events: ['contact.updated'], active: false, timeout_seconds: 10, url });
    expect((await w.api('PUT', `/v1/webhooks/${a.id}`, { url: 'ftp://x' })).status).toBe(400);

    expect((await other.api('GET', `/v1/webhooks/${a.id}`)).status).toBe(404);
    expect((await other.api('PUT', `/v1/webhooks/${a.id}`, { active: true })).status).toBe(404);
    expect((await other.api('GET', `/v1/webhooks/${a.id}/logs`)).status).toBe(404);
    expect((await other.api('DELETE', `/v1/webhooks/${a.id}`)).status).toBe(404);
    expect(
      (await other.api('GET', '/v1/webhooks')).body.data.find((x: { id: string }) => x.id === a.id),
    ).toBeUndefined();

    const ro = await w.addKey({ scope: 'read_only' });
    expect((await ro.api('GET', '/v1/webhooks')).status).toBe(200);
    expect((await ro.api('POST', '/v1/webhooks', { url, events: ['contact.created'] })).status).toBe(403);
    expect((await ro.api('POST', `/v1/webhooks/${a.id}/test`)).status).toBe(403);
    const contactsOnly = await w.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    expect((await contactsOnly.api('GET', '/v1/webhooks')).status).toBe(403);

    const del = await w.api('DELETE', `/v1/webhooks/${a.id}`);
    expect(del.body.data).toEqual({ id: a.id, deleted: true });
    expect((await w.api('GET', `/v1/webhooks/${a.id}`)).status).toBe(404);
  });

  it('an update ignores a secret in its body; rotate_secret replaces it with a generated one, shown once', async () => {
    const w = await app.workspace();
    const created = (
      await w.api('POST', '/v1/webhooks', { url, events: ['contact.created'], secret: 'first-secret-0123456789' })
    ).body.data;
    const sealed = async () =>
      app.webhooks.box.open(
        (await app.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: created.id } })).secretEncrypted,
      );

    const ignored = await w.api('PUT', `/v1/webhooks/${created.id}`, {
      secret: 'chosen-by-a-body-0123456789',
      description: 'renamed',
    });
    expect(ignored.status).toBe(200);
    expect(ignored.body.data).toMatchObject({ description: 'renamed' });
    expect(ignored.body.data.secret).toBeNull();
    expect(await sealed()).toBe('first-secret-0123456789');

    const rotated = await w.api('PUT', `/v1/webhooks/${created.id}`, { rotate_secret: true });
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(await sealed()).toBe(rotated.body.data.secret);
    expect((await w.api('GET', `/v1/webhooks/${created.id}`)).body.data).not.toHaveProperty('secret');
    expect((await w.api('PUT', `/v1/webhooks/${created.id}`, { rotate_secret: 'yes' })).status).toBe(400);
  });

  it('at most 100 subscriptions per workspace (422)', async () => {
    const w = await app.workspace();
    await app.db.prisma.webhookSubscription.createMany({
      data: Array.from({ length: 100 }, (_, i) => ({
        id: `wh_fill_${w.id}_${i}`,
        workspaceId: w.id,
        url,
        events: ['contact.created'],
        secretEncrypted: 'x',
        retryPolicy: {},
      })),
    });
    const r = await w.api('POST', '/v1/webhooks', { url, events: ['contact.created'] });
    expect(r.status).toBe(422);
  });
});
