import { describe, expect } from 'vitest';
import { client, gql } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

let zoe: { id: string };
let adam: { id: string };

test.beforeAll(async ({ ws, other }) => {
  zoe = await ws.addUser('Zoe Zed', 'zoe@example.com');
  adam = await ws.addUser('Adam Ant', 'adam@example.com');
  await other.addUser('Outsider');
});

describe('GET /v1/users', () => {
  it('lists the workspace users by name with their preferences', async ({ ws }) => {
    const r = await ws.api('GET', '/v1/users');
    expect(r.status).toBe(200);
    expect(r.body.data.map((u: { name: string }) => u.name)).toEqual(['Adam Ant', 'Zoe Zed']);
    expect(r.body.data[1]).toEqual({
      id: zoe.id,
      name: 'Zoe Zed',
      email: 'zoe@example.com',
      active: true,
      notification_preferences: { email: true, push: true },
      version: 1,
      created_at: expect.any(String),
    });
    expect(r.body.meta).toMatchObject({ total: 2, has_more: false, next_cursor: null });
  });

  it('paginates, sorts and filters by active', async ({ app, ws }) => {
    const first = await ws.api('GET', '/v1/users?limit=1&sort=-name');
    expect(first.body.data[0].id).toBe(zoe.id);
    const next = await ws.api('GET', `/v1/users?limit=1&sort=-name&cursor=${first.body.meta.next_cursor}`);
    expect(next.body.data[0].id).toBe(adam.id);
    const gone = await ws.addUser('Gone Girl');
    await app.db.prisma.user.update({ where: { id: gone.id }, data: { active: false } });
    expect((await ws.api('GET', '/v1/users?active=false')).body.data.map((u: { id: string }) => u.id)).toEqual([
      gone.id,
    ]);
    expect((await ws.api('GET', '/v1/users?active=true')).body.meta.total).toBe(2);
    expect((await ws.api('GET', '/v1/users?sort=created_at')).body.data[0].id).toBe(zoe.id);
  });

  it.for(['active=maybe', 'sort=email', 'limit=0', 'cursor=x'])('400 for %s', async (query, { ws }) => {
    const r = await ws.api('GET', `/v1/users?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
  });

  it('any valid key may read users: read-only, custom with any permission, sandbox', async ({ app, ws }) => {
    for (const opts of [{ scope: 'read_only' }, { scope: 'custom', permissions: ['deals:read'] }, { sandbox: true }]) {
      const key = await ws.addKey(opts);
      const r = await key.api('GET', '/v1/users');
      expect(r.status, JSON.stringify(opts)).toBe(200);
      expect(r.body.data.map((u: { id: string }) => u.id)).toContain(zoe.id);
    }
    expect((await client(app.base)('GET', '/v1/users')).status).toBe(401);
  });

  it('GET /v1/users/:id; 404 for other workspaces', async ({ ws, other }) => {
    expect((await ws.api('GET', `/v1/users/${zoe.id}`)).body.data.name).toBe('Zoe Zed');
    expect((await other.api('GET', `/v1/users/${zoe.id}`)).status).toBe(404);
    expect((await ws.api('GET', '/v1/users/usr_missing')).status).toBe(404);
  });
});

describe('PUT /v1/users/:id/notification-preferences', () => {
  it('changes only the channels given', async ({ app, ws }) => {
    const r = await ws.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { push: false, fax: true });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: adam.id, notification_preferences: { email: true, push: false } });
    const again = await ws.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { email: false });
    expect(again.body.data.notification_preferences).toEqual({ email: false, push: false });
    const row = await app.db.prisma.user.findUniqueOrThrow({ where: { id: adam.id } });
    expect(row.notificationPreferences).toEqual({ email: false, push: false });
    expect(
      (await ws.api('PUT', `/v1/users/${adam.id}/notification-preferences`, {})).body.data.notification_preferences,
    ).toEqual({ email: false, push: false });
  });

  it('400 for non-boolean values', async ({ ws }) => {
    const r = await ws.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { email: 'yes' });
    expect(r.status).toBe(400);
    expect(r.body.error.details.email).toBeDefined();
    expect((await ws.api('PUT', `/v1/users/${adam.id}/notification-preferences`, '"x"')).status).toBe(400);
  });

  it('404 for users of other accounts and unknown ids', async ({ ws, other }) => {
    expect((await other.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { email: true })).status).toBe(404);
    expect((await ws.api('PUT', '/v1/users/usr_ghost/notification-preferences', { email: true })).status).toBe(404);
  });

  it('403 without tasks:write (read-only, custom without it)', async ({ ws }) => {
    const ro = await ws.addKey({ scope: 'read_only' });
    const custom = await ws.addKey({ scope: 'custom', permissions: ['contacts:write', 'tasks:read'] });
    for (const key of [ro, custom]) {
      const r = await key.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { email: true });
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    const writer = await ws.addKey({ scope: 'custom', permissions: ['tasks:write'] });
    expect((await writer.api('PUT', `/v1/users/${adam.id}/notification-preferences`, { email: true })).status).toBe(
      200,
    );
  });
});

describe('GraphQL', () => {
  it('users, user and updateNotificationPreferences', async ({ app, ws, other }) => {
    const list = await gql(
      app.base,
      ws.key,
      '{ users(filter: { active: true }, limit: 10) {' +
        ' nodes { id name notification_preferences { email push } } total } }',
    );
    expect(list.data.users.total).toBe(2);
    const one = await gql(app.base, ws.key, `{ user(id: "${zoe.id}") { email active } }`);
    expect(one.data.user).toEqual({ email: 'zoe@example.com', active: true });
    const upd = await gql(
      app.base,
      ws.key,
      `mutation { updateNotificationPreferences(userId: "${zoe.id}", input: { push: false }) {` +
        ' notification_preferences { email push } } }',
    );
    expect(upd.data.updateNotificationPreferences.notification_preferences).toEqual({ email: true, push: false });
    const denied = await gql(
      app.base,
      other.key,
      `mutation { updateNotificationPreferences(userId: "${zoe.id}", input: { push: true }) { id } }`,
    );
    expect(denied.errors?.[0].extensions?.code).toBe('not_found');
  });
});
