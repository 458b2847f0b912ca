// GraphQL over WebSocket is bounded: message size, time to authenticate, sockets per address and
// per key, operations per socket and subscriptions per key (SSE included), message and ping
// floods, and subscribers that stop reading. Raw `ws` sockets play the attacker, graphql-ws' own
// client the ordinary user.
import net from 'node:net';
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_SUBSCRIPTIONS_PER_CREDENTIAL } from '../src/graphql/live-streams.ts';
import {
  AUTH_DEADLINE_MS,
  CLOSE_GRACE_MS,
  MAX_MESSAGE_BYTES,
  MAX_UNAUTHENTICATED_MESSAGE_BYTES,
  MAX_OPERATIONS_PER_SOCKET,
  MAX_SOCKETS_PER_CREDENTIAL,
  MAX_UNAUTHENTICATED_PER_ADDRESS,
  MESSAGE_BURST,
} from '../src/graphql/websocket-limits.ts';
import { MAX_EVENTS_BEHIND } from '../src/events/bus.ts';
import type { TestApp, TestWorkspace } from './helpers/app.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { contactProbe, subscribe, subscribeSse } from './helpers/subscriptions.ts';

let app: TestApp;
let ws: TestWorkspace;
let url: string;
const cleanup: (() => unknown)[] = [];

const test = withAppOptions(() => ({ bus: fileBus() }));
// The helpers below work on the file's app and workspace.
test.beforeAll(({ app: started, ws: main }) => {
  app = started;
  ws = main;
  url = `${app.base.replace('http', 'ws')}/graphql`;
});
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A raw socket speaking graphql-transport-ws, open. */
async function raw(): Promise<WebSocket> {
  const s = new WebSocket(url, 'graphql-transport-ws');
  cleanup.push(() => s.terminate());
  await new Promise((resolve, reject) => {
    s.once('open', resolve);
    s.once('error', reject);
  });
  return s;
}

const closeOf = (s: WebSocket) =>
  new Promise<{ code: number; reason: string }>((resolve) =>
    s.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
  );
const send = (s: WebSocket, message: unknown) => s.send(JSON.stringify(message));

