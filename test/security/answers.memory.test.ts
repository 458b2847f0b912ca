// Large answers, alone and together, cannot take the service down. The compiled service runs with
// the heap flags of `npm start` over two contacts with 100 notes of 100,000 characters each: one
// whose notes are U+0001 (each sent as the 6 bytes `\u0001`: a page of them is 60 MB of JSON) and
// one whose notes are plain (a page of them is a legitimate 10 MB answer). It gets those pages the
// way an attacker would ask for them: several at once over GraphQL and REST, 40 at once from one
// key, 40 operations on one WebSocket whose client reads. After each it must be alive and
// answering, and its peak resident memory during the test may exceed what it held at the test's
// start by at most GROWTH_LIMIT_MB (without these bounds, 40 answers of 10 MB at once add about
// 220 MB, and the other cases end the process).
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFlags } from '../../bench/server-process.ts';
import { createApiKey, createWorkspace } from '../../src/admin/workspaces.ts';
import { openDatabase } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { newId } from '../../src/ids.ts';
import {
  freePort,
  freshStore,
  peakRssMb,
  resetPeakRss,
  rssMb,
  runEntry,
  stopProcess,
  waitForHttp,
  type Child,
} from '../helpers/processes.ts';
import { rawRequest } from './hostile.ts';

/** What one test may add to the peak RSS over the RSS at its start. */
const GROWTH_LIMIT_MB = 160;
const NOTES = 100;
const NOTE_CHARS = 100_000;

let service: Child;
let base: string;
let drop: () => Promise<void>;
let keys: string[];
let turn = 0;
/** The contact whose notes are U+0001 (60 MB of JSON a page), and the one whose notes are plain text (10 MB a page). */
let escaped: string;
let plain: string;
let baselineMb = 0;

