// POST /v1/contacts/batch and batchContacts: every operation answered in order, atomic and dry runs,
// upserts by email and external_id, the normal events per applied operation, and bad batches.
import { describe, expect } from 'vitest';
import { Authenticator } from '../src/auth/authenticate.ts';
import { PlanOutdated } from '../src/schema/batch/batch.run.ts';
import { planContacts } from '../src/schema/contact/contact.batch-plan.ts';
import type { Context } from '../src/schema/context.ts';
import { gql, uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

async function eventsOf(app: { db: { prisma: any } }, ids: string[]) {
  const rows = await app.db.prisma.event.findMany({
    where: { entityId: { in: ids } },
    orderBy: { seq: 'asc' },
    select: { type: true, entityId: true, sequence: true },
  });
  return rows as { type: string; entityId: string; sequence: number }[];
}

describe('POST /v1/contacts/batch', () => {
  it('applies create, update, upsert and delete in order, each answered, with their events', async ({ app, ws }) => {
    const existing = (await ws.api('POST', '/v1/contacts', { first_name: 'Old', email: uniqueEmail('old') })).body.data;
    const doomed = (await ws.api('POST', '/v1/contacts', { first_name: 'Doomed', email: uniqueEmail('doomed') })).body
      .data;
    const fresh = uniqueEmail('fresh');
    const r = await ws.api('POST', '/v1/contacts/batch', {
      operations: [
        { op: 'create', data: { first_name: 'New', email: fresh, external_id: `ext-${fresh}` } },
        { op: 'update', id: existing.id, data: { status: 'customer' } },
        { op: 'upsert', upsert_by: 'email', data: { email: existing.email.toUpperCase(), job_title: 'CTO' } },
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: `ext-${fresh}`, first_name: 'Renamed' } },
        { op: 'upsert', upsert_by: 'email', data: { email: uniqueEmail('upserted'), first_name: 'Made' } },
        { op: 'delete', id: doomed.id },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const { results, applied, failed } = r.body.data;
    expect([applied, failed]).toEqual([6, 0]);
    expect(results.map((x: { status: number }) => x.status)).toEqual([201, 200, 200, 200, 201, 200]);
    expect(results.map((x: { index: number }) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    const created = results[0].id;
    expect(results[3].id).toBe(created);
    expect(results[2].id).toBe(existing.id);

    const after = (await ws.api('GET', `/v1/contacts/${existing.id}`)).body.data;
    expect([after.status, after.job_title]).toEqual(['customer', 'CTO']);
    expect((await ws.api('GET', `/v1/contacts/${created}`)).body.data.first_name).toBe('Renamed');
    expect((await ws.api('GET', `/v1/contacts/${doomed.id}`)).status).toBe(404);

    const events = await eventsOf(app, [existing.id, created, doomed.id]);
    expect(events.filter((e) => e.entityId === created).map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
    ]);
    expect(events.filter((e) => e.entityId === doomed.id).map((e) => e.type)).toContain('contact.deleted');
    expect(events.filter((e) => e.entityId === existing.id).map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.status_changed',
      'contact.updated',
    ]);
  });

  it('answers 207 with each failure in the standard shape, applying the rest', async ({ ws }) => {
    const taken = (await ws.api('POST', '/v1/contacts', { first_name: 'Taken', email: uniqueEmail('taken') })).body
      .data;
    const ok = uniqueEmail('ok');
    const r = await ws.api('POST', '/v1/contacts/batch', {
      operations: [
        { op: 'create', data: { first_name: 'Dup', email: taken.email } },
        { op: 'create', data: { first_name: 'Fine', email: ok } },
        { op: 'update', id: 'con_missing', data: { first_name: 'x' } },
        { op: 'create', data: { email: uniqueEmail('nameless') } },
        { op: 'upsert', data: { email: ok } },
        { op: 'create', data: { first_name: 'Bad', email: uniqueEmail('bad'), status: 'vip' } },
        { op: 'frobnicate' },
        { op: 'delete' },
        { op: 'create', data: { first_name: 'Again', email: ok } },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(207);
    const res = r.body.data.results;
    expect(res.map((x: { status: number }) => x.status)).toEqual([409, 201, 404, 400, 400, 400, 400, 400, 409]);
    expect(res[0].error.code).toBe('conflict');
    expect(res[0].error.details.existing_id).toBe(taken.id);
    expect(res[8].error.details.existing_id).toBe(res[1].id);
    expect(res[3].error.details['data.first_name']).toBeDefined();
    expect(res[4].error.details.upsert_by).toBeDefined();
    expect(Object.keys(res[5].error.details).join()).toMatch(/status/);
    expect(Object.keys(res[6].error.details).join()).toMatch(/op/);
    expect(res[7].error.details.id).toBeDefined();
    expect([r.body.data.applied, r.body.data.failed]).toEqual([1, 8]);
  });

  it('atomic: one failure leaves everything as it was', async ({ app, ws }) => {
    const email = uniqueEmail('atomic');
    const r = await ws.api('POST', '/v1/contacts/batch', {
      atomic: true,
      operations: [
        { op: 'create', data: { first_name: 'A', email } },
        { op: 'update', id: 'con_missing', data: { first_name: 'x' } },
        { op: 'create', data: { first_name: 'C', email: uniqueEmail('atomic-c') } },
      ],
    });
    expect(r.status).toBe(207);
    expect(r.body.data.results.map((x: { status: number }) => x.status)).toEqual([424, 404, 424]);
    expect(r.body.data.results[0].error.code).toBe('failed_dependency');
    expect(r.body.data.results[0].id).toBeNull();
    expect(r.body.data.applied).toBe(0);
    const found = await ws.api('POST', '/v1/contacts/query', { where: { email } });
    expect(found.body.data).toEqual([]);
    expect(await app.db.prisma.event.count({ where: { data: { path: ['contact', 'email'], equals: email } } })).toBe(0);
  });

  it('atomic: a conflict with a record the batch made and rolled back names that operation, not the record', async ({
    ws,
  }) => {
    const email = uniqueEmail('twice');
    const r = await ws.api('POST', '/v1/contacts/batch', {
      atomic: true,
      operations: [
        { op: 'create', data: { first_name: 'A', email } },
        { op: 'create', data: { first_name: 'B', email: email.toUpperCase() } },
      ],
    });
    expect(r.status).toBe(207);
    const failed = r.body.data.results[1];
    expect(failed.status).toBe(409);
    expect(failed.error.details.existing_id).toBeUndefined();
    expect(failed.error.message).toMatch(/operation 0 of this batch/);
  });

  it('dry_run reports what would happen and writes nothing', async ({ app, ws }) => {
    const existing = (await ws.api('POST', '/v1/contacts', { first_name: 'Dry', email: uniqueEmail('dry') })).body.data;
    const eventsBefore = await app.db.prisma.event.count({ where: { workspaceId: ws.id } });
    const email = uniqueEmail('dry-new');
    const r = await ws.api('POST', '/v1/contacts/batch', {
      dry_run: true,
      operations: [
        { op: 'create', data: { first_name: 'N', email } },
        { op: 'update', id: existing.id, data: { first_name: 'Changed' } },
        { op: 'create', data: { first_name: 'Dup', email: existing.email } },
      ],
    });
    expect(r.status).toBe(207);
    expect(r.body.data.dry_run).toBe(true);
    expect(r.body.data.results.map((x: { status: number }) => x.status)).toEqual([201, 200, 409]);
    expect(r.body.data.results[0].id).toBeNull();
    expect((await ws.api('GET', `/v1/contacts/${existing.id}`)).body.data.first_name).toBe('Dry');
    expect((await ws.api('POST', '/v1/contacts/query', { where: { email } })).body.data).toEqual([]);
    expect(await app.db.prisma.event.count({ where: { workspaceId: ws.id } })).toBe(eventsBefore);
  });

  it('refuses a batch of 1,001 operations, an empty one and a body that is no batch', async ({ ws }) => {
    const op = { op: 'delete', id: 'con_x' };
    const many = await ws.api('POST', '/v1/contacts/batch', { operations: Array.from({ length: 1001 }, () => op) });
    expect(many.status).toBe(400);
    expect(JSON.stringify(many.body.error.details)).toMatch(/1000/);
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: [] })).status).toBe(400);
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: 'all' })).status).toBe(400);
    expect((await ws.api('POST', '/v1/contacts/batch', {})).status).toBe(400);
  });

  it('1,000 upserts in one request, each with its event', async ({ app, ws }) => {
    const tag = uniqueEmail('bulk').split('@')[0];
    const operations = Array.from({ length: 1000 }, (_, i) => ({
      op: 'upsert',
      upsert_by: 'external_id',
      data: { external_id: `${tag}-${i}`, first_name: `P${i}`, email: `${tag}-${i}@example.com` },
    }));
    const first = await ws.api('POST', '/v1/contacts/batch', { operations });
    expect(first.status, JSON.stringify(first.body).slice(0, 500)).toBe(201);
    expect(first.body.data.applied).toBe(1000);
    const again = await ws.api('POST', '/v1/contacts/batch', {
      operations: operations.map((o) => ({ ...o, data: { ...o.data, job_title: 'Again' } })),
    });
    expect(again.status).toBe(200);
    expect(again.body.data.results.every((x: { status: number }) => x.status === 200)).toBe(true);
    const ids = first.body.data.results.map((x: { id: string }) => x.id);
    expect(again.body.data.results.map((x: { id: string }) => x.id)).toEqual(ids);
    const events = await eventsOf(app, ids);
    expect(events.filter((e) => e.type === 'contact.created')).toHaveLength(1000);
    expect(events.filter((e) => e.type === 'contact.updated')).toHaveLength(1000);
  }, 120_000);

  it('answers and records the same whether the batch is planned at once or run one by one', async ({ app, ws }) => {
    // The same operations on two sets of records; the second batch ends with an operation on a
    // record it already names, which makes it run one operation at a time.
    const runOn = async (label: string, forceOneByOne: boolean) => {
      const mk = async (name: string, extra = {}) =>
        (await ws.api('POST', '/v1/contacts', { first_name: name, email: uniqueEmail(`${label}-${name}`), ...extra }))
          .body.data;
      const a = await mk('a', { tags: ['x'], custom_fields: {} });
      const b = await mk('b');
      const c = await mk('c');
      const taken = await mk('taken');
      const operations: Record<string, unknown>[] = [
        { op: 'update', id: a.id, data: { status: 'customer', tags: ['y'] } },
        { op: 'update', id: b.id, data: { first_name: 'b' } },
        { op: 'upsert', upsert_by: 'email', data: { email: c.email, job_title: 'Boss' } },
        { op: 'create', data: { first_name: 'n', email: taken.email } },
        { op: 'create', data: { first_name: 'n', email: uniqueEmail(`${label}-new`), assigned_to: 'usr_nobody' } },
        { op: 'create', data: { first_name: 'n', email: uniqueEmail(`${label}-new2`), custom_fields: { nope: 1 } } },
        { op: 'delete', id: 'con_missing' },
        { op: 'delete', id: taken.id },
      ];
      if (forceOneByOne) operations.push({ op: 'update', id: a.id, data: {} });
      const r = await ws.api('POST', '/v1/contacts/batch', { operations });
      expect(r.status).toBe(207);
      const results = r.body.data.results.slice(0, 8);
      const events = await eventsOf(app, [a.id, b.id, c.id, taken.id]);
      const byRecord = [a, b, c, taken].map((x) =>
        events.filter((e) => e.entityId === x.id).map((e) => `${e.type}#${e.sequence}`),
      );
      return {
        answers: results.map((x: { status: number; error: { code: string } | null }) => [x.status, x.error?.code]),
        byRecord,
        warnings: r.body.meta.warnings,
      };
    };
    const planned = await runOn('planned', false);
    const oneByOne = await runOn('onebyone', true);
    expect(planned.answers).toEqual(oneByOne.answers);
    expect(planned.byRecord).toEqual(oneByOne.byRecord);
    expect(planned.answers.map((a: unknown[]) => a[0])).toEqual([200, 200, 200, 409, 422, 201, 404, 200]);
    expect(planned.warnings?.join(' ')).toMatch(/nope/);
  });

  it("a plan's write undoes itself when another writer changed a record after the plan read it", async ({
    app,
    ws,
  }) => {
    const mk = async (name: string) =>
      (await ws.api('POST', '/v1/contacts', { first_name: name, email: uniqueEmail(name) })).body.data;
    const [kept, changed, doomed] = [await mk('kept'), await mk('changed'), await mk('doomed')];
    const ctx: Context = {
      prisma: app.db.prisma,
      sql: app.db.sql,
      caller: await new Authenticator(app.db.prisma).authenticate(`Bearer ${ws.key}`),
      requestId: 'plan',
      warnings: [],
      bus: app.bus,
      webhooks: app.webhooks,
      credentials: { keysChanged: () => {}, workspaceChanged: () => {} },
    };
    const operations = [
      { op: 'create' as const, data: { first_name: 'new', email: uniqueEmail('new') } },
      { op: 'update' as const, id: kept.id, data: { job_title: 'Planned' } },
      { op: 'update' as const, id: changed.id, data: { job_title: 'Planned' } },
      { op: 'delete' as const, id: doomed.id },
    ];
    const plan = await planContacts(ctx, operations);
    expect(plan).not.toBeNull();
    // Between the read and the write: another writer.
    expect((await ws.api('PUT', `/v1/contacts/${changed.id}`, { job_title: 'Theirs' })).status).toBe(200);
    const eventsBefore = await app.db.prisma.event.count({ where: { workspaceId: ws.id } });
    await expect(app.db.sql.transaction((q) => plan!.write(q))).rejects.toBeInstanceOf(PlanOutdated);
    // Nothing of the plan stayed: no new contact, no update, no delete, no event.
    expect(await app.db.prisma.contact.count({ where: { workspaceId: ws.id, firstName: 'new' } })).toBe(0);
    expect((await ws.api('GET', `/v1/contacts/${kept.id}`)).body.data.job_title).toBeNull();
    expect((await ws.api('GET', `/v1/contacts/${changed.id}`)).body.data.job_title).toBe('Theirs');
    expect((await ws.api('GET', `/v1/contacts/${doomed.id}`)).status).toBe(200);
    expect(await app.db.prisma.event.count({ where: { workspaceId: ws.id } })).toBe(eventsBefore);
    // Sent again, the batch plans from what the records hold now, and applies.
    const r = await ws.api('POST', '/v1/contacts/batch', { operations });
    expect(r.body.data.results.map((x: { status: number }) => x.status)).toEqual([201, 200, 200, 200]);
  });

  it('needs contacts:write', async ({ ws }) => {
    const reader = await ws.addKey({ scope: 'read_only' });
    const r = await reader.api('POST', '/v1/contacts/batch', { operations: [{ op: 'delete', id: 'x' }] });
    expect(r.status).toBe(403);
  });
});

describe('GraphQL batchContacts', () => {
  it('takes the same operations, typed', async ({ app, ws }) => {
    const email = uniqueEmail('gql-batch');
    const r = await gql(
      app.base,
      ws.key,
      `mutation($input: ContactBatchInput!) {
        batchContacts(input: $input) { applied failed results { index op status id error { code details } } }
      }`,
      {
        input: {
          operations: [
            { op: 'create', data: { first_name: 'G', email } },
            { op: 'upsert', upsert_by: 'email', data: { email, last_name: 'Q' } },
            { op: 'delete' },
          ],
        },
      },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.batchContacts.results.map((x: { status: number }) => x.status)).toEqual([201, 200, 400]);
    expect(r.data.batchContacts.results[2].error.code).toBe('validation_error');
  });
});
