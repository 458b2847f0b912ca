// SIGTERM to the real entry points while requests, a WebSocket and webhook deliveries are in
// flight: the answer still comes, the socket closes with 1001, finished attempts are recorded,
// unfinished ones released (no lease left, attempt uncounted), and the process exits 0 in time.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { openDatabase } from '../src/db/client.ts';
import { client } from './helpers/app.ts';
import { freePort, freshStore, runEntry, waitForHttp, type Child } from './helpers/processes.ts';
import { until } from './helpers/receiver.ts';

const GRACE_MS = 4_000;
const EVENTS = 50;
/** This many deliveries are answered after 1.5 s (inside the grace period); the rest never are. */
const ANSWERED = 20;

const children: Child[] = [];
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  for (const fn of cleanup) await fn();
});

/** A receiver that answers the first ANSWERED requests after 1.5 s and holds the others open. */
async function slowReceiver() {
  let hits = 0;
  const held: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (++hits <= ANSWERED) setTimeout(() => res.end('ok'), 1_500);
      else held.push(res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanup.push(async () => {
    held.forEach((r) => r.destroy());
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, hits: () => hits };
}

/** A POST whose body is sent in two parts, so it is certainly in flight between them. */
function splitRequest(port: number, key: string, body: string) {
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
  };
  const req = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/contacts', agent: false, headers });
  const answer = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text }));
    });
    req.on('error', reject);
  });
  const half = Math.floor(body.length / 2);
  req.write(body.slice(0, half));
  return { answer, finish: () => req.end(body.slice(half)) };
}

/** A graphql-ws connection, acknowledged; `closed` resolves with its close code. */
async function openSocket(port: number, key: string): Promise<{ closed: Promise<number> }> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/graphql`, 'graphql-transport-ws');
  const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${key}` } }));
  await new Promise<void>((resolve, reject) => {
    ws.once('message', (m) =>
      JSON.parse(String(m)).type === 'connection_ack' ? resolve() : reject(new Error(String(m))),
    );
  });
  return { closed };
}

const common = {
  SHUTDOWN_GRACE_MS: String(GRACE_MS),
  NODE_ENV: 'production',
  WEBHOOK_WORKER_POLL_MS: '50',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  ENCRYPTION_KEY: 'shutdown-test-key',
};

async function startService(env: Record<string, string>) {
  const port = await freePort();
  const service = runEntry('src/main.ts', { ...common, ...env, PORT: String(port) });
  children.push(service);
  await waitForHttp(`http://127.0.0.1:${port}/healthz`, service, 90_000);
  const key = /crm_live_[0-9A-Za-z]{32}/.exec(service.output())![0];
  return { service, port, key, api: client(`http://127.0.0.1:${port}`, key) };
}

/** Subscribes the receiver and makes EVENTS contact.created events. */
async function subscribeAndProduce(api: ReturnType<typeof client>, url: string) {
  expect((await api('POST', '/v1/webhooks', { url, events: ['contact.created'], timeout_seconds: 30 })).status).toBe(
    201,
  );
  const rows = Array.from({ length: EVENTS }, (_, i) => ({
    first_name: 'S',
    email: `shutdown.${i}.${Date.now()}@example.com`,
  }));
  expect((await api('POST', '/v1/contacts/bulk', { contacts: rows })).status).toBe(201);
}

/** Once the process is gone (and with it the embedded database's lock): what it left behind. */
async function expectRecordedOrReleased(store: Record<string, string>) {
  const db = await openDatabase({ databaseUrl: store.DATABASE_URL || null, dataDir: store.DATA_DIR });
  try {
    const deliveries = await db.prisma.webhookDelivery.findMany({ where: { event: 'contact.created' } });
    expect(deliveries).toHaveLength(EVENTS);
    expect(deliveries.filter((d) => d.lockedUntil !== null)).toEqual([]);
    const delivered = deliveries.filter((d) => d.status === 'delivered');
    expect(delivered).toHaveLength(ANSWERED);
    expect(delivered.every((d) => d.attempts === 1)).toBe(true);
    // Cut at the end of the grace period: as if never attempted, so any worker sends them at once.
    const released = deliveries.filter((d) => d.status === 'pending');
    expect(released).toHaveLength(EVENTS - ANSWERED);
    expect(released.every((d) => d.attempts === 0 && d.lastAttemptAt === null && d.nextAttemptAt! <= new Date())).toBe(
      true,
    );
  } finally {
    await db.close();
  }
}

describe('graceful shutdown', () => {
  it('npm start: open request answered, WebSocket closed 1001, deliveries recorded or released, exit 0', async () => {
    const store = await freshStore();
    cleanup.push(() => store.drop());
    const rc = await slowReceiver();
    const { service, port, key, api } = await startService(store.env);
    await subscribeAndProduce(api, rc.url);
    // Every delivery is at the receiver: the first ANSWERED get their answer in 1.5 s, the rest never.
    expect(await until(() => rc.hits() >= EVENTS, 30_000)).toBe(true);

    const socket = await openSocket(port, key);
    const inFlight = splitRequest(
      port,
      key,
      JSON.stringify({ first_name: 'Late', email: `late.${Date.now()}@example.com` }),
    );
    await new Promise((r) => setTimeout(r, 300));
    const signalled = Date.now();
    service.proc.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    // No new connections once shutting down.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    inFlight.finish();

    const answer = await inFlight.answer;
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.body).data.first_name).toBe('Late');
    expect(answer.connection).toBe('close');
    expect(await socket.closed).toBe(1001);
    expect(await service.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 3_000);
    await expectRecordedOrReleased(store.env);
  }, 180_000);

  it('npm run worker: attempts in flight recorded or released, exit 0', async () => {
    const store = await freshStore();
    cleanup.push(() => store.drop());
    const rc = await slowReceiver();
    // The API makes the events and stops (the embedded database takes one process at a time).
    const { service, api } = await startService({ ...store.env, WEBHOOK_WORKER: 'false' });
    await subscribeAndProduce(api, rc.url);
    service.proc.kill('SIGTERM');
    expect(await service.exited).toBe(0);

    const worker = runEntry('src/worker.ts', { ...common, ...store.env });
    children.push(worker);
    expect(await until(() => rc.hits() >= EVENTS, 60_000)).toBe(true);
    const signalled = Date.now();
    worker.proc.kill('SIGTERM');
    expect(await worker.exited).toBe(0);
    expect(Date.now() - signalled).toBeLessThan(GRACE_MS + 3_000);
    await expectRecordedOrReleased(store.env);
  }, 180_000);
});
