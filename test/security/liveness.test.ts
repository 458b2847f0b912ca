// One request must not take the service down. The compiled service runs as `npm start` runs it,
// with its production heap flags (192 MB old space), over one contact with 30 deals; it gets
// the largest and costliest inputs it accepts and the first ones it refuses, and after each it
// must still be alive and answering (/healthz and a real query), its peak resident memory
// (VmHWM) under 300 MB. Where starting and ordinary traffic alone already reach that (the embedded
// database lives in the process: about 420 MB at start), the inputs may add at most 64 MB to it.
import fs from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlags } from '../../bench/server-process.ts';
import { createApiKey, createWorkspace } from '../../src/admin/workspaces.ts';
import { openDatabase } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { client, type Client } from '../helpers/app.ts';
import {
  freePort,
  freshStore,
  peakRssMb,
  runEntry,
  stopProcess,
  waitForHttp,
  type Child,
} from '../helpers/processes.ts';
import { rawRequest } from './hostile.ts';

const PEAK_RSS_MB = 300;
/** What the inputs may add to the peak that starting and seeding reached, when that is over PEAK_RSS_MB. */
const ADDED_RSS_MB = 64;
let baselineMb = 0;
const DEALS = 30;
/** Short, so the slow-client tests wait seconds, not the defaults. */
const HEADERS_TIMEOUT_MS = 2_000;
const REQUEST_TIMEOUT_MS = 4_000;

let service: Child;
let base: string;
let drop: () => Promise<void>;
/** Keys in turn: each stays far inside the standard plan's 100 requests a minute. */
let keys: string[];
let turn = 0;
const api = (): Client => client(base, keys[turn++ % keys.length]);
let contactId: string;

beforeAll(async () => {
  const store = await freshStore();
  drop = store.drop;
  // The workspace of a standard plan, as the outside test had it, with keys made in the database.
  const db = await openDatabase({ databaseUrl: store.env.DATABASE_URL || null, dataDir: store.env.DATA_DIR });
  try {
    await applyMigrations(db.adapter, { client: db.prisma });
    const ws = await createWorkspace(db.prisma, { name: 'Liveness', plan: 'standard' });
    keys = await Promise.all(
      Array.from(
        { length: 6 },
        async (_v, i) =>
          (await createApiKey(db.prisma, { workspace: ws.id, name: `liveness ${i}`, scope: 'full' })).key,
      ),
    );
  } finally {
    await db.close();
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const env = {
    ...store.env,
    NODE_ENV: 'production',
    PORT: String(port),
    REDIS_URL: '',
    ENCRYPTION_KEY: 'liveness-test-key',
    SCHEDULER_INTERVAL_MS: '0',
    HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_TIMEOUT_MS),
    HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
  };
  service = runEntry('src/main.ts', env, startFlags());
  await waitForHttp(`${base}/healthz`, service, 90_000);

  const contact = await api()('POST', '/v1/contacts', { first_name: 'Hub', email: `hub.${Date.now()}@example.com` });
  contactId = contact.body.data.id;
  const pipeline = (await api()('GET', '/v1/pipelines')).body.data[0];
  for (let i = 0; i < DEALS; i++) {
    const deal = await api()('POST', '/v1/deals', {
      title: `Deal ${i}`,
      pipeline_id: pipeline.id,
      stage_id: pipeline.stages[0].id,
      contact_id: contactId,
    });
    expect(deal.status).toBe(201);
  }
  baselineMb = peakRssMb(service.proc.pid!);
}, 180_000);

afterAll(async () => {
  if (service) await stopProcess(service);
  await drop?.();
});

/**
 * Alive: the process runs, /healthz answers, a real query answers
 * with the seeded data, and the peak RSS stayed under the bound.
 */
async function expectAlive(after: string) {
  expect(service.proc.exitCode, `${after}: the service exited: ${service.output().slice(-3000)}`).toBeNull();
  expect(service.proc.signalCode, `${after}: the service was killed: ${service.output().slice(-3000)}`).toBeNull();
  const health = await fetch(`${base}/healthz`);
  expect(health.status, after).toBe(200);
  const r = await api()('POST', '/graphql', {
    query: 'query ($id: ID!) { contact(id: $id) { id deals(limit: 2) { id contacts { contact_id } } } }',
    variables: { id: contactId },
  });
  expect(r.body.data?.contact?.deals, `${after}: ${r.text.slice(0, 500)}`).toHaveLength(2);
  expect(
    peakRssMb(service.proc.pid!),
    `${after}: peak RSS (after start and seeding: ${baselineMb.toFixed(0)} MB)`,
  ).toBeLessThan(Math.max(PEAK_RSS_MB, baselineMb + ADDED_RSS_MB));
}

