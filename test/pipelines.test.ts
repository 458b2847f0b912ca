import { describe, expect, it } from 'vitest';
import { gql, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let readOnly: Client;
let dealsOnly: Client;
let pipelinesRead: Client;

test.beforeAll(async ({ app: started, ws: main, other: neighbour }) => {
  app = started;
  ws = main;
  other = neighbour;
  readOnly = (await ws.addKey({ scope: 'read_only' })).api;
  dealsOnly = (await ws.addKey({ scope: 'custom', permissions: ['deals:read', 'deals:write'] })).api;
  pipelinesRead = (await ws.addKey({ scope: 'custom', permissions: ['pipelines:read'] })).api;
});

const newPipeline = async (api: Client = ws.api, body: Record<string, unknown> = {}) => {
  const r = await api('POST', '/v1/pipelines', {
    name: 'Renewals',
    stages: [
      { name: 'Due', probability: 40 },
      { name: 'Signed', probability: 100 },
    ],
    ...body,
  });
  expect(r.status).toBe(201);
  return r.body.data;
};
const stagesOf = async (pipelineId: string) => (await ws.api('GET', `/v1/pipelines/${pipelineId}`)).body.data.stages;
const names = (stages: { name: string }[]) => stages.map((s) => s.name);

describe('list and read', () => {
  it('a new workspace has one default pipeline with ordered stages', async () => {
    const fresh = await app.workspace();
    const r = await fresh.api('GET', '/v1/pipelines');
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ total: 1, limit: 25, has_more: false, next_cursor: null });
    const [p] = r.body.data;
    expect(p).toMatchObject({ name: 'Sales Pipeline', is_default: true });
    expect(
      p.stages.map((s: { name: string; position: number; probability: number }) => [s.name, s.position, s.probability]),
    ).toEqual([
      ['Lead', 1, 10],
      ['Qualified', 2, 25],
      ['Proposal', 3, 50],
      ['Negotiation', 4, 75],
      ['Closed', 5, 100],
    ]);
    expect(Object.keys(p).sort()).toEqual([
      'created_at',
      'id',
      'is_default',
      'name',
      'stages',
      'updated_at',
      'version',
    ]);
  });

  it('pages with a cursor and rejects a bad sort or limit', async () => {
    const fresh = await app.workspace();
    await newPipeline(fresh.api, { name: 'B' });
    await newPipeline(fresh.api, { name: 'A' });
    const first = await fresh.api('GET', '/v1/pipelines?limit=2');
    expect(first.body.data.map((p: { name: string }) => p.name)).toEqual(['Sales Pipeline', 'B']);
    expect(first.body.meta.has_more).toBe(true);
    const second = await fresh.api('GET', `/v1/pipelines?limit=2&cursor=${first.body.meta.next_cursor}`);
    expect(second.body.data.map((p: { name: string }) => p.name)).toEqual(['A']);
    expect((await fresh.api('GET', '/v1/pipelines?sort=name')).body.data.map((p: { name: string }) => p.name)).toEqual([
      'A',
      'B',
      'Sales Pipeline',
    ]);
    expect((await fresh.api('GET', '/v1/pipelines?sort=position')).status).toBe(400);
    expect((await fresh.api('GET', '/v1/pipelines?limit=0')).status).toBe(400);
  });

  it('gets one; 404 for unknown ids and other workspaces', async () => {
    const p = await newPipeline();
    const r = await ws.api('GET', `/v1/pipelines/${p.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(p);
    expect((await ws.api('GET', '/v1/pipelines/pipe_missing')).body.error.code).toBe('not_found');
    expect((await other.api('GET', `/v1/pipelines/${p.id}`)).status).toBe(404);
    expect((await other.api('GET', `/v1/pipelines/${p.id}/stages`)).status).toBe(404);
  });
});

describe('create, update, delete pipelines', () => {
  it('creates with the given stages (positions from 1), or with the default stages', async () => {
    const p = await newPipeline();
    expect(p).toMatchObject({ name: 'Renewals', is_default: false });
    expect(
      p.stages.map((s: { name: string; position: number; probability: number }) => [s.name, s.position, s.probability]),
    ).toEqual([
      ['Due', 1, 40],
      ['Signed', 2, 100],
    ]);
    const plain = (await ws.api('POST', '/v1/pipelines', { name: 'Plain' })).body.data;
    expect(names(plain.stages)).toEqual(['Lead', 'Qualified', 'Proposal', 'Negotiation', 'Closed']);
  });

  it.each([
    [{}, 'name'],
    [{ name: '  ' }, 'name'],
    [{ name: 'x'.repeat(256) }, 'name'],
    [{ name: 'x', stages: [] }, 'stages'],
    [{ name: 'x', stages: [{ name: 'a', probability: 140 }] }, 'stages.0.probability'],
    [{ name: 'x', stages: [{ name: 'a', probability: 12.5 }] }, 'stages.0.probability'],
    [{ name: 'x', stages: [{ probability: 10 }] }, 'stages.0.name'],
    [{ name: 'x', is_default: 'yes' }, 'is_default'],
  ])('rejects %j with 400 naming %s', async (body, field) => {
    const r = await ws.api('POST', '/v1/pipelines', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details[field]).toBeDefined();
  });

  it('renames; is_default moves the default; unsetting the default is 422', async () => {
    const fresh = await app.workspace();
    const original = (await fresh.api('GET', '/v1/pipelines')).body.data[0];
    const p = await newPipeline(fresh.api);
    const renamed = await fresh.api('PUT', `/v1/pipelines/${p.id}`, { name: 'Upsell' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: p.id, name: 'Upsell', is_default: false, stages: p.stages });
    expect((await fresh.api('PUT', `/v1/pipelines/${p.id}`, { is_default: true })).body.data.is_default).toBe(true);
    const all = (await fresh.api('GET', '/v1/pipelines')).body.data;
    expect(all.filter((x: { is_default: boolean }) => x.is_default).map((x: { id: string }) => x.id)).toEqual([p.id]);
    const unset = await fresh.api('PUT', `/v1/pipelines/${p.id}`, { is_default: false });
    expect(unset.status).toBe(422);
    expect(unset.body.error.code).toBe('unprocessable_entity');
    expect((await fresh.api('PUT', `/v1/pipelines/${original.id}`, { is_default: false })).status).toBe(200);
    expect((await fresh.api('PUT', `/v1/pipelines/${p.id}`, { name: '' })).status).toBe(400);
    expect((await other.api('PUT', `/v1/pipelines/${p.id}`, { name: 'x' })).status).toBe(404);
  });

  it('creating with is_default: true makes it the only default', async () => {
    const fresh = await app.workspace();
    const p = await newPipeline(fresh.api, { is_default: true });
    expect(p.is_default).toBe(true);
    const defaults = (await fresh.api('GET', '/v1/pipelines')).body.data.filter(
      (x: { is_default: boolean }) => x.is_default,
    );
    expect(defaults.map((x: { id: string }) => x.id)).toEqual([p.id]);
  });

  it('delete: 409 while it holds deals or is the only pipeline; the default passes to the oldest other', async () => {
    const fresh = await app.workspace();
    const original = (await fresh.api('GET', '/v1/pipelines')).body.data[0];
    const only = await fresh.api('DELETE', `/v1/pipelines/${original.id}`);
    expect(only.status).toBe(409);
    expect(only.body.error.code).toBe('conflict');

    const p = await newPipeline(fresh.api);
    const deal = (await fresh.api('POST', '/v1/deals', { title: 'Held', pipeline_id: p.id })).body.data;
    expect((await fresh.api('DELETE', `/v1/pipelines/${p.id}`)).status).toBe(409);
    await fresh.api('DELETE', `/v1/deals/${deal.id}`);

    const r = await fresh.api('DELETE', `/v1/pipelines/${original.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: original.id, deleted: true });
    expect((await fresh.api('GET', `/v1/pipelines/${p.id}`)).body.data.is_default).toBe(true);
    expect((await fresh.api('GET', `/v1/pipelines/${original.id}`)).status).toBe(404);
    expect(await app.db.prisma.stage.count({ where: { pipelineId: original.id } })).toBe(0);
    expect((await other.api('DELETE', `/v1/pipelines/${p.id}`)).status).toBe(404);
  });
});

