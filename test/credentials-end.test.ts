// When a credential ends, what it opened ends too: every WebSocket (close 4401, or 4403 for a
// narrowed scope) and every SSE subscription (a last result with the coded error, then the stream
// completes), within 5 s, whoever ended it: the dashboard, the database itself (as the admin CLI or
// another instance does), the clock, or the user signing out.
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { setUserPassword } from '../src/admin/workspaces.ts';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { PASSWORD, setPassword, signIn, type Signed } from './helpers/dashboard.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { contactProbe, subscribe, subscribeSse, type TestSubscription } from './helpers/subscriptions.ts';

/** The requirement: everything of an ended credential is closed within this. */
const WITHIN_MS = 5_000;
const EVENTS = 'subscription { events(types: ["contact.created"]) { id event } }';

let app: TestApp;
let ws: TestWorkspace;
const open: TestSubscription[] = [];

const test = withAppOptions(() => ({ bus: fileBus() }));
// The helpers below work on the file's app and workspace.
test.beforeAll(({ app: started, ws: main }) => {
  app = started;
  ws = main;
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const probe = () => contactProbe(ws.id);

async function overWs(key: string): Promise<TestSubscription> {
  const s = subscribe(app.base, { authorization: `Bearer ${key}` }, EVENTS);
  open.push(s);
  await s.ready(app.bus, probe());
  return s;
}

async function overSse(headers: Record<string, string>): Promise<TestSubscription> {
  const s = subscribeSse(app.base, headers, EVENTS);
  open.push(s);
  await s.ready(app.bus, probe());
  return s;
}

/** Waits (at most WITHIN_MS after `since`) for the subscription to end; its first error says how. */
async function endedWithin(s: TestSubscription, since: number): Promise<any> {
  const late = new Promise((r) => setTimeout(r, since + WITHIN_MS - Date.now(), 'still open'));
  expect(await Promise.race([s.ended.then(() => 'ended'), late])).toBe('ended');
  return s.errors[0];
}

async function signedInUser(): Promise<{ user: { id: string }; email: string; signed: Signed }> {
  const email = uniqueEmail('owner');
  const user = await ws.addUser('Owner', email);
  await setPassword(app.db, email);
  return { user, email, signed: await signIn(app.base, email) };
}

const sessionHeaders = (s: Signed) => ({ cookie: s.cookie, 'x-csrf-token': s.csrf });
const sessionWs = async (s: Signed) => {
  const sub = subscribe(app.base, { csrf_token: s.csrf }, EVENTS, undefined, { cookie: s.cookie });
  open.push(sub);
  await sub.ready(app.bus, probe());
  return sub;
};

describe('API keys', () => {
  it('revoked in the dashboard: its WebSocket closes with 4401 and its SSE stream ends with unauthorized', async () => {
    const { signed } = await signedInUser();
    const key = await ws.addKey({});
    const [socket, stream] = [await overWs(key.key), await overSse({ authorization: `Bearer ${key.key}` })];
    const since = Date.now();
    const r = await signed.gql('mutation ($id: ID!) { revokeApiKey(id: $id) { revoked_at } }', { id: key.id });
    expect(r.errors).toBeUndefined();
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4401 });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'unauthorized' } });
  });

  it('revoked in the database by another process (the admin CLI, another instance): the same', async () => {
    const key = await ws.addKey({});
    const [socket, stream] = [await overWs(key.key), await overSse({ authorization: `Bearer ${key.key}` })];
    const since = Date.now();
    await app.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4401, reason: 'The API key was revoked' });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'unauthorized' } });
  });

  it('closes a socket that has no operation open too', async () => {
    const key = await ws.addKey({});
    let closed: { code: number } | undefined;
    const client = createClient({
      url: `${app.base.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${key.key}` },
      retryAttempts: 0,
      lazy: false,
      on: { closed: (e) => (closed = e as { code: number }) },
      onNonLazyError: () => {},
    });
    await new Promise((resolve) => client.on('connected', resolve));
    const since = Date.now();
    await app.db.prisma.apiKey.delete({ where: { id: key.id } });
    while (!closed && Date.now() < since + WITHIN_MS) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toMatchObject({ code: 4401 });
    await client.dispose();
  });

  it('expiring: ends at expires_at', async () => {
    const expiresAt = new Date(Date.now() + 4_000);
    const key = await ws.addKey({ expiresAt: expiresAt.toISOString() });
    const [socket, stream] = [await overWs(key.key), await overSse({ authorization: `Bearer ${key.key}` })];
    expect(await endedWithin(socket, expiresAt.getTime())).toMatchObject({
      code: 4401,
      reason: 'The API key has expired',
    });
    expect(await endedWithin(stream, expiresAt.getTime())).toMatchObject({ extensions: { code: 'unauthorized' } });
  });

  it('a narrowed scope closes with 4403; a widened one changes nothing', async () => {
    const key = await ws.addKey({ scope: 'custom', permissions: ['contacts:read', 'deals:read'] });
    const [socket, stream] = [await overWs(key.key), await overSse({ authorization: `Bearer ${key.key}` })];
    await app.db.prisma.apiKey.update({
      where: { id: key.id },
      data: { permissions: ['contacts:read', 'deals:read', 'tasks:write'] },
    });
    await new Promise((r) => setTimeout(r, 2_500));
    expect([socket.errors, stream.errors]).toEqual([[], []]);
    await socket.ready(app.bus, probe());
    const since = Date.now();
    await app.db.prisma.apiKey.update({ where: { id: key.id }, data: { permissions: ['contacts:read'] } });
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4403 });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'forbidden' } });
  });
});

