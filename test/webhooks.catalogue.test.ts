// The event catalogue against the real thing: a scenario through the REST API emits every event
// type, and every delivery (both payload formats, JSON and form bodies), every test-send sample
// and every stored event is validated with a JSON Schema validator against its published schema.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { runOnce as runScheduler } from '../src/jobs/task-scheduler.ts';
import { EVENT_CATALOGUE } from '../src/events/catalogue/index.ts';
import {
  answerSchema,
  componentName,
  eventBodySchemas,
  eventSchemaFiles,
  type JsonSchema,
  type PayloadFormat,
} from '../src/events/catalogue/envelopes.ts';
import { EMITTED_EVENTS, type EventName } from '../src/events/names.ts';
import { createLogger } from '../src/logger.ts';
import type { DeliveryWorker } from '../src/webhooks/worker.ts';
import { client, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { receiver, until, type Hit, type Receiver } from './helpers/receiver.ts';

// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

let app: TestApp;
let ws: TestWorkspace;
let worker: DeliveryWorker;
let eventFormat: Receiver;
let recordFormat: Receiver;
let subs: { event: string; record: string };

/** Strict: a field a builder emits that its schema does not name fails as much as a missing one. */
const strictAjv = addFormats(new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true }));
const strictBodies = eventBodySchemas({ strict: true });
const validators = new Map<string, ValidateFunction>();
function strictValidator(event: string, format: PayloadFormat): ValidateFunction {
  const key = `${event}/${format}`;
  const known = validators.get(key);
  if (known) return known;
  const schema = strictBodies[event]?.[format];
  expect(schema, `no schema for ${event} (${format} format)`).toBeDefined();
  const v = strictAjv.compile(schema!);
  validators.set(key, v);
  return v;
}

/** The bodies as the OpenAPI document publishes them (components and $refs). */
let published: (event: string, format: PayloadFormat) => ValidateFunction;

function expectValid(v: ValidateFunction, body: unknown, what: string) {
  const ok = v(body);
  expect(ok, `${what}: ${strictAjv.errorsText(v.errors)}\n${JSON.stringify(body, null, 1)}`).toBe(true);
}

/** The JSON body of a delivery: raw JSON, or the `payload` field of a form. */
const bodyOf = (hit: Hit) =>
  String(hit.headers['content-type']).startsWith('application/x-www-form-urlencoded')
    ? JSON.parse(new URLSearchParams(hit.raw).get('payload')!)
    : hit.json;

// Its own schema on PostgreSQL: the worker and the scheduler here must not touch other files' rows.
const test = withAppOptions({ isolated: true });
test.beforeAll(async ({ app: started, ws: main, listen }) => {
  app = started;
  ws = main;
  worker = app.worker();
  [eventFormat, recordFormat] = await Promise.all([listen(), listen()]);
  const subscribe = async (url: string, extra: Record<string, unknown>) => {
    const r = await ws.api('POST', '/v1/webhooks', { url, events: [...EMITTED_EVENTS], ...extra });
    expect(r.status, r.text).toBe(201);
    return r.body.data.id as string;
  };
  subs = {
    event: await subscribe(eventFormat.url, { payload_format: 'event' }),
    record: await subscribe(recordFormat.url, { payload_format: 'record', content_type: 'form' }),
  };
  const doc = (await client(app.base)('GET', '/v1/openapi.json')).body;
  // OpenAPI documents carry keywords of their own outside the schemas: not strict here.
  const docAjv = addFormats(new Ajv2020({ allErrors: true, strict: false }));
  docAjv.addSchema({ ...doc, $id: 'openapi.json' });
  published = (event, format) =>
    docAjv.compile({ $ref: `openapi.json#/components/schemas/${componentName(event, format)}` });
});

async function ok(method: string, path: string, body?: unknown) {
  const r = await ws.api(method, path, body);
  expect(r.status, `${method} ${path}: ${r.text}`).toBeLessThan(300);
  return r.body?.data;
}

