// Lists as long as a 1 MiB body holds (10^5 items and more), of items of the wrong type, sent to the
// service as `npm start` runs it (its own process, its heap flags): to every REST route whose body
// takes a list, and as GraphQL variables of the same inputs. Each is one short 400 naming at most
// MAX_DETAILS fields, and the process lives on. Each wrong item costs the checks an error object
// with its stack: uncapped, one such request built a 10-28 MB answer over seconds, or exhausted the
// heap and ended the process.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFlags } from '../bench/server-process.ts';
import { MAX_DETAILS } from '../src/rest/variables.ts';
import { client, type Client } from './helpers/app.ts';
import { freePort, freshStore, runEntry, stopProcess, waitForHttp, type Child } from './helpers/processes.ts';
import { serviceEnv } from './helpers/service-process.ts';

/** An answer naming at most MAX_DETAILS fields is a few KiB; the uncapped ones were megabytes. */
const SHORT_ANSWER_BYTES = 64 * 1024;

let child: Child;
let api: Client;
let drop: () => Promise<void>;
let pipelineId: string;

beforeAll(async () => {
  const store = await freshStore();
  drop = store.drop;
  const port = await freePort();
  child = runEntry('src/main.ts', { ...serviceEnv, ...store.env, PORT: String(port) }, startFlags());
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, child, 90_000);
  const key = /crm_live_[A-Za-z0-9]{32}/.exec(child.output())?.[0];
  if (!key) throw new Error(`no key printed: ${child.output().slice(-2000)}`);
  api = client(base, key);
  pipelineId = (await api('GET', '/v1/pipelines')).body.data[0].id;
}, 120_000);

afterAll(async () => {
  if (child) await stopProcess(child);
  await drop?.();
});

/** `[1,1,1,...]` (or of another item) as JSON text of about `bytes` bytes. */
const longList = (item: string, bytes = 900_000) =>
  `[${Array(Math.floor(bytes / (item.length + 1)))
    .fill(item)
    .join(',')}]`;

/**
 * Each body list of the API: where it goes in a REST body, and the GraphQL input type and field taking the same body.
 */
const LISTS: { path: string; body: (list: string) => string; input: string; field: string }[] = [
  {
    path: '/v1/contacts',
    body: (l) => `{"first_name":"A","email":"a@example.com","tags":${l}}`,
    input: 'ContactCreateInput',
    field: 'createContact',
  },
  {
    path: '/v1/contacts/bulk',
    body: (l) => `{"contacts":${l}}`,
    input: 'ContactBulkInput',
    field: 'bulkCreateContacts',
  },
  {
    path: '/v1/deals',
    body: (l) => `{"title":"D","pipeline_id":"PIPELINE","tags":${l}}`,
    input: 'DealCreateInput',
    field: 'createDeal',
  },
  {
    path: '/v1/activities',
    body: (l) => `{"type":"call","attendees":${l}}`,
    input: 'ActivityCreateInput',
    field: 'createActivity',
  },
  {
    path: '/v1/webhooks',
    body: (l) => `{"url":"https://example.com/h","events":${l}}`,
    input: 'WebhookCreateInput',
    field: 'createWebhook',
  },
  {
    path: '/v1/webhooks',
    body: (l) =>
      '{"url":"https://example.com/h","events":["contact.created"],' +
      `"retry_policy":{"max_retries":1,"intervals_seconds":${l}}}`,
    input: 'WebhookCreateInput',
    field: 'createWebhook',
  },
  {
    path: '/v1/pipelines',
    body: (l) => `{"name":"P","stages":${l}}`,
    input: 'PipelineCreateInput',
    field: 'createPipeline',
  },
];

/** Items no list of the API takes: numbers where text goes, text where objects or numbers go, empty objects. */
const WRONG_ITEMS = ['1', '{}', '"x"'];

describe('long lists of wrong items, under the production heap', () => {
  for (const list of LISTS) {
    for (const item of WRONG_ITEMS) {
      const where = list.body('[…]').replace('PIPELINE', '…');
      it(`REST ${list.path} ${where} of ${item}: one short 400, the service lives on`, async () => {
        const r = await api('POST', list.path, list.body(longList(item)).replace('PIPELINE', pipelineId));
        expect(child.proc.exitCode, child.output().slice(-2000)).toBeNull();
        expect(r.status, r.text.slice(0, 300)).toBe(400);
        expect(r.body.error.code).toBe('validation_error');
        expect(Object.keys(r.body.error.details).length).toBeGreaterThan(0);
        expect(Object.keys(r.body.error.details).length).toBeLessThanOrEqual(MAX_DETAILS + 1);
        expect(r.text.length).toBeLessThan(SHORT_ANSWER_BYTES);
      }, 30_000);

      it(`GraphQL ${list.input} ${where} of ${item} in a variable: refused, the service lives on`, async () => {
        const variables = list.body(longList(item)).replace('PIPELINE', pipelineId);
        const r = await api(
          'POST',
          '/graphql',
          `{"query":"mutation($i: ${list.input}!) { ${list.field}(input: $i) { __typename } }",` +
            `"variables":{"i":${variables}}}`,
        );
        expect(child.proc.exitCode, child.output().slice(-2000)).toBeNull();
        expect(r.body?.errors?.length, r.text.slice(0, 300)).toBeGreaterThan(0);
        expect(
          r.body.errors.every((e: { extensions?: { code?: string } }) => e.extensions?.code === 'validation_error'),
        ).toBe(true);
        expect(r.body.errors.length).toBeLessThanOrEqual(MAX_DETAILS + 1);
        expect(r.body.data?.[list.field] ?? null).toBeNull();
      }, 30_000);
    }
  }

  it('16 such bodies at once, REST and GraphQL, lists for one value: all refused, the service lives on', async () => {
    // Every check that walks a request (strict JSON, depth, storable text) once held an entry per
    // item, ~150 MB for one of these bodies; at once they exceeded the heap.
    const numbers = longList('1');
    const objects = longList('{}');
    const rest = `{"first_name":"A","email":"a@example.com","address":{"city":${numbers}}}`;
    const graphql =
      '{"query":"mutation($i: WebhookCreateInput!) { createWebhook(input: $i) { id } }",' +
      `"variables":{"i":{"url":"https://example.com/h","events":["contact.created"],"filters":${objects}}}}`;
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        i % 2 ? api('POST', '/graphql', graphql) : api('POST', '/v1/contacts', rest),
      ),
    );
    expect(child.proc.exitCode, child.output().slice(-2000)).toBeNull();
    for (const [i, r] of answers.entries()) {
      // Neither surface spells the list out again in its answer.
      expect(r.text.length).toBeLessThan(SHORT_ANSWER_BYTES);
      if (i % 2) {
        expect(r.body.errors[0].extensions.details).toEqual({
          filters: ['WebhookFilters cannot represent a non-object value: a list'],
        });
      } else {
        expect(r.status).toBe(400);
        expect(r.body.error.details).toEqual({ 'address.city': ['must be text'] });
      }
    }
  }, 60_000);

  it('answers as before once they are done', async () => {
    expect(child.proc.exitCode).toBeNull();
    const r = await api('POST', '/v1/contacts', { first_name: 'After', email: 'after@example.com', tags: ['a', 'b'] });
    expect(r.status).toBe(201);
    expect(r.body.data.tags).toEqual(['a', 'b']);
  });
});