describe('dashboard sessions', () => {
  it("sign-out closes the session's WebSocket (4401) and SSE stream", async () => {
    const { signed } = await signedInUser();
    const [socket, stream] = [await sessionWs(signed), await overSse(sessionHeaders(signed))];
    const since = Date.now();
    expect((await signed.api('POST', '/dashboard/api/logout')).status).toBe(204);
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4401 });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'unauthorized' } });
  });

  it.each([
    [
      'the user is deactivated',
      async (c: { user: { id: string } }) =>
        void (await app.db.prisma.user.update({ where: { id: c.user.id }, data: { active: false } })),
    ],
    [
      'the password is changed',
      async (c: { email: string }) =>
        void (await setUserPassword(app.db.prisma, { email: c.email, password: `${PASSWORD} 2` })),
    ],
    [
      'the session reaches its absolute end',
      async (c: { user: { id: string } }) =>
        void (await app.db.prisma.dashboardSession.updateMany({
          where: { userId: c.user.id },
          data: { expiresAt: new Date() },
        })),
    ],
    [
      'the session is idle too long',
      async (c: { user: { id: string } }) =>
        void (await app.db.prisma.dashboardSession.updateMany({
          where: { userId: c.user.id },
          data: { lastSeenAt: new Date(0) },
        })),
    ],
  ])("%s: the session's WebSocket and SSE stream end", async (_what, end) => {
    const c = await signedInUser();
    const [socket, stream] = [await sessionWs(c.signed), await overSse(sessionHeaders(c.signed))];
    const since = Date.now();
    await end(c);
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4401 });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'unauthorized' } });
  });
});

const { DATABASE_URL, REDIS_URL } = process.env;

describe.runIf(DATABASE_URL && REDIS_URL)('on every instance (PostgreSQL + Redis)', () => {
  let other: TestApp;
  test.beforeAll(async ({ startApp }) => {
    other = await startApp({ bus: fileBus() });
  });

  it('a key revoked through one instance ends its WebSocket and SSE stream on the other', async () => {
    const { signed } = await signedInUser();
    const key = await ws.addKey({});
    const socket = subscribe(other.base, { authorization: `Bearer ${key.key}` }, EVENTS);
    const stream = subscribeSse(other.base, { authorization: `Bearer ${key.key}` }, EVENTS);
    open.push(socket, stream);
    await socket.ready(other.bus, probe());
    await stream.ready(other.bus, probe());
    const since = Date.now();
    expect(
      (await signed.gql('mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', { id: key.id })).errors,
    ).toBeUndefined();
    expect(await endedWithin(socket, since)).toMatchObject({ code: 4401 });
    expect(await endedWithin(stream, since)).toMatchObject({ extensions: { code: 'unauthorized' } });
  });
});
