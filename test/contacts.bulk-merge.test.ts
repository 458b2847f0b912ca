// Bulk create, merge, notes and the timeline.
import { describe, expect } from 'vitest';
import { uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('industry', 'text');
  await ws.addCustomField('size', 'number');
});

const create = async (ws: TestWorkspace, body: Record<string, unknown>) =>
  (await ws.api('POST', '/v1/contacts', { first_name: 'X', email: uniqueEmail(), ...body })).body.data;

describe('bulk create', () => {
  it('each row succeeds or fails alone, with index, email and error', async ({ app, ws }) => {
    const dupEmail = uniqueEmail('dup');
    const rows = [
      { first_name: 'A', email: dupEmail },
      { first_name: 'NoEmail' },
      { first_name: 'B', email: dupEmail },
      { first_name: 'C', email: uniqueEmail(), phone: 'bad' },
      { first_name: 'D', email: uniqueEmail(), custom_fields: { nope: 1 } },
    ];
    const r = await ws.api('POST', '/v1/contacts/bulk', { contacts: rows });
    expect(r.status).toBe(207);
    expect(r.body.data).toMatchObject({ created: 2, failed: 3 });
    expect(r.body.data.contacts.map((c: { first_name: string }) => c.first_name)).toEqual(['A', 'D']);
    const errors = r.body.data.errors;
    expect(errors.map((e: { index: number }) => e.index)).toEqual([1, 2, 3]);
    expect(errors[0].error).toMatchObject({ code: 'validation_error', details: { email: ['is required'] } });
    expect(errors[1]).toMatchObject({
      email: dupEmail,
      error: { code: 'conflict', details: { email: ['is already taken'] } },
    });
    expect(errors[2].error.details.phone).toBeDefined();
    expect(r.body.meta.warnings[0]).toMatch(/nope/);
    expect(
      await app.db.prisma.event.count({
        where: {
          workspaceId: ws.id,
          type: 'contact.created',
          entityId: { in: r.body.data.contacts.map((c: { id: string }) => c.id) },
        },
      }),
    ).toBe(2);
  });

  it('201 when every row is created; 400 for more than 100 rows or no array', async ({ ws }) => {
    const ok = await ws.api('POST', '/v1/contacts/bulk', { contacts: [{ first_name: 'A', email: uniqueEmail() }] });
    expect(ok.status).toBe(201);
    const tooMany = Array.from({ length: 101 }, () => ({ first_name: 'x', email: uniqueEmail() }));
    const r = await ws.api('POST', '/v1/contacts/bulk', { contacts: tooMany });
    expect(r.status).toBe(400);
    expect(r.body.error.details.contacts).toBeDefined();
    expect((await ws.api('POST', '/v1/contacts/bulk', { contacts: 'x' })).status).toBe(400);
    expect((await ws.api('POST', '/v1/contacts/bulk', {})).status).toBe(400);
  });
});

