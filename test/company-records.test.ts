// A company's own records: notes on it, activities logged with it and tasks about it, over REST and
// GraphQL — their answers, events and deliveries, bad input, permissions and tenant isolation.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type Client } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';
import { until } from './helpers/receiver.ts';

async function created(api: Client, path: string, body: Record<string, unknown>) {
  const r = await api('POST', path, body);
  if (r.status !== 201) throw new Error(`${path}: ${r.status} ${r.text}`);
  return r.body.data;
}

const NOTE_FIELDS = ['id', 'contact_id', 'company_id', 'content', 'created_by', 'version', 'created_at', 'updated_at'];

let company: { id: string; name: string };
let foreignCompany: { id: string };
let contact: { id: string };

test.beforeAll(async ({ ws, other }) => {
  company = await created(ws.api, '/v1/companies', { name: 'Initech' });
  foreignCompany = await created(other.api, '/v1/companies', { name: 'Elsewhere' });
  contact = await created(ws.api, '/v1/contacts', {
    first_name: 'Peter',
    email: uniqueEmail('peter'),
    company_id: company.id,
  });
});

describe('notes on a company', () => {
  it('POST answers 201 with the note on the company; GET lists them newest first, by cursor', async ({ ws }) => {
    const first = await created(ws.api, `/v1/companies/${company.id}/notes`, { content: 'First **call**' });
    expect(Object.keys(first).sort()).toEqual([...NOTE_FIELDS].sort());
    expect(first).toMatchObject({ company_id: company.id, contact_id: null, content: 'First **call**', version: 1 });
    expect(first.id).toMatch(/^note_/);
    const second = await created(ws.api, `/v1/companies/${company.id}/notes`, { content: 'Second', id: 'note_x' });
    expect(second.id).not.toBe('note_x');
    const page = await ws.api('GET', `/v1/companies/${company.id}/notes?limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((n: { id: string }) => n.id)).toEqual([second.id]);
    expect(page.body.meta).toMatchObject({ total: 2, has_more: true });
    const next = await ws.api('GET', `/v1/companies/${company.id}/notes?limit=1&cursor=${page.body.meta.next_cursor}`);
    expect(next.body.data.map((n: { id: string }) => n.id)).toEqual([first.id]);
  });

  it('a contact note answers company_id null', async ({ ws }) => {
    const note = await created(ws.api, `/v1/contacts/${contact.id}/notes`, { content: 'On the person' });
    expect(note).toMatchObject({ contact_id: contact.id, company_id: null });
    const companyNotes = await ws.api('GET', `/v1/companies/${company.id}/notes?limit=100`);
    expect(companyNotes.body.data.map((n: { id: string }) => n.id)).not.toContain(note.id);
  });

  it('writes note.created for the timelines only, carrying company_id; the company timeline shows it', async ({
    app,
    ws,
  }) => {
    const note = await created(ws.api, `/v1/companies/${company.id}/notes`, { content: 'Timeline note' });
    const [event] = await app.db.prisma.event.findMany({ where: { entityId: note.id } });
    expect(event).toMatchObject({ type: 'note.created', entityType: 'note', contactId: null });
    expect(event.data).toEqual({
      note: {
        id: note.id,
        contact_id: null,
        company_id: company.id,
        content: 'Timeline note',
        version: 1,
        created_at: note.created_at,
      },
    });
    expect(await app.db.prisma.webhookDelivery.count({ where: { eventId: event.id } })).toBe(0);
    // A key that may read companies but not contacts still sees the company's own notes there.
    const key = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    const timeline = await key.api('GET', `/v1/companies/${company.id}/timeline?limit=100`);
    expect(timeline.status).toBe(200);
    const entry = timeline.body.data.find((e: { id: string }) => e.id === event.id);
    expect(entry).toMatchObject({ type: 'note.created', summary: 'Note added' });
    expect(entry.data.note.company_id).toBe(company.id);
  });

  it('GraphQL: createCompanyNote writes one, Company.notes and companyNotes list them', async ({ app, ws }) => {
    const made = await gql(
      app.base,
      ws.key,
      `mutation ($id: ID!) { createCompanyNote(companyId: $id, input: { content: "Via _GraphQL_" }) {
        id company_id contact_id } }`,
      { id: company.id },
    );
    expect(made.errors).toBeUndefined();
    const note = made.data.createCompanyNote;
    expect(note).toMatchObject({ company_id: company.id, contact_id: null });
    const read = await gql(
      app.base,
      ws.key,
      `query ($id: ID!) { company(id: $id) { notes(limit: 1) { total nodes { id content } } }
        companyNotes(companyId: $id, limit: 1) { nodes { id } } }`,
      { id: company.id },
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.company.notes.nodes).toEqual([{ id: note.id, content: 'Via _GraphQL_' }]);
    expect(read.data.companyNotes.nodes).toEqual([{ id: note.id }]);
  });

  it("GraphQL: a contact's id, another workspace's company or bad content are refused", async ({ app, ws }) => {
    const write = (id: string, content: unknown) =>
      gql(
        app.base,
        ws.key,
        'mutation ($id: ID!, $c: String!) { createCompanyNote(companyId: $id, input: { content: $c }) { id } }',
        {
          id,
          c: content,
        },
      );
    for (const id of [contact.id, foreignCompany.id])
      expect((await write(id, 'x')).errors?.[0]?.extensions?.code).toBe('not_found');
    for (const content of ['', 'x'.repeat(100_001), 'a\u0000b'])
      expect((await write(company.id, content)).errors?.[0]?.extensions?.code).toBe('validation_error');
    expect((await write(company.id, 42)).errors?.[0]?.extensions?.code).toBeDefined();
  });

  it('bad content is a 400 naming content, never stored', async ({ ws }) => {
    const before = (await ws.api('GET', `/v1/companies/${company.id}/notes`)).body.meta.total;
    for (const body of [
      {},
      { content: '' },
      { content: '   ' },
      { content: 42 },
      { content: ['a'] },
      { content: 'x'.repeat(100_001) },
      { content: 'nul\u0000byte' },
    ]) {
      const r = await ws.api('POST', `/v1/companies/${company.id}/notes`, body);
      expect(r.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(r.body.success).toBe(false);
      expect(Object.keys(r.body.error.details)).toContain('content');
    }
    expect((await ws.api('GET', `/v1/companies/${company.id}/notes`)).body.meta.total).toBe(before);
  });

  it("unknown and another workspace's companies are 404 on both routes", async ({ ws }) => {
    for (const id of ['com_missing', foreignCompany.id]) {
      expect((await ws.api('GET', `/v1/companies/${id}/notes`)).status).toBe(404);
      const r = await ws.api('POST', `/v1/companies/${id}/notes`, { content: 'x' });
      expect(r.status).toBe(404);
      expect(r.body.error.code).toBe('not_found');
    }
  });

  it('needs companies:read to list and companies:write to add, as contact notes need contacts', async ({ ws }) => {
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    expect((await contactsOnly.api('GET', `/v1/companies/${company.id}/notes`)).status).toBe(403);
    expect((await contactsOnly.api('POST', `/v1/companies/${company.id}/notes`, { content: 'x' })).status).toBe(403);
    const reader = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    expect((await reader.api('GET', `/v1/companies/${company.id}/notes`)).status).toBe(200);
    expect((await reader.api('POST', `/v1/companies/${company.id}/notes`, { content: 'x' })).status).toBe(403);
    const writer = await ws.addKey({ scope: 'custom', permissions: ['companies:write'] });
    expect((await writer.api('POST', `/v1/companies/${company.id}/notes`, { content: 'x' })).status).toBe(201);
    expect((await writer.api('POST', `/v1/contacts/${contact.id}/notes`, { content: 'x' })).status).toBe(403);
  });

  it('the database holds a note to exactly one contact or company', async ({ app, ws }) => {
    for (const [contactId, companyId] of [
      [null, null],
      [contact.id, company.id],
    ]) {
      await expect(
        app.db.prisma.$executeRaw`INSERT INTO notes (id, workspace_id, contact_id, company_id, content, updated_at)
          VALUES (${`note_check_${String(contactId)}`}, ${ws.id}, ${contactId}, ${companyId}, 'x', now())`,
      ).rejects.toThrow(/notes_one_owner_check/);
    }
  });

  it("a merge moves the secondary's notes, activities and tasks; deleting a company deletes its notes", async ({
    app,
    ws,
  }) => {
    const primary = await created(ws.api, '/v1/companies', { name: 'Primary' });
    const secondary = await created(ws.api, '/v1/companies', { name: 'Secondary' });
    const note = await created(ws.api, `/v1/companies/${secondary.id}/notes`, { content: 'moves' });
    const activity = await created(ws.api, '/v1/activities', { type: 'call', company_id: secondary.id });
    const task = await created(ws.api, '/v1/tasks', {
      title: 'moves',
      related_to_type: 'company',
      related_to_id: secondary.id,
    });
    const merged = await ws.api('POST', '/v1/companies/merge', { primary_id: primary.id, secondary_id: secondary.id });
    expect(merged.status, merged.text).toBe(200);
    expect((await ws.api('GET', `/v1/companies/${primary.id}/notes`)).body.data.map((n: any) => n.id)).toEqual([
      note.id,
    ]);
    expect((await ws.api('GET', `/v1/activities/${activity.id}`)).body.data.company_id).toBe(primary.id);
    expect((await ws.api('GET', `/v1/tasks/${task.id}`)).body.data.related_to).toEqual({
      type: 'company',
      id: primary.id,
      name: 'Primary',
    });
    expect((await ws.api('DELETE', `/v1/companies/${primary.id}`)).status).toBe(200);
    expect(await app.db.prisma.note.count({ where: { id: note.id } })).toBe(0);
    expect((await ws.api('GET', `/v1/activities/${activity.id}`)).body.data.company_id).toBeNull();
  });
});

describe('activities with a company', () => {
  it('POST takes company_id, answers it, and activity.logged delivers it', async ({ app, ws, listen }) => {
    const hook = await listen();
    const sub = await created(ws.api, '/v1/webhooks', { url: hook.url, events: ['activity.logged'] });
    const activity = await created(ws.api, '/v1/activities', {
      type: 'meeting',
      subject: 'Kick-off',
      company_id: company.id,
    });
    expect(activity).toMatchObject({ company_id: company.id, contact_id: null });
    const worker = app.worker();
    await until(async () => (await worker.runOnce(), hook.hits.some((h) => h.json?.data?.activity?.id)), 10_000);
    const hit = hook.hits.find((h) => h.json.data.activity.id === activity.id);
    expect(hit?.json.data.activity.company_id).toBe(company.id);
    await ws.api('DELETE', `/v1/webhooks/${sub.id}`);
  });

  it('an unknown or foreign company_id is a 422 naming company_id; a wrong type a 400', async ({ ws }) => {
    for (const id of ['com_missing', foreignCompany.id]) {
      const r = await ws.api('POST', '/v1/activities', { type: 'call', company_id: id });
      expect(r.status).toBe(422);
      expect(r.body.error.details).toEqual({ company_id: ['unknown company'] });
    }
    // Both links unknown: both named in one answer, and nothing logged.
    const before = (await ws.api('GET', '/v1/activities?limit=1')).body.meta.total;
    const both = await ws.api('POST', '/v1/activities', { type: 'call', company_id: 'com_missing', deal_id: 'deal_x' });
    expect(both.status).toBe(422);
    expect(both.body.error.details).toEqual({ deal_id: ['unknown deal'], company_id: ['unknown company'] });
    expect(both.body.error.message).toMatch(/deal_id .*; company_id /);
    expect((await ws.api('GET', '/v1/activities?limit=1')).body.meta.total).toBe(before);
    for (const company_id of [42, ['x'], { id: 'x' }, '', 'x'.repeat(256), 'com\u0000x']) {
      const r = await ws.api('POST', '/v1/activities', { type: 'call', company_id });
      expect(r.status, JSON.stringify(company_id).slice(0, 40)).toBe(400);
      expect(Object.keys(r.body.error.details)).toContain('company_id');
    }
  });

  it('GET /v1/activities?company_id= filters; GraphQL too, with the company', async ({ app, ws }) => {
    const own = await created(ws.api, '/v1/activities', { type: 'email', company_id: company.id });
    const list = await ws.api('GET', `/v1/activities?company_id=${company.id}&limit=100`);
    expect(list.status).toBe(200);
    expect(list.body.data.every((a: { company_id: string }) => a.company_id === company.id)).toBe(true);
    expect(list.body.data.map((a: { id: string }) => a.id)).toContain(own.id);
    const r = await gql(
      app.base,
      ws.key,
      `query ($id: String!) { activities(filter: { company_id: $id }, where: { company: { name: { eq: "Initech" } } },
        limit: 100) { nodes { id company_id company { id name } } } }`,
      { id: company.id },
    );
    expect(r.errors).toBeUndefined();
    expect(r.data.activities.nodes).toContainEqual({
      id: own.id,
      company_id: company.id,
      company: { id: company.id, name: 'Initech' },
    });
  });

  it("GET /v1/companies/:id/activities lists its own and its contacts' activities, newest first", async ({
    app,
    ws,
  }) => {
    const place = await created(ws.api, '/v1/companies', { name: 'Listed' });
    const person = await created(ws.api, '/v1/contacts', {
      first_name: 'Worker',
      email: uniqueEmail('w'),
      company_id: place.id,
    });
    const a1 = await created(ws.api, '/v1/activities', {
      type: 'call',
      company_id: place.id,
      occurred_at: '2030-01-01T09:00:00Z',
    });
    const a2 = await created(ws.api, '/v1/activities', {
      type: 'sms',
      contact_id: person.id,
      occurred_at: '2030-01-02T09:00:00Z',
    });
    await created(ws.api, '/v1/activities', { type: 'note', contact_id: contact.id });
    const page = await ws.api('GET', `/v1/companies/${place.id}/activities?limit=1`);
    expect(page.status).toBe(200);
    expect(page.body.data.map((a: { id: string }) => a.id)).toEqual([a2.id]);
    expect(page.body.meta).toMatchObject({ total: 2, has_more: true });
    const rest = await ws.api('GET', `/v1/companies/${place.id}/activities?cursor=${page.body.meta.next_cursor}`);
    expect(rest.body.data.map((a: { id: string }) => a.id)).toEqual([a1.id]);
    const viaGql = await gql(
      app.base,
      ws.key,
      'query ($id: ID!) { companyActivities(companyId: $id) { total nodes { id } } }',
      { id: place.id },
    );
    expect(viaGql.data.companyActivities).toEqual({ total: 2, nodes: [{ id: a2.id }, { id: a1.id }] });
    // The company's timeline shows the activity logged with it.
    const timeline = await ws.api('GET', `/v1/companies/${place.id}/timeline?limit=100`);
    expect(timeline.body.data.map((e: { summary: string }) => e.summary)).toContain('call logged');
  });

  it('the company list needs activities:read; 404 for unknown and foreign companies', async ({ ws }) => {
    const companiesOnly = await ws.addKey({ scope: 'custom', permissions: ['companies:read'] });
    expect((await companiesOnly.api('GET', `/v1/companies/${company.id}/activities`)).status).toBe(403);
    for (const id of ['com_missing', foreignCompany.id])
      expect((await ws.api('GET', `/v1/companies/${id}/activities`)).status).toBe(404);
  });
});

describe('tasks related to a company', () => {
  it("answers the company's name; 422 for unknown and foreign companies", async ({ ws }) => {
    const task = await created(ws.api, '/v1/tasks', {
      title: 'Renewal',
      related_to_type: 'company',
      related_to_id: company.id,
    });
    expect(task.related_to).toEqual({ type: 'company', id: company.id, name: 'Initech' });
    for (const id of ['com_missing', foreignCompany.id]) {
      const r = await ws.api('POST', '/v1/tasks', { title: 'x', related_to_type: 'company', related_to_id: id });
      expect(r.status).toBe(422);
      expect(r.body.error.details).toEqual({ related_to_id: ['unknown company'] });
      const moved = await ws.api('PUT', `/v1/tasks/${task.id}`, { related_to_type: 'company', related_to_id: id });
      expect(moved.status).toBe(422);
    }
    const list = await ws.api('GET', `/v1/tasks?related_to_type=company&related_to_id=${company.id}`);
    expect(list.body.data.map((t: { id: string }) => t.id)).toContain(task.id);
    const timeline = await ws.api('GET', `/v1/companies/${company.id}/timeline?limit=100`);
    const entry = timeline.body.data.find((e: { type: string; data: any }) => e.data?.task?.id === task.id);
    expect(entry?.type).toBe('task.created');
  });

  it("the company's name needs companies:read, on the task and in its events' subscriptions", async ({
    ws,
    listen,
  }) => {
    const task = await created(ws.api, '/v1/tasks', {
      title: 'Hidden name',
      related_to_type: 'company',
      related_to_id: company.id,
    });
    const tasksOnly = await ws.addKey({ scope: 'custom', permissions: ['tasks:read', 'webhooks:write'] });
    const r = await tasksOnly.api('GET', `/v1/tasks/${task.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data.related_to).toEqual({ type: 'company', id: company.id, name: null });
    expect(r.body.meta.warnings.join(' ')).toMatch(/companies/);
    const hook = await listen();
    const refused = await tasksOnly.api('POST', '/v1/webhooks', { url: hook.url, events: ['task.created'] });
    expect(refused.status).toBe(403);
    expect(refused.body.error.details.events[0]).toMatch(/companies:read/);
  });
});