/** Sends a request that may be refused or cut; a connection the dying service drops is reported, not thrown. */
async function send(fn: () => Promise<{ status: number; text: string }>): Promise<{ status: number; text: string }> {
  try {
    return await fn();
  } catch (err) {
    return { status: 0, text: String(err) };
  }
}

const gqlBody = (query: string, variables?: unknown) => JSON.stringify({ query, variables });
const postGraphql = (body: string, key = keys[turn++ % keys.length]) =>
  send(() =>
    rawRequest(
      base,
      'POST',
      '/graphql',
      { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
      body,
    ),
  );

/** 4 aliases of the example: about 108,000 objects over one contact with 30 deals. */
const example = (id: string, aliases = 4, innermost = 100) => {
  const alias = (i: number) =>
    `a${i}: contact(id: "${id}") { deals(limit: 100) { contacts { contact { deals(limit: 100) { ` +
    `contacts { contact { deals(limit: ${innermost}) { id title } } } } } } } }`;
  return `{ ${Array.from({ length: aliases }, (_v, i) => alias(i)).join(' ')} }`;
};

describe('one request cannot take the service down (production heap flags)', () => {
  it('runs with the heap flags of npm start', () => {
    expect(startFlags()).toContain('--max-old-space-size=192');
    expect(fs.readFileSync(`/proc/${service.proc.pid}/cmdline`, 'utf8')).toContain('--max-old-space-size=192');
  });

  it("the issue's example (4 aliases of three nested deals(limit: 100)) is refused before it runs", async () => {
    const r = await postGraphql(gqlBody(example(contactId)));
    expect(r.status, r.text.slice(0, 300)).toBe(200);
    const body = JSON.parse(r.text);
    expect(body.data).toBeUndefined();
    expect(body.errors[0].extensions.code).toBe('validation_error');
    expect(body.errors[0].message).toMatch(/cost limit of 20000 exceeded/);
    await expectAlive('the example');
  });

  it('the costliest nesting it accepts answers in full', async () => {
    // Per alias 1 + 30 × (1 + 25 × (1 + 1 + 2 × 1)) = 3,031; six of them 18,186, under 20,000.
    const alias = (i: number) =>
      `a${i}: contact(id: "${contactId}") { deals(limit: ${DEALS}) { ` +
      'contacts { contact { deals(limit: 2) { id } } } } }';
    const query = `{ ${Array.from({ length: 6 }, (_v, i) => alias(i)).join(' ')} }`;
    const r = await postGraphql(gqlBody(query));
    const body = JSON.parse(r.text);
    expect(body.errors, r.text.slice(0, 300)).toBeUndefined();
    expect(body.data.a5.deals).toHaveLength(DEALS);
    await expectAlive('the costliest accepted nesting');
  });

  it('15 aliases at depth 10 (the most of both) answer; a 16th alias and an 11th level are refused', async () => {
    const deep = (alias: string) =>
      `${alias}: contact(id: "${contactId}") { deals(limit: 1) { contact { deals(limit: 1) { contact { ` +
      'deals(limit: 1) { contact { deals(limit: 1) { contact { id } } } } } } } } }';
    const ok = await postGraphql(gqlBody(`{ ${Array.from({ length: 15 }, (_v, i) => deep(`a${i}`)).join(' ')} }`));
    expect(JSON.parse(ok.text).errors, ok.text.slice(0, 300)).toBeUndefined();
    const aliases = await postGraphql(gqlBody(`{ ${Array.from({ length: 16 }, (_v, i) => deep(`a${i}`)).join(' ')} }`));
    expect(JSON.parse(aliases.text).errors[0].message).toMatch(/aliases limit of 15/i);
    await expectAlive('15 aliases at depth 10');
  });

  it('a body of just under 1 MiB is read; one byte more is a 413', async () => {
    // One long string argument: a single token, so the document passes every shape limit and is searched for.
    const filler = (n: number) => gqlBody(`{ searchContacts(q: "${'x'.repeat(n)}", limit: 1) { total } }`);
    const overhead = filler(0).length;
    const limit = 1024 * 1024;
    const largest = await postGraphql(filler(limit - overhead));
    expect(largest.status, largest.text.slice(0, 300)).toBe(200);
    const tooLarge = await postGraphql(filler(limit - overhead + 1));
    expect(tooLarge.status).toBe(413);
    expect(JSON.parse(tooLarge.text).errors[0].extensions.code).toBe('payload_too_large');
    // The same on REST: a search of a 1 MiB query string cannot be sent (the URL is capped at 16 KiB), a bulk body can.
    const rows = Array.from({ length: 100 }, (_v, i) => ({
      first_name: 'B'.repeat(255),
      last_name: 'L'.repeat(255),
      email: `bulk.${i}.${Date.now()}@example.com`,
      tags: Array.from({ length: 50 }, (_w, j) => `t${j}`.padEnd(64, 'x')),
    }));
    const bulk = await api()('POST', '/v1/contacts/bulk', { contacts: rows });
    expect(bulk.status, bulk.text.slice(0, 300)).toBe(201);
    await expectAlive('1 MiB bodies');
  });

  it('variables of almost 1 MiB, and batched (array) bodies, are refused without running', async () => {
    const big = Array.from({ length: 200_000 }, () => 1);
    const unused = await postGraphql(gqlBody('query ($ids: [Int!]) { contacts(limit: 1) { total } }', { ids: big }));
    expect(unused.status).toBeLessThan(500);
    const batch = await postGraphql(
      JSON.stringify(Array.from({ length: 500 }, () => ({ query: example(contactId, 1) }))),
    );
    expect(batch.status).toBeGreaterThanOrEqual(400);
    expect(batch.status).toBeLessThan(500);
    await expectAlive('big variables and batches');
  });

  it('headers or a URL over 16 KiB are a 431; a GET query string under it is read', async () => {
    const key = keys[turn++ % keys.length];
    const get = await send(() =>
      rawRequest(
        base,
        'GET',
        `/graphql?query=${encodeURIComponent(`{ searchContacts(q: "${'y'.repeat(15_000)}", limit: 1) { total } }`)}`,
        { authorization: `Bearer ${key}`, accept: 'application/json' },
      ),
    );
    expect(get.status, get.text.slice(0, 300)).toBe(200);
    const longUrl = await send(() =>
      rawRequest(base, 'GET', `/graphql?query=${'z'.repeat(20_000)}`, { authorization: `Bearer ${key}` }),
    );
    expect(longUrl.status).toBe(431);
    const bigHeader = await send(() => rawRequest(base, 'GET', '/healthz', { 'x-filler': 'h'.repeat(20_000) }));
    expect(bigHeader.status).toBe(431);
    await expectAlive('large headers and URLs');
  });

  it('a client that sends its headers or its body slowly is cut off (slow loris)', async () => {
    const port = Number(new URL(base).port);
    /** Trickles `head` (and then `body`) a few bytes at a time; resolves with how long the server kept the socket. */
    const trickle = (head: string, body = '') =>
      new Promise<number>((resolve) => {
        const started = Date.now();
        const socket = net.connect(port, '127.0.0.1');
        const bytes = head + body;
        let i = 0;
        const timer = setInterval(() => {
          if (i < bytes.length && !socket.destroyed) socket.write(bytes.slice(i, (i += 2)));
        }, 200);
        socket.on('error', () => {});
        socket.on('close', () => {
          clearInterval(timer);
          resolve(Date.now() - started);
        });
        socket.on('data', () => {});
      });
    const headers = trickle(`GET /healthz HTTP/1.1\r\nHost: x\r\n${'X-Slow: ' + 'a'.repeat(400)}\r\n\r\n`);
    const body = 'b'.repeat(400);
    const slowBody = trickle(
      `POST /v1/contacts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${keys[0]}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    );
    const idle = new Promise<number>((resolve) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      socket.on('error', () => {});
      socket.on('close', () => resolve(Date.now() - started));
    });
    // The first two would take 40 s or more to finish at this pace, the
    // third never sends a byte; the server cuts each near its timeout.
    const [h, b, i] = await Promise.all([headers, slowBody, idle]);
    expect(h).toBeLessThan(HEADERS_TIMEOUT_MS + 10_000);
    expect(b).toBeLessThan(REQUEST_TIMEOUT_MS + 10_000);
    expect(i).toBeLessThan(HEADERS_TIMEOUT_MS + 10_000);
    await expectAlive('slow clients');
  }, 60_000);

  it('after all of it, the peak RSS stayed under 300 MB', async () => {
    await expectAlive('the whole run');
    console.log(
      `liveness: peak RSS ${peakRssMb(service.proc.pid!).toFixed(0)} MB ` +
        `(${baselineMb.toFixed(0)} MB after start and seeding) with ${startFlags().join(' ')}`,
    );
  });
});