beforeAll(async () => {
  const store = await freshStore();
  drop = store.drop;
  // Notes written straight to the database: data stored before the API refused control characters is served as it is.
  const db = await openDatabase({ databaseUrl: store.env.DATABASE_URL || null, dataDir: store.env.DATA_DIR });
  try {
    await applyMigrations(db.adapter, { client: db.prisma });
    const ws = await createWorkspace(db.prisma, { name: 'Answers', plan: 'standard' });
    keys = await Promise.all(
      Array.from(
        { length: 6 },
        async (_v, i) => (await createApiKey(db.prisma, { workspace: ws.id, name: `answers ${i}`, scope: 'full' })).key,
      ),
    );
    [escaped, plain] = [newId('con'), newId('con')];
    for (const [id, char] of [
      [escaped, '\u0001'],
      [plain, 'x'],
    ] as const) {
      await db.prisma.contact.create({
        data: { id, workspaceId: ws.id, firstName: 'Notes', email: `${id}@example.com` },
      });
      const content = char.repeat(NOTE_CHARS);
      for (let i = 0; i < NOTES; i += 10) {
        await db.prisma.note.createMany({
          data: Array.from({ length: 10 }, () => ({ id: newId('note'), workspaceId: ws.id, contactId: id, content })),
        });
      }
    }
  } finally {
    await db.close();
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  service = runEntry(
    'src/main.ts',
    {
      ...store.env,
      NODE_ENV: 'production',
      PORT: String(port),
      REDIS_URL: '',
      ENCRYPTION_KEY: 'answers-test-key',
      SCHEDULER_INTERVAL_MS: '0',
    },
    startFlags(),
  );
  await waitForHttp(`${base}/healthz`, service, 90_000);
  // One ordinary request warms the service up.
  expect((await getRest(`/v1/contacts/${plain}/notes?limit=1`)).status).toBe(200);
}, 240_000);

/** Measures the peak from now on, over the memory held now (5 in clear_refs resets VmHWM). */
beforeEach(() => {
  resetPeakRss(service.proc.pid!);
  baselineMb = rssMb(service.proc.pid!);
});

afterAll(async () => {
  if (service) await stopProcess(service);
  await drop?.();
});

const nextKey = () => keys[turn++ % keys.length];

/** A request that the dying service may drop: reported as status 0, not thrown. */
async function send(fn: () => Promise<{ status: number; text: string; headers?: Record<string, unknown> }>) {
  try {
    return await fn();
  } catch (err) {
    return { status: 0, text: String(err), headers: {} };
  }
}

const notesQuery = (id: string) => `{ contactNotes(contactId: "${id}", limit: ${NOTES}) { nodes { id content } } }`;
const postGraphql = (query: string, key = nextKey()) =>
  send(() =>
    rawRequest(
      base,
      'POST',
      '/graphql',
      { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'application/json' },
      JSON.stringify({ query }),
    ),
  );
const getRest = (path: string, key = nextKey()) =>
  send(() => rawRequest(base, 'GET', path, { authorization: `Bearer ${key}` }));

async function expectAlive(after: string) {
  expect(service.proc.exitCode, `${after}: the service exited: ${service.output().slice(-3000)}`).toBeNull();
  expect(service.proc.signalCode, `${after}: the service was killed: ${service.output().slice(-3000)}`).toBeNull();
  expect((await fetch(`${base}/healthz`)).status, after).toBe(200);
  const r = await getRest(`/v1/contacts/${plain}/notes?limit=2`);
  expect(r.status, `${after}: ${r.text.slice(0, 300)}`).toBe(200);
  expect(JSON.parse(r.text).data).toHaveLength(2);
  const peak = peakRssMb(service.proc.pid!);
  console.log(
    `${after}: peak RSS ${peak.toFixed(0)} MB, ${(peak - baselineMb).toFixed(0)} MB over the RSS at the test's start`,
  );
  expect(peak - baselineMb, `${after}: growth of the peak RSS`).toBeLessThan(GROWTH_LIMIT_MB);
}

/** A refusal for want of room: 503 service_unavailable with Retry-After, on REST or GraphQL. */
function expectBusy(r: { status: number; text: string; headers?: Record<string, unknown> }) {
  expect(r.status, r.text.slice(0, 300)).toBe(503);
  expect(Number(r.headers?.['retry-after'])).toBeGreaterThan(0);
  const body = JSON.parse(r.text);
  if (body.errors) {
    expect(body.errors[0].extensions.code).toBe('service_unavailable');
    expect(body.errors[0].extensions.retry_after).toBeGreaterThan(0);
  } else expect(body.error.code).toBe('service_unavailable');
}

describe('large answers cannot take the service down (production heap flags)', () => {
  it('notes escaping to 60 MB of JSON are refused by their exact size: 3 at once on GraphQL, 8 on REST', async () => {
    const [graphql, rest] = await Promise.all([
      Promise.all(Array.from({ length: 3 }, () => postGraphql(notesQuery(escaped)))),
      Promise.all(Array.from({ length: 8 }, () => getRest(`/v1/contacts/${escaped}/notes?limit=${NOTES}`))),
    ]);
    for (const r of graphql) {
      if (r.status === 503) {
        expectBusy(r);
        continue;
      }
      const body = JSON.parse(r.text);
      expect(body.data, r.text.slice(0, 300)).toBeUndefined();
      expect(body.errors[0].extensions.code).toBe('validation_error');
      expect(body.errors[0].message).toMatch(/larger than \d+ bytes/);
    }
    for (const r of rest) {
      if (r.status === 503) {
        expectBusy(r);
        continue;
      }
      expect(r.status, r.text.slice(0, 300)).toBe(400);
      expect(JSON.parse(r.text).error.message).toMatch(/larger than \d+ bytes/);
    }
    await expectAlive('escaped pages');
  }, 120_000);

  it('40 answers of 10 MB at once from one key, GraphQL and REST: each in full or a 503 with Retry-After', async () => {
    const key = nextKey();
    const results = await Promise.all(
      Array.from({ length: 40 }, (_v, i) =>
        i % 4 ? postGraphql(notesQuery(plain), key) : getRest(`/v1/contacts/${plain}/notes?limit=${NOTES}`, key),
      ),
    );
    let full = 0;
    for (const r of results) {
      if (r.status === 503) {
        expectBusy(r);
        continue;
      }
      expect(r.status, r.text.slice(0, 300)).toBe(200);
      const body = JSON.parse(r.text);
      const nodes = body.data.contactNotes?.nodes ?? body.data;
      expect(nodes).toHaveLength(NOTES);
      expect(nodes[0].content).toHaveLength(NOTE_CHARS);
      full++;
    }
    expect(full).toBeGreaterThan(0);
    await expectAlive('40 answers of 10 MB');
  }, 180_000);

  /** A WebSocket authenticated with a key. */
  async function socket(): Promise<WebSocket> {
    const s = new WebSocket(`${base.replace('http', 'ws')}/graphql`, 'graphql-transport-ws', {
      maxPayload: 64 * 1024 * 1024,
    });
    s.on('error', () => {});
    await new Promise((resolve, reject) => {
      s.once('open', resolve);
      s.once('unexpected-response', () => reject(new Error('upgrade refused')));
    });
    s.send(JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${nextKey()}` } }));
    await new Promise((r) => s.once('message', r));
    return s;
  }

  it('40 operations of 10 MB answers on one WebSocket: a reader gets each in full or a retryable refusal', async () => {
    const s = await socket();
    const outcomes = new Map<string, string>();
    const done = new Promise<void>((resolve, reject) => {
      s.on('close', (code, reason) => reject(new Error(`closed ${code} ${reason}: ${service.output().slice(-1500)}`)));
      s.on('message', (data) => {
        const m = JSON.parse(String(data));
        if (m.type === 'next') {
          const error = m.payload.errors?.[0];
          outcomes.set(
            m.id,
            error
              ? error.extensions.code
              : m.payload.data.contactNotes.nodes.length === NOTES &&
                  m.payload.data.contactNotes.nodes[0].content.length === NOTE_CHARS
                ? 'full'
                : 'partial',
          );
        } else if (m.type === 'error') outcomes.set(m.id, m.payload[0]?.extensions?.code ?? 'error');
        if (m.type === 'complete' || m.type === 'error') {
          if ([...outcomes.keys()].length === 40 && m.type) setTimeout(resolve, 0);
        }
      });
    });
    for (let i = 0; i < 40; i++)
      s.send(JSON.stringify({ type: 'subscribe', id: `q${i}`, payload: { query: notesQuery(plain) } }));
    await done;
    const counts = [...outcomes.values()].reduce<Record<string, number>>(
      (acc, o) => ((acc[o] = (acc[o] ?? 0) + 1), acc),
      {},
    );
    expect(
      Object.keys(counts).filter((o) => o !== 'full' && o !== 'service_unavailable'),
      JSON.stringify(counts),
    ).toEqual([]);
    expect(counts.full, JSON.stringify(counts)).toBeGreaterThan(0);
    s.terminate();
    await expectAlive('40 operations on one socket, read');
  }, 180_000);
});