describe('merge', () => {
  it('prefer_primary: primary wins, secondary fills blanks, tags and custom fields union, related rows move', async ({
    ws,
  }) => {
    const p = await create(ws, {
      first_name: 'Prim',
      company: 'P Corp',
      tags: ['a'],
      custom_fields: { industry: 'p' },
    });
    const s = await create(ws, {
      first_name: 'Seco',
      company: 'S Corp',
      phone: '+442071838750',
      job_title: 'CTO',
      tags: ['b', 'a'],
      custom_fields: { industry: 's', size: 5 },
    });
    await ws.api('POST', `/v1/contacts/${s.id}/notes`, { content: 'moved note' });
    const r = await ws.api('POST', '/v1/contacts/merge', {
      primary_id: p.id,
      secondary_id: s.id,
      merge_strategy: 'prefer_primary',
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      id: p.id,
      email: p.email,
      first_name: 'Prim',
      company: 'P Corp',
      phone: '+442071838750',
      job_title: 'CTO',
      custom_fields: { industry: 'p', size: 5 },
    });
    expect(r.body.data.tags.sort()).toEqual(['a', 'b']);
    expect((await ws.api('GET', `/v1/contacts/${s.id}`)).status).toBe(404);
    const notes = await ws.api('GET', `/v1/contacts/${p.id}/notes`);
    expect(notes.body.data.map((n: { content: string }) => n.content)).toEqual(['moved note']);
    const timeline = (await ws.api('GET', `/v1/contacts/${p.id}/timeline?limit=100`)).body.data.map(
      (e: { type: string }) => e.type,
    );
    expect(timeline[0]).toBe('contact.merged');
    expect(timeline.filter((t: string) => t === 'contact.created')).toHaveLength(2);
  });

  it('prefer_secondary: the secondary wins where both have values; the primary keeps its email', async ({ ws }) => {
    const p = await create(ws, { first_name: 'Prim', company: 'P Corp' });
    const s = await create(ws, { first_name: 'Seco', company: null, job_title: 'CEO' });
    const r = await ws.api('POST', '/v1/contacts/merge', {
      primary_id: p.id,
      secondary_id: s.id,
      merge_strategy: 'prefer_secondary',
    });
    expect(r.body.data).toMatchObject({
      id: p.id,
      email: p.email,
      first_name: 'Seco',
      company: 'P Corp',
      job_title: 'CEO',
    });
  });

  it('422 with itself, 404 across workspaces or unknown ids, 400 for a bad strategy', async ({ ws, other }) => {
    const p = await create(ws, {});
    const self = await ws.api('POST', '/v1/contacts/merge', { primary_id: p.id, secondary_id: p.id });
    expect(self.status).toBe(422);
    expect(self.body.error.code).toBe('unprocessable_entity');
    const foreign = (await other.api('POST', '/v1/contacts', { first_name: 'F', email: uniqueEmail() })).body.data;
    expect((await ws.api('POST', '/v1/contacts/merge', { primary_id: p.id, secondary_id: foreign.id })).status).toBe(
      404,
    );
    expect((await ws.api('POST', '/v1/contacts/merge', { primary_id: 'con_x', secondary_id: p.id })).status).toBe(404);
    expect(
      (
        await ws.api('POST', '/v1/contacts/merge', {
          primary_id: p.id,
          secondary_id: 'con_y',
          merge_strategy: 'coin_flip',
        })
      ).status,
    ).toBe(400);
    expect((await ws.api('GET', `/v1/contacts/${foreign.id}`)).status).toBe(404);
    expect((await other.api('GET', `/v1/contacts/${foreign.id}`)).status).toBe(200);
  });
});

describe('notes and timeline', () => {
  it('creates and lists notes newest first; 400 without content; 404 for unknown contacts', async ({ ws }) => {
    const c = await create(ws, {});
    const a = await ws.api('POST', `/v1/contacts/${c.id}/notes`, { content: '# First' });
    expect(a.status).toBe(201);
    expect(a.body.data).toMatchObject({ contact_id: c.id, content: '# First', created_by: null });
    await ws.api('POST', `/v1/contacts/${c.id}/notes`, { content: '**second**' });
    const list = await ws.api('GET', `/v1/contacts/${c.id}/notes`);
    expect(list.body.data.map((n: { content: string }) => n.content)).toEqual(['**second**', '# First']);
    expect((await ws.api('POST', `/v1/contacts/${c.id}/notes`, {})).status).toBe(400);
    expect((await ws.api('POST', `/v1/contacts/${c.id}/notes`, { content: 'x'.repeat(100_001) })).status).toBe(400);
    expect((await ws.api('POST', '/v1/contacts/con_nope/notes', { content: 'x' })).status).toBe(404);
    expect((await ws.api('GET', '/v1/contacts/con_nope/notes')).status).toBe(404);
  });

  it('timeline entries come from the event log, newest first, with summary and actor', async ({ ws }) => {
    const c = await create(ws, {});
    await ws.api('PUT', `/v1/contacts/${c.id}`, { status: 'customer', tags: ['vip'] });
    await ws.api('POST', `/v1/contacts/${c.id}/notes`, { content: 'hello' });
    const r = await ws.api('GET', `/v1/contacts/${c.id}/timeline`);
    expect(r.status).toBe(200);
    const types = r.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual([
      'note.created',
      'contact.tag_added',
      'contact.status_changed',
      'contact.updated',
      'contact.created',
    ]);
    const status = r.body.data.find((e: { type: string }) => e.type === 'contact.status_changed');
    expect(status).toMatchObject({ summary: 'Status changed from lead to customer', actor: { type: 'api_key' } });
    const times = r.body.data.map((e: { occurred_at: string }) => Date.parse(e.occurred_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const page = await ws.api('GET', `/v1/contacts/${c.id}/timeline?limit=2`);
    const rest = await ws.api('GET', `/v1/contacts/${c.id}/timeline?limit=10&cursor=${page.body.meta.next_cursor}`);
    expect([...page.body.data, ...rest.body.data].map((e: { id: string }) => e.id)).toEqual(
      r.body.data.map((e: { id: string }) => e.id),
    );
  });
});
