// external_id on contacts, deals, tasks and activities: settable on create and update, trimmed,
// cleared with null, answered and carried by events, filterable, unique per workspace (409 naming
// the record that holds it), free to reuse in another workspace.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

let n = 0;
const ext = (name: string) => `${name}-${Date.now().toString(36)}-${++n}`;

/** A body that creates one record of each kind, the pipeline a deal needs made once per workspace. */
const pipelines = new Map<string, string>();
async function bodyFor(ws: TestWorkspace, resource: string, extra: Record<string, unknown>) {
  switch (resource) {
    case 'contacts':
      return { first_name: 'Ext', email: uniqueEmail('ext'), ...extra };
    case 'deals': {
      let pipelineId = pipelines.get(ws.id);
      if (!pipelineId) {
        pipelineId = (await ws.api('POST', '/v1/pipelines', { name: 'Ext' })).body.data.id as string;
        pipelines.set(ws.id, pipelineId);
      }
      return { title: 'Ext deal', pipeline_id: pipelineId, ...extra };
    }
    case 'tasks':
      return { title: 'Ext task', ...extra };
    default:
      return { type: 'call', ...extra };
  }
}

async function create(ws: TestWorkspace, resource: string, extra: Record<string, unknown>) {
  return ws.api('POST', `/v1/${resource}`, await bodyFor(ws, resource, extra));
}

