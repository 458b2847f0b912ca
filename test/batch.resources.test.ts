// Batches of companies, deals and tasks: upserts by their keys, per-operation answers and events,
// atomic batches, and the same refusals as their single-record routes.
import { describe, expect } from 'vitest';
import { gql } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

let pipelineId: string;
let stages: { id: string }[];

test.beforeAll(async ({ ws }) => {
  const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  pipelineId = pipeline.id;
  stages = pipeline.stages;
});

const typesOf = async (app: { db: { prisma: any } }, id: string) =>
  (
    await app.db.prisma.event.findMany({ where: { entityId: id }, orderBy: { seq: 'asc' }, select: { type: true } })
  ).map((e: { type: string }) => e.type);

describe('companies', () => {
  it('upserts by domain in any of its forms, and by external_id', async ({ app, ws }) => {
    const r = await ws.api('POST', '/v1/companies/batch', {
      operations: [
        { op: 'upsert', upsert_by: 'domain', data: { name: 'Globex', domain: 'globex.example' } },
        { op: 'upsert', upsert_by: 'external_id', data: { name: 'Initech', external_id: 'crm-42' } },
      ],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const [globex, initech] = r.body.data.results.map((x: { id: string }) => x.id);
    const again = await ws.api('POST', '/v1/companies/batch', {
      operations: [
        { op: 'upsert', upsert_by: 'domain', data: { domain: 'https://WWW.Globex.example/about', industry: 'energy' } },
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: 'crm-42', size: 40 } },
        { op: 'create', data: { name: 'Copy', domain: 'globex.example' } },
      ],
    });
    expect(again.status).toBe(207);
    const res = again.body.data.results;
    expect(res.map((x: { status: number }) => x.status)).toEqual([200, 200, 409]);
    expect([res[0].id, res[1].id]).toEqual([globex, initech]);
    expect(res[2].error.details.existing_id).toBe(globex);
    expect((await ws.api('GET', `/v1/companies/${globex}`)).body.data.industry).toBe('energy');
    expect(await typesOf(app, globex)).toEqual(['company.created', 'company.updated']);
  });
});

describe('deals', () => {
  it('creates, updates (a stage move with its event), upserts and deletes', async ({ app, ws }) => {
    const r = await ws.api('POST', '/v1/deals/batch', {
      operations: [
        { op: 'create', data: { title: 'One', pipeline_id: pipelineId, external_id: 'd-1' } },
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: 'd-2', title: 'Two', pipeline_id: pipelineId } },
        { op: 'create', data: { title: 'No pipeline' } },
        { op: 'create', data: { title: 'Bad value', pipeline_id: pipelineId, value: 'lots' } },
      ],
    });
    expect(r.status).toBe(207);
    const res = r.body.data.results;
    expect(res.map((x: { status: number }) => x.status)).toEqual([201, 201, 400, 400]);
    expect(Object.keys(res[2].error.details).join()).toMatch(/pipeline_id/);
    expect(Object.keys(res[3].error.details).join()).toMatch(/value/);
    const [one, two] = [res[0].id, res[1].id];
    const next = await ws.api('POST', '/v1/deals/batch', {
      atomic: true,
      operations: [
        { op: 'update', id: one, data: { stage_id: stages[1].id } },
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: 'd-2', value: 500 } },
        { op: 'delete', id: two },
      ],
    });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(await typesOf(app, one)).toContain('deal.stage_changed');
    expect(await typesOf(app, two)).toEqual(['deal.created', 'deal.updated', 'deal.deleted']);
  });

  it('an atomic batch with a bad stage changes nothing', async ({ ws }) => {
    const made = await ws.api('POST', '/v1/deals', { title: 'Keep', pipeline_id: pipelineId });
    const r = await ws.api('POST', '/v1/deals/batch', {
      atomic: true,
      operations: [
        { op: 'update', id: made.body.data.id, data: { title: 'Changed' } },
        { op: 'update', id: made.body.data.id, data: { stage_id: 'stg_nowhere' } },
      ],
    });
    expect(r.status).toBe(207);
    expect(r.body.data.results[0].status).toBe(424);
    expect((await ws.api('GET', `/v1/deals/${made.body.data.id}`)).body.data.title).toBe('Keep');
  });
});

describe('tasks', () => {
  it('upserts by external_id and answers the related-record rule per operation', async ({ ws }) => {
    const r = await ws.api('POST', '/v1/tasks/batch', {
      operations: [
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: 't-1', title: 'Call' } },
        { op: 'create', data: { title: 'Half', related_to_type: 'contact' } },
        { op: 'upsert', upsert_by: 'external_id', data: { external_id: 't-1', priority: 'urgent' } },
      ],
    });
    expect(r.status).toBe(207);
    const res = r.body.data.results;
    expect(res.map((x: { status: number }) => x.status)).toEqual([201, 400, 200]);
    expect(res[2].id).toBe(res[0].id);
    expect((await ws.api('GET', `/v1/tasks/${res[0].id}`)).body.data.priority).toBe('urgent');
  });

  it('GraphQL batchTasks and a key without tasks:write', async ({ app, ws }) => {
    const r = await gql(
      app.base,
      ws.key,
      `mutation { batchTasks(input: { dry_run: true, operations: [{ op: create, data: { title: "Dry" } }] }) {
        applied dry_run results { status id } } }`,
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.batchTasks).toEqual({ applied: 0, dry_run: true, results: [{ status: 201, id: null }] });
    const reader = await ws.addKey({ scope: 'custom', permissions: ['tasks:read'] });
    expect((await reader.api('POST', '/v1/tasks/batch', { operations: [{ op: 'delete', id: 'x' }] })).status).toBe(403);
  });
});