/** Every event type a subscription can receive, through the REST API and the task scheduler. */
async function emitEveryEvent() {
  const user = await ws.addUser('Owner');
  const pipeline = (await ok('GET', '/v1/pipelines'))[0];
  const [firstStage, secondStage] = pipeline.stages;

  const contact = await ok('POST', '/v1/contacts', {
    first_name: 'Ada',
    last_name: 'Lovelace',
    email: uniqueEmail('ada'),
    tags: ['lead-magnet'],
    address: { city: 'London' },
  });
  await ok('PUT', `/v1/contacts/${contact.id}`, {
    status: 'customer',
    tags: ['lead-magnet', 'vip'],
    job_title: 'Analyst',
  });
  await ok('PUT', `/v1/contacts/${contact.id}`, { tags: ['vip'] });
  const duplicate = await ok('POST', '/v1/contacts', {
    first_name: 'Ada',
    email: uniqueEmail('ada-dup'),
    phone: '+14155550123',
  });
  await ok('POST', '/v1/contacts/merge', {
    primary_id: contact.id,
    secondary_id: duplicate.id,
    merge_strategy: 'prefer_secondary',
  });
  const gone = await ok('POST', '/v1/contacts', { first_name: 'Gone', email: uniqueEmail('gone') });
  await ok('DELETE', `/v1/contacts/${gone.id}`);
  await ok('POST', `/v1/contacts/${contact.id}/notes`, { content: 'Met at **the fair**' });

  const company = await ok('POST', '/v1/companies', {
    name: 'Analytical Engines',
    domain: `engines-${Date.now().toString(36)}.example`,
    tags: ['b2b'],
    address: { city: 'London' },
  });
  await ok('PUT', `/v1/companies/${company.id}`, { industry: 'Computing', size: 12 });
  const twin = await ok('POST', '/v1/companies', { name: 'Engines Ltd', custom_fields: {} });
  await ok('PUT', `/v1/contacts/${contact.id}`, { company_id: twin.id });
  await ok('POST', '/v1/companies/merge', { primary_id: company.id, secondary_id: twin.id });
  const closed = await ok('POST', '/v1/companies', { name: 'Closed Co' });
  await ok('DELETE', `/v1/companies/${closed.id}`);

  const deal = await ok('POST', '/v1/deals', {
    title: 'Engine',
    pipeline_id: pipeline.id,
    stage_id: firstStage.id,
    contact_id: contact.id,
    owner_id: user.id,
    value: 1200.5,
    expected_close_date: '2030-01-31',
  });
  await ok('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: secondStage.id, note: 'Budget confirmed' });
  await ok('PUT', `/v1/deals/${deal.id}`, { status: 'won', won_reason: 'Best fit' });
  const other = await ok('POST', '/v1/contacts', { first_name: 'Babbage', email: uniqueEmail('babbage') });
  await ok('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: other.id, role: 'Engineer' });
  await ok('DELETE', `/v1/deals/${deal.id}/contacts/${other.id}`);
  const lost = await ok('POST', '/v1/deals', { title: 'Loom', pipeline_id: pipeline.id });
  await ok('PUT', `/v1/deals/${lost.id}`, { status: 'lost', lost_reason: 'Price', competitor: 'Jacquard' });
  await ok('DELETE', `/v1/deals/${lost.id}`);

  const task = await ok('POST', '/v1/tasks', {
    title: 'Call back',
    assignee_id: user.id,
    due_date: new Date(Date.now() + 3_600_000).toISOString(),
    related_to_type: 'contact',
    related_to_id: contact.id,
    reminder: { type: 'email', before_minutes: 15 },
  });
  await ok('PUT', `/v1/tasks/${task.id}`, { priority: 'high' });
  // Two hours on: the task is overdue (and its reminder due).
  expect(
    (await runScheduler({ prisma: app.db.prisma, logger: createLogger('silent') }, new Date(Date.now() + 7_200_000)))
      .overdue,
  ).toBe(1);
  await ok('PUT', `/v1/tasks/${task.id}/complete`, { completion_note: 'Spoke for 10 minutes' });
  const dropped = await ok('POST', '/v1/tasks', { title: 'Dropped' });
  await ok('DELETE', `/v1/tasks/${dropped.id}`);

  await ok('POST', '/v1/activities', {
    type: 'call',
    subject: 'Intro call',
    contact_id: contact.id,
    deal_id: deal.id,
    duration: 10,
    outcome: 'connected',
  });

  // An import, with a row that fails: import.completed.
  const form = new FormData();
  form.append('resource', 'contacts');
  form.append('file', new Blob([`first_name,email\nImported,${uniqueEmail('imported')}\nBad,not-an-email\n`]));
  const job = await ok('POST', '/v1/imports', form);
  const runner = app.importRunner();
  try {
    await until(async () => (await ok('GET', `/v1/imports/${job.id}`)).status === 'completed', 30_000);
  } finally {
    await runner.stop();
  }
}

describe('event catalogue', () => {
  it('defines every emitted event, with a schema in both formats and a standalone file for each', () => {
    expect(Object.keys(eventBodySchemas())).toEqual([...EMITTED_EVENTS]);
    const files = eventSchemaFiles();
    for (const event of EMITTED_EVENTS) {
      for (const format of ['event', 'record'] as const) {
        const file = files[`${event}.${format}.schema.json`];
        expect(file, `${event}.${format}.schema.json`).toBeDefined();
        // Each file compiles on its own (no reference outside itself).
        expect(() => addFormats(new Ajv2020({ strict: true, allowUnionTypes: true })).compile(file)).not.toThrow();
      }
    }
  });

  it('every sample, timeline-only events included, satisfies its strict data schema', () => {
    for (const [name, definition] of Object.entries(EVENT_CATALOGUE)) {
      const sample = definition.sample();
      expect(sample.type).toBe(name);
      expectValid(strictAjv.compile(answerSchema(definition.data, { strict: true })), sample.data, `sample of ${name}`);
    }
  });

  it('each scenario event, sent in both formats and stored, fits its schema; so does each test send', async () => {
    await emitEveryEvent();
    const stored = await app.db.prisma.event.findMany({ where: { workspaceId: ws.id }, orderBy: { seq: 'asc' } });
    const delivered = stored.filter((e) => (EMITTED_EVENTS as readonly string[]).includes(e.type));
    // The scenario emits every type at least once, and the timeline-only ones too.
    expect(new Set(stored.map((e) => e.type))).toEqual(new Set(Object.keys(EVENT_CATALOGUE)));

    // Stored data against the strict data schema of its type (timeline-only events included).
    for (const e of stored) {
      const definition = EVENT_CATALOGUE[e.type as EventName];
      expect(definition, `definition of ${e.type}`).toBeDefined();
      expectValid(
        strictAjv.compile(answerSchema(definition.data, { strict: true })),
        e.data,
        `stored ${e.type} ${e.id}`,
      );
    }

    await until(
      async () => {
        await worker.runOnce();
        return eventFormat.hits.length >= delivered.length && recordFormat.hits.length >= delivered.length;
      },
      30_000,
      100,
    );
    expect(eventFormat.hits).toHaveLength(delivered.length);
    expect(recordFormat.hits).toHaveLength(delivered.length);

    const byId = new Map(stored.map((e) => [e.id, e]));
    // The headers the OpenAPI section lists as required, in the forms it gives.
    for (const hit of [...eventFormat.hits, ...recordFormat.hits]) {
      expect(hit.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
      expect(hit.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+={0,2}$/);
      expect(hit.headers['x-service-timestamp']).toMatch(/^[0-9]+$/);
      expect(hit.headers['webhook-timestamp']).toBe(hit.headers['x-service-timestamp']);
      expect(hit.headers['webhook-id']).toBe(hit.headers['x-service-event-id']);
      expect(byId.get(String(hit.headers['x-service-event-id']))?.type).toBe(hit.headers['x-service-event']);
    }
    for (const hit of eventFormat.hits) {
      const body = bodyOf(hit);
      const what = `delivered ${body.event} (event format)`;
      expectValid(strictValidator(body.event, 'event'), body, what);
      expectValid(published(body.event, 'event'), body, `${what}, published schema`);
      // The envelope carries the stored event as it is, sequence included.
      const row = byId.get(body.id)!;
      expect(body).toMatchObject({ event: row.type, sequence: row.sequence, data: row.data });
    }
    for (const hit of recordFormat.hits) {
      expect(hit.headers['content-type']).toBe('application/x-www-form-urlencoded');
      const body = bodyOf(hit);
      const what = `delivered ${body.event} (record format)`;
      expectValid(strictValidator(body.event, 'record'), body, what);
      expectValid(published(body.event, 'record'), body, `${what}, published schema`);
      expect(body.sequence).toBe(byId.get(String(hit.headers['x-service-event-id']))!.sequence);
    }
    expect(new Set(eventFormat.hits.map((h) => bodyOf(h).event))).toEqual(new Set(EMITTED_EVENTS));
    expect(new Set(recordFormat.hits.map((h) => bodyOf(h).event))).toEqual(new Set(EMITTED_EVENTS));

    // Envelope B names the deal's pipeline and stages for deal.stage_changed, as the integration guide shows.
    const moved = bodyOf(recordFormat.hits.find((h) => h.headers['x-service-event'] === 'deal.stage_changed')!);
    const pipeline = (await ok('GET', '/v1/pipelines'))[0];
    expect(moved.data).toMatchObject({
      pipeline: pipeline.name,
      previous_stage: pipeline.stages[0].name,
      new_stage: pipeline.stages[1].name,
      owner: { name: 'Owner' },
    });

    // Test sends: one sample per event in each format, the same schemas, sequence 0.
    const before = { event: eventFormat.hits.length, record: recordFormat.hits.length };
    for (const [format, id] of Object.entries(subs)) {
      const r = await ws.api('POST', `/v1/webhooks/${id}/test`);
      expect(r.status, r.text).toBe(200);
      expect(r.body.data.every((x: { status: string }) => x.status === 'delivered')).toBe(true);
      const rc = format === 'event' ? eventFormat : recordFormat;
      const samples = rc.hits.slice(before[format as PayloadFormat]).map(bodyOf);
      expect(samples.map((s) => s.event).sort()).toEqual([...EMITTED_EVENTS].sort());
      for (const s of samples) {
        expect(s.sequence).toBe(0);
        expectValid(strictValidator(s.event, format as PayloadFormat), s, `test send ${s.event} (${format} format)`);
        expectValid(
          published(s.event, format as PayloadFormat),
          s,
          `test send ${s.event} (${format} format), published schema`,
        );
      }
    }
  }, 120_000);

  it('a builder answering a field its schema lacks, or lacking one it names, fails validation', () => {
    const v = strictValidator('contact.created', 'event');
    const sample = EVENT_CATALOGUE['contact.created'].sample();
    const body = {
      id: 'evt_x',
      event: 'contact.created',
      sequence: 1,
      timestamp: new Date().toISOString(),
      workspace_id: 'ws_x',
      data: sample.data,
    };
    expect(v(body)).toBe(true);
    const contact = sample.data.contact as Record<string, unknown>;
    expect(v({ ...body, data: { contact: { ...contact, nickname: 'Ada' } } })).toBe(false);
    const { email: _email, ...withoutEmail } = contact;
    expect(v({ ...body, data: { contact: withoutEmail } })).toBe(false);
    expect(v({ ...body, data: { contact: { ...contact, status: 'prospect' } } })).toBe(false);
    expect(v({ ...body, sequence: -1 })).toBe(false);
  });
});

describe('subscription filters', () => {
  it("match the event's full record, so pipeline_id filters deal.stage_changed in the record format too", async () => {
    const rc = await receiver();
    try {
      const [main] = await ok('GET', '/v1/pipelines');
      const other = await ok('POST', '/v1/pipelines', {
        name: 'Renewals',
        stages: [{ name: 'Due' }, { name: 'Signed' }],
      });
      await ok('POST', '/v1/webhooks', {
        url: rc.url,
        events: ['deal.stage_changed'],
        payload_format: 'record',
        filters: { pipeline_id: main.id },
      });
      const inMain = await ok('POST', '/v1/deals', {
        title: 'In main',
        pipeline_id: main.id,
        stage_id: main.stages[0].id,
      });
      const inOther = await ok('POST', '/v1/deals', {
        title: 'In other',
        pipeline_id: other.id,
        stage_id: other.stages[0].id,
      });
      await ok('PUT', `/v1/deals/${inOther.id}/stage`, { stage_id: other.stages[1].id });
      await ok('PUT', `/v1/deals/${inMain.id}/stage`, { stage_id: main.stages[1].id });
      await until(async () => {
        await worker.runOnce();
        return rc.hits.length >= 1;
      });
      await worker.runOnce();
      expect(rc.hits.map((h) => [h.json.data.id, h.json.data.pipeline])).toEqual([[inMain.id, main.name]]);
    } finally {
      await rc.close();
    }
  });
});

describe('OpenAPI webhooks section', () => {
  it('describes each delivered event: JSON and form bodies, the signature headers and the 2xx answer', async () => {
    const doc = (await client(app.base)('GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.webhooks)).toEqual([...EMITTED_EVENTS]);
    for (const event of EMITTED_EVENTS) {
      const op = doc.webhooks[event].post;
      const refs = [componentName(event, 'event'), componentName(event, 'record')].map((n) => ({
        $ref: `#/components/schemas/${n}`,
      }));
      expect(op.requestBody.content['application/json'].schema).toEqual({ oneOf: refs });
      expect(
        op.requestBody.content['application/x-www-form-urlencoded'].schema.properties.payload.contentSchema,
      ).toEqual({ oneOf: refs });
      expect(
        op.parameters.filter((p: JsonSchema) => p.in === 'header' && p.required).map((p: JsonSchema) => p.name),
      ).toEqual([
        'X-Service-Signature',
        'X-Service-Event',
        'X-Service-Event-Id',
        'X-Service-Timestamp',
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
      expect(Object.keys(op.responses)).toEqual(['2XX']);
      for (const ref of refs) expect(doc.components.schemas[ref.$ref.split('/').pop()!]).toBeDefined();
    }
  });
});
