// Two instances on one PostgreSQL and one Redis: a change made through instance A reaches a
// subscriber connected to instance B exactly once, whichever instance's feed publishes.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEventFeed, type EventFeed } from '../src/events/feed.ts';
import { createEventBus } from '../src/events/bus.ts';
import { startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { contactProbe, subscribe, type TestSubscription } from './helpers/subscriptions.ts';

const { DATABASE_URL, REDIS_URL } = process.env;

describe.runIf(DATABASE_URL && REDIS_URL)('subscriptions across instances (PostgreSQL + Redis)', () => {
  // One namespace for both instances (as one deployment), apart from other test files.
  const prefix = `crm-test-${randomUUID()}`;
  let a: TestApp;
  let b: TestApp;
  let feeds: EventFeed[];
  let ws: TestWorkspace;
  let sub: TestSubscription;

  beforeAll(async () => {
    a = await startTestApp({ bus: createEventBus(REDIS_URL!, { prefix }) });
    b = await startTestApp({ bus: createEventBus(REDIS_URL!, { prefix }) });
    feeds = [a, b].map((app) => startEventFeed({ sql: app.db.sql, bus: app.bus, intervalMs: 20 }));
    ws = await a.workspace();
    sub = subscribe(
      b.base,
      { authorization: `Bearer ${ws.key}` },
      'subscription { events(types: ["contact.created"]) { id event timestamp data } }',
    );
    await sub.ready(a.bus, contactProbe(ws.id));
  });
  afterAll(async () => {
    await sub?.close();
    await Promise.all(feeds.map((f) => f.stop()));
    await a?.close();
    await b?.close();
  });

  /** Creates a contact through instance A; resolves with its id when B's subscriber has it. */
  async function createOnA() {
    const r = await ws.api('POST', '/v1/contacts', { first_name: 'Cross', email: uniqueEmail('cross') });
    expect(r.status, r.text).toBe(201);
    await sub.waitFor((d) => d.events.data.contact.id === r.body.data.id);
    return r.body.data.id as string;
  }
  const timesReceived = (id: string) => sub.received.filter((d) => d.events.data.contact.id === id).length;

  it('a subscriber on B receives a change made on A, exactly once', async () => {
    const first = await createOnA();
    // Anything published twice would arrive before a later event: both feeds publish in log order.
    await createOnA();
    await new Promise((r) => setTimeout(r, 200));
    expect(timesReceived(first)).toBe(1);
    expect(sub.received).toHaveLength(2);
  });

  it('keeps delivering, once, when the publishing instance stops and the other takes over', async () => {
    const seen: string[] = [];
    // Stop each original feed in turn (one of them held the lease), starting a replacement for it.
    for (const i of [0, 1]) {
      await feeds[i].stop();
      const app = i === 0 ? a : b;
      feeds[i] = startEventFeed({ sql: app.db.sql, bus: app.bus, intervalMs: 20 });
      seen.push(await createOnA());
    }
    await createOnA();
    await new Promise((r) => setTimeout(r, 200));
    for (const id of seen) expect(timesReceived(id)).toBe(1);
  });
});