describe.each(['contacts', 'deals', 'tasks', 'activities'])('%s', (resource) => {
  it('is set on create (trimmed), answered, and filterable', async ({ ws }) => {
    const id = ext(resource);
    const r = await create(ws, resource, { external_id: `  ${id} ` });
    expect(r.status).toBe(201);
    expect(r.body.data.external_id).toBe(id);
    const none = await create(ws, resource, {});
    expect(none.body.data.external_id).toBeNull();
    const listed = await ws.api('GET', `/v1/${resource}?external_id=${encodeURIComponent(id)}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([r.body.data.id]);
    const got = await ws.api('GET', `/v1/${resource}/${r.body.data.id}`);
    expect(got.body.data.external_id).toBe(id);
  });

  it('a duplicate in the workspace is a 409 naming the record that holds it', async ({ ws }) => {
    const id = ext(resource);
    const first = await create(ws, resource, { external_id: id });
    expect(first.status).toBe(201);
    const second = await create(ws, resource, { external_id: id });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('conflict');
    expect(second.body.error.details).toEqual({ external_id: ['is already taken'], existing_id: first.body.data.id });
  });

  it('the same external_id in another workspace is fine', async ({ ws, other }) => {
    const id = ext(resource);
    expect((await create(ws, resource, { external_id: id })).status).toBe(201);
    const there = await create(other, resource, { external_id: id });
    expect(there.status).toBe(201);
    // The filter sees only the caller's workspace.
    const listed = await other.api('GET', `/v1/${resource}?external_id=${encodeURIComponent(id)}`);
    expect(listed.body.data.map((x: { id: string }) => x.id)).toEqual([there.body.data.id]);
  });

  it('is refused when empty or longer than 255 characters', async ({ ws }) => {
    for (const bad of ['   ', 'x'.repeat(256)]) {
      const r = await create(ws, resource, { external_id: bad });
      expect(r.status).toBe(400);
      expect(r.body.error.details.external_id).toBeDefined();
    }
  });
});

describe.each(['contacts', 'deals', 'tasks'])('%s updates', (resource) => {
  it('set, change, clear with null; a taken one is a 409 with existing_id and changes nothing', async ({ ws }) => {
    const holder = await create(ws, resource, { external_id: ext(resource) });
    const r = await create(ws, resource, {});
    const path = `/v1/${resource}/${r.body.data.id}`;
    const id = ext(resource);
    const set = await ws.api('PUT', path, { external_id: id });
    expect(set.status).toBe(200);
    expect(set.body.data.external_id).toBe(id);
    const taken = await ws.api('PUT', path, { external_id: holder.body.data.external_id });
    expect(taken.status).toBe(409);
    expect(taken.body.error.details.existing_id).toBe(holder.body.data.id);
    expect((await ws.api('GET', path)).body.data.external_id).toBe(id);
    const cleared = await ws.api('PUT', path, { external_id: null });
    expect(cleared.body.data.external_id).toBeNull();
    // Cleared, it is free again.
    expect((await create(ws, resource, { external_id: id })).status).toBe(201);
  });
});

describe('events and GraphQL', () => {
  it('events carry external_id; contact.updated names it as a change', async ({ app, ws }) => {
    const id = ext('ev');
    const c = (await create(ws, 'contacts', { external_id: id })).body.data;
    await ws.api('PUT', `/v1/contacts/${c.id}`, { external_id: `${id}-2` });
    const events = await app.db.prisma.event.findMany({ where: { entityId: c.id }, orderBy: { seq: 'asc' } });
    expect(events.map((e) => (e.data as { contact: { external_id: string } }).contact.external_id)).toEqual([
      id,
      `${id}-2`,
    ]);
    expect(events[1].data).toMatchObject({ changes: ['external_id'], previous: { external_id: id } });
    const a = (await create(ws, 'activities', { external_id: ext('act') })).body.data;
    const logged = await app.db.prisma.event.findFirstOrThrow({ where: { entityId: a.id } });
    expect((logged.data as { activity: { external_id: string } }).activity.external_id).toBe(a.external_id);
  });

  it('GraphQL sets, filters and refuses duplicates the same way', async ({ app, ws }) => {
    const id = ext('gql');
    const create = `mutation($input: ContactCreateInput!) { createContact(input: $input) { id external_id } }`;
    const first = await gql(app.base, ws.key, create, {
      input: { first_name: 'G', email: uniqueEmail('g'), external_id: id },
    });
    expect(first.data.createContact.external_id).toBe(id);
    const dup = await gql(app.base, ws.key, create, {
      input: { first_name: 'G', email: uniqueEmail('g'), external_id: id },
    });
    expect(dup.errors?.[0].extensions).toMatchObject({
      code: 'conflict',
      status: 409,
      details: { external_id: ['is already taken'], existing_id: first.data.createContact.id },
    });
    const listed = await gql(
      app.base,
      ws.key,
      'query($id: String) { contacts(filter: { external_id: $id }) { nodes { id } } }',
      { id },
    );
    expect(listed.data.contacts.nodes).toEqual([{ id: first.data.createContact.id }]);
  });
});

describe('bulk create', () => {
  it('a row with a taken external_id fails alone with its 409; a duplicate email still says email', async ({ ws }) => {
    const id = ext('bulk');
    const taken = (await create(ws, 'contacts', { external_id: id })).body.data;
    const email = uniqueEmail('bulk');
    const r = await ws.api('POST', '/v1/contacts/bulk', {
      contacts: [
        { first_name: 'A', email: uniqueEmail('bulk'), external_id: ext('bulk') },
        { first_name: 'B', email: uniqueEmail('bulk'), external_id: id },
        { first_name: 'C', email, external_id: `${id}-c` },
        { first_name: 'D', email, external_id: `${id}-d` },
        { first_name: 'E', email: uniqueEmail('bulk'), external_id: `${id}-c` },
      ],
    });
    expect(r.status).toBe(207);
    expect(r.body.data.created).toBe(2);
    expect(r.body.data.errors).toEqual([
      {
        index: 1,
        email: expect.any(String),
        error: {
          code: 'conflict',
          message: expect.any(String),
          details: { external_id: ['is already taken'], existing_id: taken.id },
        },
      },
      {
        index: 3,
        email,
        error: { code: 'conflict', message: expect.any(String), details: { email: ['is already taken'] } },
      },
      {
        index: 4,
        email: expect.any(String),
        error: {
          code: 'conflict',
          message: expect.any(String),
          details: { external_id: ['is already taken'], existing_id: r.body.data.contacts[1].id },
        },
      },
    ]);
  });
});
