// GraphQL subscriptions over graphql-ws, fed from the committed event log. Runs on an
// in-memory bus, or on Redis when REDIS_URL is set.
import { randomUUID } from 'node:crypto';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { recordEvent } from '../src/events/outbox.ts';
import { contactUpdated } from '../src/events/catalogue/contact.events.ts';
import { gapRanges, startEventFeed } from '../src/events/feed.ts';
import { createEventBus, type PublishedEvent } from '../src/events/bus.ts';
import { gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { subscribe, type TestSubscription } from './helpers/subscriptions.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let dealsReader: { key: string; api: Client };
const open: TestSubscription[] = [];

const test = withAppOptions(() => ({ bus: fileBus() }));
// The helpers below work on the file's app and workspaces; the feed publishes the event log on the bus.
test.beforeAll(async ({ app: started, ws: main, other: neighbour, feed }) => {
  void feed;
  app = started;
  ws = main;
  other = neighbour;
  dealsReader = await ws.addKey({ scope: 'custom', permissions: ['deals:read'] });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const live = (key: string, query: string, variables?: Record<string, unknown>) => {
  const s = subscribe(app.base, { authorization: `Bearer ${key}` }, query, variables);
  open.push(s);
  return s;
};
const probe = (event: string, entityId = 'probe', data: Record<string, unknown> = {}) => ({
  event,
  workspaceId: ws.id,
  entityType: event.split('.')[0],
  entityId,
  sequence: 1,
  data,
});
const newContact = async (t: TestWorkspace = ws, extra: Record<string, unknown> = {}) => {
  const r = await t.api('POST', '/v1/contacts', { first_name: 'Live', email: uniqueEmail('live'), ...extra });
  expect(r.status, r.text).toBe(201);
  return r.body.data;
};
const EVENTS = 'subscription ($types: [String!]) { events(types: $types) { id event timestamp data } }';

describe('events(types)', () => {
  it('receives contact.created made through REST and nothing else: no other types, no other workspaces', async () => {
    const sub = live(ws.key, EVENTS, { types: ['contact.created'] });
    await sub.ready(app.bus, probe('contact.created'));
    await newContact(other);
    const first = await newContact();
    expect((await ws.api('PUT', `/v1/contacts/${first.id}`, { company: 'Changed' })).status).toBe(200);
    const last = await newContact();
    await sub.waitFor((d) => d.events.data.contact.id === last.id);
    expect(sub.received.map((d) => [d.events.event, d.events.data.contact.id])).toEqual([
      ['contact.created', first.id],
      ['contact.created', last.id],
    ]);
    const [event] = await app.db.prisma.event.findMany({ where: { entityId: first.id, type: 'contact.created' } });
    expect(sub.received[0].events).toMatchObject({
      id: event.id,
      timestamp: event.createdAt.toISOString(),
      data: { contact: { email: first.email } },
    });
  });

  it('without types, receives every event the key may read, in commit order', async () => {
    const sub = live(ws.key, EVENTS);
    await sub.ready(app.bus, probe('contact.created'));
    const c = await newContact();
    await ws.api('PUT', `/v1/contacts/${c.id}`, { status: 'customer' });
    await sub.waitFor((d) => d.events.event === 'contact.status_changed');
    expect(sub.received.map((d) => d.events.event)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.status_changed',
    ]);
  });

  it('after: a subscriber back from a disconnect gets exactly what it missed, then live events', async () => {
    const first = live(ws.key, EVENTS, { types: ['contact.created'] });
    await first.ready(app.bus, probe('contact.created'));
    const seen = await newContact();
    const got = await first.waitFor((d) => d.events.data.contact.id === seen.id);
    await first.close();
    // While it is away: events of its type and of others, and of another workspace.
    const missed = [await newContact(), await newContact()];
    await ws.api('PUT', `/v1/contacts/${missed[0].id}`, { status: 'customer' });
    await newContact(other);
    const back = live(
      ws.key,
      `subscription($after: ID) { events(types: ["contact.created"], after: $after) { id event data } }`,
      {
        after: got.events.id,
      },
    );
    await back.waitFor((d) => d.events.data.contact.id === missed[1].id);
    const later = await newContact();
    await back.waitFor((d) => d.events.data.contact.id === later.id);
    // The feed may publish an event the log already sent (it committed moments ago): not given twice.
    const replayed = back.received[0].events;
    const [row] = await app.db.prisma.event.findMany({ where: { id: replayed.id } });
    app.bus.publish({
      id: row.id,
      event: row.type,
      timestamp: row.createdAt.toISOString(),
      workspaceId: row.workspaceId,
      entityType: row.entityType,
      entityId: row.entityId,
      sequence: row.sequence,
      data: row.data as Record<string, unknown>,
    });
    const last = await newContact();
    await back.waitFor((d) => d.events.data.contact.id === last.id);
    expect(back.received.map((d) => d.events.data.contact.id)).toEqual([...missed, later, last].map((c) => c.id));

    for (const args of ['after: "evt_never"', 'after: ""', 'types: []']) {
      const refused = live(ws.key, `subscription { events(${args}) { id } }`);
      await refused.ended;
      expect(refused.errors[0], args).toMatchObject({ extensions: { code: 'validation_error' } });
    }
    // An event of a kind the key may not read is no place to resume from: its place is not the key's to learn.
    const dealEvent = await app.db.prisma.event.create({
      data: {
        id: `evt_hidden_${Date.now().toString(36)}`,
        workspaceId: ws.id,
        type: 'deal.created',
        entityType: 'deal',
        entityId: `deal_hidden_${Date.now().toString(36)}`,
        sequence: 1,
        data: {},
      },
    });
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const hidden = live(contactsOnly.key, `subscription($after: ID) { events(after: $after) { id } }`, {
      after: dealEvent.id,
    });
    await hidden.ended;
    expect(hidden.errors[0]).toMatchObject({ extensions: { code: 'validation_error' } });
    // Another workspace's event id is no place to resume from either.
    const [theirs] = await app.db.prisma.event.findMany({ where: { workspaceId: other.id }, take: 1 });
    const foreign = live(ws.key, `subscription($after: ID) { events(after: $after) { id } }`, { after: theirs.id });
    await foreign.ended;
    expect(foreign.errors[0]).toMatchObject({ extensions: { code: 'validation_error' } });
  });

  it('rejects unknown event names with validation_error', async () => {
    const sub = live(ws.key, EVENTS, { types: ['contact.created', 'contact.exploded'] });
    await sub.ended;
    expect(sub.errors[0]).toMatchObject({ extensions: { code: 'validation_error' } });
    expect(JSON.stringify(sub.errors[0])).toContain('contact.exploded');
  });

  it('answers a syntax error with a GraphQL error, not by closing the socket', async () => {
    const sub = live(ws.key, 'subscription { events(types: [) }');
    await sub.ended;
    expect(sub.errors[0]).toMatchObject({ message: expect.stringMatching(/Syntax Error/) });
  });

  it('delivers deal events but skips contact events for a key with only deals:read', async () => {
    const sub = live(dealsReader.key, EVENTS);
    await sub.ready(app.bus, probe('deal.created'));
    await newContact();
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const created = await gql(
      app.base,
      ws.key,
      'mutation ($input: DealCreateInput!) { createDeal(input: $input) { id } }',
      {
        input: { title: 'Live deal', pipeline_id: pipeline.id },
      },
    );
    expect(created.errors).toBeUndefined();
    await sub.waitFor((d) => d.events.event === 'deal.created');
    expect(sub.received.map((d) => d.events.event)).toEqual(['deal.created']);
    expect(sub.received[0].events.data.deal.id).toBe(created.data.createDeal.id);
  });
});

describe('authentication', () => {
  it.each([
    ['no key', {}],
    ['a malformed header', { authorization: 'Token abc' }],
    ['an unknown key', { authorization: `Bearer crm_live_${'x'.repeat(32)}` }],
  ])('refuses %s with close code 4401', async (_what, params) => {
    const s = subscribe(app.base, params, EVENTS);
    open.push(s);
    await s.ended;
    expect(s.errors[0]).toMatchObject({ code: 4401 });
    expect(s.received).toEqual([]);
  });

  it('accepts the key under "Authorization" too', async () => {
    const s = subscribe(app.base, { Authorization: `Bearer ${ws.key}` }, EVENTS, { types: ['contact.created'] });
    open.push(s);
    await s.ready(app.bus, probe('contact.created'));
    const c = await newContact();
    await s.waitFor((d) => d.events.data.contact.id === c.id);
  });

  it('closes an open socket with 4401 once its key is revoked, and refuses operations meanwhile', async () => {
    const doomed = await ws.addKey({});
    let closed: { code: number } | undefined;
    const client = createClient({
      url: `${app.base.replace('http', 'ws')}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: { authorization: `Bearer ${doomed.key}` },
      retryAttempts: 0,
      lazy: false,
      on: { closed: (e) => (closed = e as { code: number }) },
      onNonLazyError: () => {},
    });
    const run = (query: string) =>
      new Promise((resolve) => client.subscribe({ query }, { next: resolve, error: resolve, complete: () => {} }));
    expect(await run('{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    await app.db.prisma.apiKey.update({ where: { id: doomed.id }, data: { revokedAt: new Date() } });
    for (const until = Date.now() + 5_000; !closed && Date.now() < until; ) await new Promise((r) => setTimeout(r, 20));
    expect(closed).toMatchObject({ code: 4401 });
    await client.dispose();
  });
});

describe('typed changes', () => {
  it("contactChanged(id) receives only that contact's events, with its current record", async () => {
    const watched = await newContact();
    const unwatched = await newContact();
    const sub = live(
      ws.key,
      'subscription ($id: ID) { contactChanged(id: $id) { id event contact_id data contact { id company } } }',
      { id: watched.id },
    );
    await sub.ready(app.bus, probe('contact.updated', watched.id));
    await ws.api('PUT', `/v1/contacts/${unwatched.id}`, { company: 'Other' });
    await ws.api('PUT', `/v1/contacts/${watched.id}`, { company: 'Watched' });
    const got = await sub.waitFor((d) => d.contactChanged.event === 'contact.updated');
    // The watched contact's own contact.created may still arrive (it is published after the
    // commit, possibly after the subscription started); the other contact's update never does.
    expect(sub.received.map((d) => d.contactChanged.contact_id)).toEqual(sub.received.map(() => watched.id));
    expect(sub.received.filter((d) => d.contactChanged.event === 'contact.updated')).toHaveLength(1);
    expect(got.contactChanged).toMatchObject({
      contact_id: watched.id,
      data: { contact: { company: 'Watched' } },
      contact: { id: watched.id, company: 'Watched' },
    });
  });

  it('contactChanged needs contacts:read', async () => {
    const sub = live(dealsReader.key, 'subscription { contactChanged { id } }');
    await sub.ended;
    expect(sub.errors[0]).toMatchObject({ extensions: { code: 'forbidden' } });
  });

  it('dealChanged(pipelineId) receives deal events of that pipeline only', async () => {
    const main = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const renewals = (
      await ws.api('POST', '/v1/pipelines', { name: 'Renewals', stages: [{ name: 'Due', probability: 40 }] })
    ).body.data;
    const sub = live(
      dealsReader.key,
      'subscription ($p: ID) { dealChanged(pipelineId: $p) { id event deal_id data deal { id title pipeline_id } } }',
      { p: main.id },
    );
    await sub.ready(app.bus, probe('deal.updated', 'deal_probe', { deal: { pipeline_id: main.id } }));
    expect((await ws.api('POST', '/v1/deals', { title: 'Renewal', pipeline_id: renewals.id })).status).toBe(201);
    const deal = (await ws.api('POST', '/v1/deals', { title: 'New business', pipeline_id: main.id })).body.data;
    const got = await sub.waitFor((d) => d.dealChanged.deal_id === deal.id);
    // Late events of earlier tests may pass the filter too; none from the other pipeline may.
    expect(sub.received.map((d) => d.dealChanged.deal?.pipeline_id)).toEqual(sub.received.map(() => main.id));
    expect(sub.received.filter((d) => d.dealChanged.deal_id === deal.id)).toHaveLength(1);
    expect(got.dealChanged).toMatchObject({
      event: 'deal.created',
      data: { deal: { title: 'New business' } },
      deal: { id: deal.id, pipeline_id: main.id },
    });
  });
});

describe('event feed', () => {
  /** A feed on a bus of its own (or the one given), driven by hand, with what it publishes for `ws`. */
  async function manualFeed(bus = createEventBus(null)) {
    const seen: PublishedEvent[] = [];
    const events = bus.subscribe(ws.id)[Symbol.asyncIterator]();
    const pump = (async () => {
      for (let r = await events.next(); !r.done; r = await events.next()) seen.push(r.value);
    })();
    const feed = startEventFeed({ sql: app.db.sql, bus, intervalMs: 0 });
    await feed.runOnce();
    const settle = () => new Promise((r) => setTimeout(r, 20));
    return {
      feed,
      seen,
      settle,
      async stop() {
        await feed.stop();
        await events.return?.();
        await pump;
      },
    };
  }
  let feedSequence = 0;
  const contactEvent = (seq?: bigint) => ({
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    seq,
    workspaceId: ws.id,
    type: 'contact.updated',
    entityType: 'contact',
    entityId: 'con_feed',
    sequence: ++feedSequence,
    data: {},
  });

  it('starts at the head of the log and publishes each event once, however often it runs', async () => {
    const before = await newContact();
    const f = await manualFeed();
    const a = await newContact();
    const b = await newContact();
    await Promise.all([f.feed.runOnce(), f.feed.runOnce(), f.feed.runOnce()]);
    await f.feed.runOnce();
    await f.settle();
    expect(f.seen.map((e) => e.data.contact && (e.data.contact as { id: string }).id)).toEqual([a.id, b.id]);
    expect(f.seen.map((e) => e.entityId)).not.toContain(before.id);
    await f.stop();
  });

  it("ignores a saved cursor beyond this database's log (another database's, on a shared Redis)", async () => {
    const bus = createEventBus(null);
    // A lease whose saved cursor came from a database with a much longer log.
    bus.lease = { ...bus.lease, resumeFrom: async () => 10n ** 15n };
    const f = await manualFeed(bus);
    const c = await newContact();
    await f.feed.runOnce();
    await f.settle();
    expect(f.seen.map((e) => e.entityId)).toContain(c.id);
    await f.stop();
  });

  it('publishes an event that commits after one with a higher seq', async () => {
    const f = await manualFeed();
    // Two numbers from the sequence, as two transactions would take them; the higher commits first.
    const [low, high] = (
      await app.db.prisma.$queryRaw<{ seq: bigint }[]>`
      SELECT nextval(pg_get_serial_sequence('events', 'seq')) AS seq FROM generate_series(1, 2)`
    ).map((r) => r.seq);
    const late = contactEvent(low);
    const early = contactEvent(high);
    await app.db.prisma.event.create({ data: early });
    await f.feed.runOnce();
    await app.db.prisma.event.create({ data: late });
    await f.feed.runOnce();
    await f.feed.runOnce();
    await f.settle();
    expect(f.seen.map((e) => e.id)).toEqual([early.id, late.id]);
    await f.stop();
  });

  it('publishes in seq order across a power of ten, and finds late events among many gaps after a jump', async () => {
    const f = await manualFeed();
    // The next seq one short of a power of ten (99,998, 99,999, 100,000 …), at least 20,000 numbers
    // on: a jump longer than the feed keeps gaps for, as a huge rolled-back import leaves.
    const [{ max }] = await app.db.prisma.$queryRaw<{ max: bigint }[]>`SELECT coalesce(max(seq), 0) AS max FROM events`;
    const next = 10n ** BigInt(String(max + 20_000n).length);
    await app.db.prisma.$executeRaw`SELECT setval(pg_get_serial_sequence('events', 'seq'), ${next - 3n})`;
    const made = [await newContact(), await newContact(), await newContact()];
    await f.feed.runOnce();
    // 3,000 numbers taken and never used, as a rolled-back batch leaves them; one of them used late.
    // (On PostgreSQL other test files take numbers meanwhile, so use one this query took.)
    const taken = (
      await app.db.prisma.$queryRaw<{ seq: bigint }[]>`
      SELECT nextval(pg_get_serial_sequence('events', 'seq')) AS seq FROM generate_series(1, 3000)`
    ).map((r) => r.seq);
    const after = await newContact();
    await f.feed.runOnce();
    const late = contactEvent(taken[1500]);
    await app.db.prisma.event.create({ data: late });
    await f.feed.runOnce();
    await f.settle();
    const contactOf = (e: PublishedEvent) => (e.data.contact as { id: string } | undefined)?.id;
    expect(f.seen.map(contactOf).slice(0, 4)).toEqual([...made, after].map((c) => c.id));
    expect(f.seen.map((e) => e.id).slice(4)).toEqual([late.id]);
    await f.stop();
  });

  it('gap numbers go to the database as runs of consecutive numbers', () => {
    const gaps = new Map([7n, 5n, 6n, 50n, 52n, 51n, 1000n].map((s) => [s, 0]));
    expect(gapRanges(gaps)).toEqual([
      [5n, 7n],
      [50n, 52n],
      [1000n, 1000n],
    ]);
    expect(gapRanges(new Map())).toEqual([]);
  });

  it.runIf(process.env.DATABASE_URL)('handles transactions that commit out of seq order (PostgreSQL)', async () => {
    const f = await manualFeed();
    // Two records: writers of one record wait for each other (record_sequences), these must not.
    const event = (entityId: string) => ({ ...contactUpdated.sample(), entityId, workspaceId: ws.id, actor: null });
    let inserted!: () => void;
    let commit!: () => void;
    const insertedP = new Promise<void>((r) => (inserted = r));
    const commitP = new Promise<void>((r) => (commit = r));
    const slow = app.db.prisma.$transaction(async (tx) => {
      const id = await recordEvent(tx, event('con_tx_slow'));
      inserted();
      await commitP;
      return id;
    });
    await insertedP;
    const fast = await app.db.prisma.$transaction((tx) => recordEvent(tx, event('con_tx_fast')));
    await f.feed.runOnce();
    commit();
    const slowId = await slow;
    await f.feed.runOnce();
    await f.feed.runOnce();
    await f.settle();
    const [slowRow, fastRow] = await Promise.all(
      [slowId, fast].map((id) => app.db.prisma.event.findUniqueOrThrow({ where: { id } })),
    );
    expect(slowRow.seq).toBeLessThan(fastRow.seq);
    expect(f.seen.map((e) => e.id)).toEqual([fast, slowId]);
    await f.stop();
  });
});