/** A graphql-ws client of the workspace's key, connected. */
async function connected(
  key = ws.key,
): Promise<{ client: WsClient; closed: Promise<{ code: number; reason: string }> }> {
  let onClosed!: (e: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((r) => (onClosed = r));
  const client = createClient({
    url,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${key}` },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: { closed: (e) => onClosed(e as { code: number; reason: string }) },
  });
  cleanup.push(() => client.dispose());
  await Promise.race([new Promise((r) => client.on('connected', r)), closed]);
  return { client, closed };
}

const EVENTS = 'subscription { events(types: ["contact.created"]) { id } }';

/** Starts a subscription on an open client; resolves with its first error, if any comes. */
function start(client: WsClient, query = EVENTS) {
  const errors: unknown[] = [];
  client.subscribe(
    { query },
    {
      next: (r) => r.errors && errors.push(...r.errors),
      error: (e) => errors.push(...(Array.isArray(e) ? e : [e])),
      complete: () => {},
    },
  );
  return errors;
}

describe('messages', () => {
  it('a message over the size limit closes with 1009 unread, before key checks; one just under is read', async () => {
    const over = await raw();
    const overClosed = closeOf(over);
    send(over, { type: 'connection_init', payload: { authorization: 'x'.repeat(MAX_MESSAGE_BYTES) } });
    expect((await overClosed).code).toBe(1009);

    // Before authentication a message may hold 64 KiB: a key or a CSRF token needs far less.
    const preAuthOver = await raw();
    const preAuthClosed = closeOf(preAuthOver);
    send(preAuthOver, {
      type: 'connection_init',
      payload: { authorization: 'x'.repeat(MAX_UNAUTHENTICATED_MESSAGE_BYTES) },
    });
    expect((await preAuthClosed).code).toBe(1009);

    const under = await raw();
    const underClosed = closeOf(under);
    send(under, {
      type: 'connection_init',
      payload: { authorization: 'x'.repeat(MAX_UNAUTHENTICATED_MESSAGE_BYTES - 100) },
    });
    expect((await underClosed).code).toBe(4401);
  });

  it('without connection_init a socket is closed with 4408, and cut even if it never answers the close', async () => {
    // A bare TCP peer that completes the upgrade and then reads and answers nothing.
    const socket = net.connect(Number(new URL(app.base).port), '127.0.0.1');
    cleanup.push(() => socket.destroy());
    await new Promise((r) => socket.once('connect', r));
    socket.write(
      'GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Protocol: graphql-transport-ws\r\n\r\n',
    );
    let received = Buffer.alloc(0);
    socket.on('data', (d) => (received = Buffer.concat([received, d])));
    const since = Date.now();
    await new Promise((r) => socket.once('close', r));
    expect(received.toString('latin1')).toMatch(/^HTTP\/1.1 101/);
    // The close frame (opcode 0x88) carries 4408 = 0x1138.
    expect(received.includes(Buffer.from([0x88]))).toBe(true);
    expect(received.includes(Buffer.from([0x11, 0x38]))).toBe(true);
    expect(Date.now() - since).toBeLessThan(AUTH_DEADLINE_MS + CLOSE_GRACE_MS + 5_000);
  });

  it('a flood of messages, or of WebSocket pings, closes the socket with 4429', async () => {
    const { closed } = await connected();
    const flooded = await raw();
    const floodedClosed = closeOf(flooded);
    for (let i = 0; i <= MESSAGE_BURST + 50; i++) send(flooded, { type: 'ping' });
    expect(await floodedClosed).toMatchObject({ code: 4429, reason: 'Too many messages' });

    const pinging = await raw();
    const pingingClosed = closeOf(pinging);
    for (let i = 0; i <= MESSAGE_BURST + 50; i++) pinging.ping();
    expect(await pingingClosed).toMatchObject({ code: 4429 });
    // Ordinary sockets are untouched.
    expect(await Promise.race([closed, sleep(200).then(() => 'open')])).toBe('open');
  });

  it('graphql-ws protocol rules: subscribe before connection_init is 4401, a reused operation id 4409', async () => {
    const early = await raw();
    const earlyClosed = closeOf(early);
    send(early, { type: 'subscribe', id: '1', payload: { query: '{ __typename }' } });
    expect((await earlyClosed).code).toBe(4401);

    const twice = await raw();
    const twiceClosed = closeOf(twice);
    send(twice, { type: 'connection_init', payload: { authorization: `Bearer ${ws.key}` } });
    await new Promise((r) => twice.once('message', r));
    for (let i = 0; i < 2; i++) send(twice, { type: 'subscribe', id: 'same', payload: { query: EVENTS } });
    expect((await twiceClosed).code).toBe(4409);
  });
});

describe('connections', () => {
  it('sockets per address waiting to authenticate are capped; the next gets 429 at the upgrade', async () => {
    for (let i = 0; i < MAX_UNAUTHENTICATED_PER_ADDRESS; i++) await raw();
    const refused = new WebSocket(url, 'graphql-transport-ws');
    refused.on('error', () => {});
    const status = await new Promise((resolve) => {
      refused.once('unexpected-response', (_req, res) => resolve(res.statusCode));
      refused.once('open', () => resolve('open'));
    });
    expect(status).toBe(429);
  });

  it(`${MAX_SOCKETS_PER_CREDENTIAL} sockets per key; the next is closed with 4429, other keys unaffected`, async () => {
    const key = await ws.addKey({});
    for (let i = 0; i < MAX_SOCKETS_PER_CREDENTIAL; i++) await connected(key.key);
    const { closed } = await connected(key.key);
    expect(await closed).toMatchObject({ code: 4429 });
    const other = await connected();
    expect(await Promise.race([other.closed, sleep(200).then(() => 'open')])).toBe('open');
  });

  it('caps operations in flight per socket and subscriptions per key, SSE included; then rate_limited', async () => {
    const key = await ws.addKey({});
    const { client, closed } = await connected(key.key);
    const first = Array.from({ length: MAX_OPERATIONS_PER_SOCKET }, () => start(client));
    const extra = start(client);
    for (const until = Date.now() + 5_000; !extra.length && Date.now() < until; ) await sleep(20);
    expect(extra[0]).toMatchObject({ extensions: { code: 'rate_limited' } });
    expect(first.flat()).toEqual([]);

    const second = await connected(key.key);
    const more = Array.from({ length: MAX_SUBSCRIPTIONS_PER_CREDENTIAL - MAX_OPERATIONS_PER_SOCKET }, () =>
      start(second.client),
    );
    // Every one of the key's subscriptions is running once an event reaches them all.
    await sleep(500);
    expect(more.flat()).toEqual([]);
    const sse = subscribeSse(app.base, { authorization: `Bearer ${key.key}` }, EVENTS);
    cleanup.push(() => sse.close());
    await sse.ended;
    expect(sse.errors[0]).toMatchObject({ extensions: { code: 'rate_limited' } });
    expect(await Promise.race([closed, sleep(100).then(() => 'open')])).toBe('open');
  });
});

describe('subscribers that stop reading', () => {
  it(`a subscriber over ${MAX_EVENTS_BEHIND} events behind gets an error; process and others carry on`, async () => {
    const reader = subscribe(app.base, { authorization: `Bearer ${ws.key}` }, EVENTS);
    cleanup.push(() => reader.close());
    await reader.ready(app.bus, contactProbe(ws.id));

    const stalled = await raw();
    send(stalled, { type: 'connection_init', payload: { authorization: `Bearer ${ws.key}` } });
    await new Promise((r) => stalled.once('message', r));
    send(stalled, { type: 'subscribe', id: 's', payload: { query: 'subscription { events { id data } }' } });
    await sleep(300);
    // Stops reading: the kernel's buffers fill, then the server's sends wait.
    (stalled as unknown as { _socket: net.Socket })._socket.pause();
    const big = 'x'.repeat(10_000);
    for (let i = 0; i < 3_000; i++) {
      app.bus.publish({
        id: `evt_flood_${i}`,
        event: 'contact.created',
        timestamp: new Date().toISOString(),
        workspaceId: ws.id,
        entityType: 'contact',
        entityId: `c${i}`,
        sequence: 1,
        data: { big },
      });
      if (i % 100 === 0) await sleep(5);
    }
    await reader.waitFor((d) => d.events.id === 'evt_flood_2999', 30_000);
    // Reading again, the stalled socket finds its subscription ended with a coded error.
    const messages: any[] = [];
    stalled.on('message', (m) => messages.push(JSON.parse(String(m))));
    (stalled as unknown as { _socket: net.Socket })._socket.resume();
    for (
      const until = Date.now() + 10_000;
      !messages.some((m) => m.type === 'error' || m.payload?.errors) && Date.now() < until;
    )
      await sleep(20);
    const ended = messages.find((m) => m.type === 'error' || m.payload?.errors);
    expect(ended?.payload?.errors?.[0] ?? ended?.payload?.[0]).toMatchObject({
      extensions: { code: 'service_unavailable' },
    });
    expect(messages.filter((m) => m.type === 'next' && !m.payload.errors).length).toBeLessThan(3_000);
  }, 60_000);
});