describe('stages', () => {
  it('lists stages with deal_count and total_value from the deals in each', async () => {
    const p = await newPipeline();
    const [due, signed] = p.stages;
    for (const value of [100, 250.5]) await ws.api('POST', '/v1/deals', { title: 'd', pipeline_id: p.id, value });
    await ws.api('POST', '/v1/deals', { title: 'no value', pipeline_id: p.id });
    await ws.api('POST', '/v1/deals', { title: 'late', pipeline_id: p.id, stage_id: signed.id, value: 1000 });
    const r = await ws.api('GET', `/v1/pipelines/${p.id}/stages`);
    expect(r.status).toBe(200);
    expect(r.body.meta).toMatchObject({ total: 2, has_more: false });
    expect(
      r.body.data.map((s: Record<string, unknown>) => [s.id, s.position, s.probability, s.deal_count, s.total_value]),
    ).toEqual([
      [due.id, 1, 40, 3, 350.5],
      [signed.id, 2, 100, 1, 1000],
    ]);
  });

  it('creates a stage at the end, or at a position that shifts the others', async () => {
    const p = await newPipeline();
    const last = await ws.api('POST', `/v1/pipelines/${p.id}/stages`, { name: 'Paid' });
    expect(last.status).toBe(201);
    expect(last.body.data).toMatchObject({ pipeline_id: p.id, name: 'Paid', position: 3, probability: 0 });
    const first = await ws.api('POST', `/v1/pipelines/${p.id}/stages`, { name: 'Draft', probability: 5, position: 1 });
    expect(first.body.data.position).toBe(1);
    const stages = await stagesOf(p.id);
    expect(stages.map((s: { name: string; position: number }) => `${s.position}:${s.name}`)).toEqual([
      '1:Draft',
      '2:Due',
      '3:Signed',
      '4:Paid',
    ]);
  });

  it('stage create errors: 400 bad body or position, 404 unknown pipeline', async () => {
    const p = await newPipeline();
    for (const body of [
      {},
      { name: 'x', position: 0 },
      { name: 'x', position: 4 },
      { name: 'x', probability: -1 },
      { name: 'x', position: '1' },
    ]) {
      const r = await ws.api('POST', `/v1/pipelines/${p.id}/stages`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await other.api('POST', `/v1/pipelines/${p.id}/stages`, { name: 'x' })).status).toBe(404);
  });

  it('updates name and probability, and reorders by position', async () => {
    const p = await newPipeline();
    const c = (await ws.api('POST', `/v1/pipelines/${p.id}/stages`, { name: 'Paid' })).body.data;
    const r = await ws.api('PUT', `/v1/pipelines/${p.id}/stages/${c.id}`, {
      name: 'Invoiced',
      probability: 90,
      position: 1,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ id: c.id, name: 'Invoiced', probability: 90, position: 1 });
    expect(names(await stagesOf(p.id))).toEqual(['Invoiced', 'Due', 'Signed']);
    await ws.api('PUT', `/v1/pipelines/${p.id}/stages/${c.id}`, { position: 3 });
    expect((await stagesOf(p.id)).map((s: { name: string; position: number }) => `${s.position}:${s.name}`)).toEqual([
      '1:Due',
      '2:Signed',
      '3:Invoiced',
    ]);
    expect((await ws.api('PUT', `/v1/pipelines/${p.id}/stages/${c.id}`, { position: 4 })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/pipelines/${p.id}/stages/${c.id}`, { probability: 101 })).status).toBe(400);
  });

  it('a stage is addressed through its own pipeline only: 404 otherwise', async () => {
    const p = await newPipeline();
    const q = await newPipeline();
    const stage = p.stages[0];
    expect((await ws.api('PUT', `/v1/pipelines/${q.id}/stages/${stage.id}`, { name: 'x' })).status).toBe(404);
    expect((await ws.api('DELETE', `/v1/pipelines/${q.id}/stages/${stage.id}`)).status).toBe(404);
    expect((await ws.api('PUT', `/v1/pipelines/${p.id}/stages/stg_missing`, { name: 'x' })).status).toBe(404);
    expect((await other.api('PUT', `/v1/pipelines/${p.id}/stages/${stage.id}`, { name: 'x' })).status).toBe(404);
  });

  it('delete: 409 while it holds deals or is the last stage; later stages move up', async () => {
    const p = await newPipeline();
    const [due, signed] = p.stages;
    const extra = (await ws.api('POST', `/v1/pipelines/${p.id}/stages`, { name: 'Extra', position: 1 })).body.data;
    const deal = (await ws.api('POST', '/v1/deals', { title: 'd', pipeline_id: p.id, stage_id: due.id })).body.data;
    const held = await ws.api('DELETE', `/v1/pipelines/${p.id}/stages/${due.id}`);
    expect(held.status).toBe(409);
    expect(held.body.error.code).toBe('conflict');

    const r = await ws.api('DELETE', `/v1/pipelines/${p.id}/stages/${extra.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: extra.id, deleted: true });
    expect((await stagesOf(p.id)).map((s: { name: string; position: number }) => `${s.position}:${s.name}`)).toEqual([
      '1:Due',
      '2:Signed',
    ]);

    await ws.api('DELETE', `/v1/deals/${deal.id}`);
    expect((await ws.api('DELETE', `/v1/pipelines/${p.id}/stages/${due.id}`)).status).toBe(200);
    expect((await ws.api('DELETE', `/v1/pipelines/${p.id}/stages/${signed.id}`)).status).toBe(409);
  });
});

describe('scopes', () => {
  it('read-only keys read but do not write: 403', async () => {
    const p = await newPipeline();
    expect((await readOnly('GET', '/v1/pipelines')).status).toBe(200);
    expect((await readOnly('GET', `/v1/pipelines/${p.id}/stages`)).status).toBe(200);
    const calls: [string, string, unknown?][] = [
      ['POST', '/v1/pipelines', { name: 'x' }],
      ['PUT', `/v1/pipelines/${p.id}`, { name: 'x' }],
      ['DELETE', `/v1/pipelines/${p.id}`],
      ['POST', `/v1/pipelines/${p.id}/stages`, { name: 'x' }],
      ['PUT', `/v1/pipelines/${p.id}/stages/${p.stages[0].id}`, { name: 'x' }],
      ['DELETE', `/v1/pipelines/${p.id}/stages/${p.stages[0].id}`],
    ];
    for (const [method, path, body] of calls) {
      const r = await readOnly(method, path, body);
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
  });

  it('custom keys need pipelines permissions', async () => {
    const p = await newPipeline();
    expect((await dealsOnly('GET', '/v1/pipelines')).status).toBe(403);
    expect((await dealsOnly('GET', `/v1/pipelines/${p.id}`)).status).toBe(403);
    expect((await dealsOnly('GET', `/v1/pipelines/${p.id}/stages`)).status).toBe(403);
    expect((await pipelinesRead('GET', `/v1/pipelines/${p.id}/stages`)).status).toBe(200);
    expect((await pipelinesRead('POST', '/v1/pipelines', { name: 'x' })).status).toBe(403);
  });
});

describe('GraphQL', () => {
  it('lists pipelines with stages and stage totals, and runs the mutations', async () => {
    const created = await gql(
      app.base,
      ws.key,
      'mutation($input: PipelineCreateInput!) { createPipeline(input: $input) { id name stages { name position } } }',
      {
        input: { name: 'GQL', stages: [{ name: 'One', probability: 10 }] },
      },
    );
    const p = created.data.createPipeline;
    expect(p.stages).toEqual([{ name: 'One', position: 1 }]);
    const stage = await gql(
      app.base,
      ws.key,
      'mutation($p: ID!) { createStage(pipelineId: $p, input: { name: "Zero", position: 1 }) { id position } }',
      { p: p.id },
    );
    expect(stage.data.createStage.position).toBe(1);
    const listed = await gql(
      app.base,
      ws.key,
      '{ pipelines(limit: 100) { total nodes { id is_default stages { name } } } }',
    );
    expect(listed.data.pipelines.nodes.find((x: { id: string }) => x.id === p.id).stages).toEqual([
      { name: 'Zero' },
      { name: 'One' },
    ]);
    const totals = await gql(
      app.base,
      ws.key,
      'query($p: ID!) { pipelineStages(pipelineId: $p) { nodes { name deal_count total_value } } }',
      { p: p.id },
    );
    expect(totals.data.pipelineStages.nodes).toEqual([
      { name: 'Zero', deal_count: 0, total_value: 0 },
      { name: 'One', deal_count: 0, total_value: 0 },
    ]);
    const renamed = await gql(
      app.base,
      ws.key,
      'mutation($id: ID!) { updatePipeline(id: $id, input: { name: "GQL 2" }) { name } }',
      { id: p.id },
    );
    expect(renamed.data.updatePipeline.name).toBe('GQL 2');
    const removed = await gql(
      app.base,
      ws.key,
      'mutation($p: ID!, $s: ID!) { deleteStage(pipelineId: $p, id: $s) { deleted } }',
      { p: p.id, s: stage.data.createStage.id },
    );
    expect(removed.data.deleteStage.deleted).toBe(true);
    const deleted = await gql(app.base, ws.key, 'mutation($id: ID!) { deletePipeline(id: $id) { id deleted } }', {
      id: p.id,
    });
    expect(deleted.data.deletePipeline).toEqual({ id: p.id, deleted: true });
  });

  it('reports errors with their codes', async () => {
    const r = await gql(app.base, ws.key, '{ pipeline(id: "pipe_missing") { id } }');
    expect(r.errors?.[0].extensions?.code).toBe('not_found');
    const bad = await gql(app.base, ws.key, 'mutation { createPipeline(input: { name: "" }) { id } }');
    expect(bad.errors?.[0].extensions?.code).toBe('validation_error');
  });
});
