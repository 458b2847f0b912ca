// A key revoked or a user deactivated on one instance ends at once on every instance: the change is
// announced on the event bus, and each instance drops its cached key and re-checks what it holds
// open. The apps here trust a cached key and re-check open connections only every 10 minutes, so
// whatever ends within the test's waits ended through a notice.
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../src/auth/keys.ts';
import { createEventBus, type EventBus } from '../src/events/bus.ts';
import { startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { setPassword, signIn, type Signed } from './helpers/dashboard.ts';
import { contactProbe, subscribe, type TestSubscription } from './helpers/subscriptions.ts';

const { DATABASE_URL, REDIS_URL } = process.env;
const SLOW = { keyCacheMs: 600_000, checkEveryMs: 600_000 };
/** Far below SLOW's periods, far above a notice's way through Redis on a busy machine. */
const WAIT_MS = 15_000;
const EVENTS = 'subscription { events(types: ["contact.created"]) { id event } }';
const REVOKE = 'mutation ($id: ID!) { revokeApiKey(id: $id) { revoked_at } }';
const DEACTIVATE = 'mutation ($id: ID!) { deactivateUser(id: $id) { id active } }';

const open: TestSubscription[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** A bus per instance on one Redis namespace when REDIS_URL is set; else one in-memory bus shared. */
function deploymentBuses(): () => EventBus {
  const prefix = `crm-test-${randomUUID()}`;
  const shared = REDIS_URL ? null : createEventBus(null);
  return () => shared ?? createEventBus(REDIS_URL!, { prefix });
}

async function overWs(app: TestApp, ws: TestWorkspace, params: Record<string, unknown>, headers = {}) {
  const s = subscribe(app.base, params, EVENTS, undefined, headers);
  open.push(s);
  await s.ready(app.bus, contactProbe(ws.id));
  return s;
}

/** Resolves with how the subscription ended, or 'still open' after WAIT_MS. */
async function ending(s: TestSubscription): Promise<unknown> {
  const late = new Promise((r) => setTimeout(r, WAIT_MS, 'still open'));
  return Promise.race([s.ended.then(() => s.errors[0]), late]);
}

async function userOf(app: TestApp, ws: TestWorkspace): Promise<{ id: string; signed: Signed }> {
  const email = uniqueEmail('notice');
  const { id } = await ws.addUser('Notice', email);
  await setPassword(app.db, email);
  return { id, signed: await signIn(app.base, email) };
}

/** Polls `probe` until it answers `status`, for at most WAIT_MS; returns the last status. */
async function statusBecomes(probe: () => Promise<number>, status: number): Promise<number> {
  const until = Date.now() + WAIT_MS;
  let last = await probe();
  while (last !== status && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 50));
    last = await probe();
  }
  return last;
}

describe('one instance: a notice re-checks what is held open at once', () => {
  let app: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    app = await startTestApp({ credentialTimes: SLOW });
    ws = await app.workspace();
  });
  afterAll(() => app?.close());

  it("a revoked key's WebSocket closes with 4401", async () => {
    const admin = await userOf(app, ws);
    const key = await ws.addKey({});
    const socket = await overWs(app, ws, { authorization: `Bearer ${key.key}` });
    const r = await admin.signed.gql(REVOKE, { id: key.id });
    expect(r.errors).toBeUndefined();
    expect(await ending(socket)).toMatchObject({ code: 4401 });
  });

  it("a deactivated user's dashboard WebSocket closes with 4401", async () => {
    const admin = await userOf(app, ws);
    const other = await userOf(app, ws);
    const socket = await overWs(app, ws, { csrf_token: other.signed.csrf }, { cookie: other.signed.cookie });
    const r = await admin.signed.gql(DEACTIVATE, { id: other.id });
    expect(r.errors).toBeUndefined();
    expect(await ending(socket)).toMatchObject({ code: 4401 });
  });
});

describe.runIf(DATABASE_URL)('two instances on one database and one bus', () => {
  let a: TestApp;
  let b: TestApp;
  let ws: TestWorkspace;
  beforeAll(async () => {
    const bus = deploymentBuses();
    a = await startTestApp({ bus: bus(), credentialTimes: SLOW });
    b = await startTestApp({ bus: bus(), credentialTimes: SLOW });
    ws = await a.workspace();
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('a key revoked on A is refused by B at once, though B had it cached', async () => {
    const admin = await userOf(a, ws);
    const key = await ws.addKey({});
    const onB = async () =>
      (await fetch(`${b.base}/v1/contacts`, { headers: { authorization: `Bearer ${key.key}` } })).status;
    expect(await onB()).toBe(200);
    expect((await admin.signed.gql(REVOKE, { id: key.id })).errors).toBeUndefined();
    expect(await statusBecomes(onB, 401)).toBe(401);
  });

  it('a key revoked on A closes its WebSocket on B with 4401', async () => {
    const admin = await userOf(a, ws);
    const key = await ws.addKey({});
    const socket = await overWs(b, ws, { authorization: `Bearer ${key.key}` });
    expect((await admin.signed.gql(REVOKE, { id: key.id })).errors).toBeUndefined();
    expect(await ending(socket)).toMatchObject({ code: 4401 });
  });

  it('a user deactivated on A loses their dashboard WebSocket on B', async () => {
    const admin = await userOf(a, ws);
    const email = uniqueEmail('elsewhere');
    const { id } = await ws.addUser('Elsewhere', email);
    await setPassword(b.db, email);
    const other = await signIn(b.base, email);
    const socket = await overWs(b, ws, { csrf_token: other.csrf }, { cookie: other.cookie });
    expect((await admin.signed.gql(DEACTIVATE, { id })).errors).toBeUndefined();
    expect(await ending(socket)).toMatchObject({ code: 4401 });
  });
});

describe.runIf(REDIS_URL)('notices from whoever can write to Redis', () => {
  const prefix = `crm-test-${randomUUID()}`;
  let app: TestApp;
  let ws: TestWorkspace;
  let raw: Redis;
  beforeAll(async () => {
    app = await startTestApp({ bus: createEventBus(REDIS_URL!, { prefix }), credentialTimes: SLOW });
    ws = await app.workspace();
    raw = new Redis(REDIS_URL!);
  });
  afterAll(async () => {
    raw?.disconnect();
    await app?.close();
  });

  it('malformed notices are dropped and the instance keeps serving and following notices', async () => {
    const channel = `${prefix}:credentials`;
    const key = await ws.addKey({});
    const onApp = async () =>
      (await fetch(`${app.base}/v1/contacts`, { headers: { authorization: `Bearer ${key.key}` } })).status;
    expect(await onApp()).toBe(200);
    const junk = [
      'not json',
      '[]',
      'null',
      '{"keyHashes":"abc"}',
      '{"keyHashes":[1,2,3]}',
      '{"workspaceId":{"$gt":""}}',
      JSON.stringify({ keyHashes: Array.from({ length: 1_001 }, (_, i) => `h${i}`) }),
      `{"keyHashes":[${'['.repeat(5_000)}${']'.repeat(5_000)}]}`,
    ];
    for (const message of junk) await raw.publish(channel, message);
    expect(await onApp()).toBe(200);
    // It still follows notices: a key revoked in the database (as the admin CLI does) stays
    // cached until a well-formed notice names it.
    await app.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    expect(await onApp()).toBe(200);
    await raw.publish(channel, JSON.stringify({ keyHashes: [hashApiKey(key.key)] }));
    expect(await statusBecomes(onApp, 401)).toBe(401);
  });
});
