import { describe, expect } from 'vitest';
import { uniqueEmail } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('industry', 'text');
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
});

const newContact = (extra: Record<string, unknown> = {}) => ({
  first_name: 'Ada',
  last_name: 'Lovelace',
  email: uniqueEmail('ada'),
  ...extra,
});

describe('create', () => {
  it('answers 201 with the full contact, defaults and envelope', async ({ ws }) => {
    const r = await ws.api(
      'POST',
      '/v1/contacts',
      newContact({ phone: '+442071838750', tags: ['vip', 'vip'], address: { city: 'London', planet: 'Earth' } }),
    );
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(r.body.data).toMatchObject({
      first_name: 'Ada',
      status: 'lead',
      source: 'api',
      tags: ['vip'],
      engagement_score: 0,
      address: { city: 'London' },
    });
    // Every part of an address is answered; parts not given are null, unknown ones are not kept.
    expect(r.body.data.address).toEqual({ street: null, city: 'London', state: null, zip: null, country: null });
    expect(r.body.meta.request_id).toBe(r.headers.get('x-request-id'));
  });

  it('keeps defined custom fields, drops others with a warning, rejects bad values', async ({ ws }) => {
    const r = await ws.api(
      'POST',
      '/v1/contacts',
      newContact({ custom_fields: { industry: 'aero', Industry: 'x', tier: 'gold' } }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.custom_fields).toEqual({ industry: 'aero', tier: 'gold' });
    expect(r.body.meta.warnings[0]).toMatch(/Industry/);
    const bad = await ws.api('POST', '/v1/contacts', newContact({ custom_fields: { tier: 'bronze' } }));
    expect(bad.status).toBe(400);
    expect(bad.body.error.details['custom_fields.tier']).toBeDefined();
  });

  it('ignores read-only and unknown fields in the body', async ({ ws, other }) => {
    const r = await ws.api(
      'POST',
      '/v1/contacts',
      newContact({
        id: 'mine',
        engagement_score: 99,
        created_at: '2000-01-01T00:00:00Z',
        workspace_id: other.id,
        hacker: true,
      }),
    );
    expect(r.status).toBe(201);
    expect(r.body.data.id).not.toBe('mine');
    expect(r.body.data.engagement_score).toBe(0);
    expect(r.body.data.created_at.startsWith('2000')).toBe(false);
    expect(r.body.data).not.toHaveProperty('hacker');
    expect((await other.api('GET', `/v1/contacts/${r.body.data.id}`)).status).toBe(404);
  });

  it.for<[Record<string, unknown>, string[]]>([
    [{ last_name: 'x' }, ['first_name', 'email']],
    [{ first_name: 'a', email: 'nope' }, ['email']],
    [{ first_name: 'a', email: 'a@b.co', phone: '555-1234' }, ['phone']],
    [{ first_name: 'a', email: 'a@b.co', status: 'vip' }, ['status']],
    [{ first_name: 'a', email: 'a@b.co', source: 'tv' }, ['source']],
    [{ first_name: 'a', email: 'a@b.co', tags: 'vip' }, ['tags']],
    [{ first_name: 'x'.repeat(256), email: 'a@b.co' }, ['first_name']],
  ])('rejects %j with 400 validation_error naming %j', async ([body, fields], { ws }) => {
    const r = await ws.api('POST', '/v1/contacts', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    for (const f of fields) expect(r.body.error.details[f]).toBeDefined();
  });

  it('409 on a duplicate email in the workspace (any case), allowed in another workspace', async ({ ws, other }) => {
    const email = uniqueEmail('dup');
    expect((await ws.api('POST', '/v1/contacts', newContact({ email }))).status).toBe(201);
    const dup = await ws.api('POST', '/v1/contacts', newContact({ email: email.toUpperCase() }));
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
    expect((await other.api('POST', '/v1/contacts', newContact({ email }))).status).toBe(201);
  });

  it('422 when assigned_to is not an active user of the workspace', async ({ ws, other }) => {
    const foreign = await other.addUser('Foreign');
    const r = await ws.api('POST', '/v1/contacts', newContact({ assigned_to: foreign.id }));
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('unprocessable_entity');
    const mine = await ws.addUser('Mine');
    expect((await ws.api('POST', '/v1/contacts', newContact({ assigned_to: mine.id }))).body.data.assigned_to).toBe(
      mine.id,
    );
  });
});

describe('read, update, delete', () => {
  it('gets by id; 404 for unknown ids and other workspaces', async ({ ws, other }) => {
    const c = (await ws.api('POST', '/v1/contacts', newContact())).body.data;
    const r = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(c);
    expect((await ws.api('GET', '/v1/contacts/con_missing')).body.error.code).toBe('not_found');
    expect((await other.api('GET', `/v1/contacts/${c.id}`)).status).toBe(404);
    expect((await other.api('PUT', `/v1/contacts/${c.id}`, { company: 'x' })).status).toBe(404);
    expect((await other.api('DELETE', `/v1/contacts/${c.id}`)).status).toBe(404);
  });

  it('fields= restricts keys on reads and rejects unknown names', async ({ ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', newContact())).body.data;
    const r = await ws.api('GET', `/v1/contacts/${c.id}?fields=email,company`);
    expect(Object.keys(r.body.data).sort()).toEqual(['company', 'email', 'id']);
    expect((await ws.api('GET', `/v1/contacts/${c.id}?fields=password`)).status).toBe(400);
  });

  it('partial update changes only given fields and records events', async ({ app, ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', newContact({ company: 'Analytical', tags: ['a'] }))).body.data;
    const r = await ws.api('PUT', `/v1/contacts/${c.id}`, {
      job_title: 'Countess',
      status: 'customer',
      tags: ['b'],
      phone: null,
    });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      job_title: 'Countess',
      status: 'customer',
      company: 'Analytical',
      tags: ['b'],
      phone: null,
    });
    expect(Date.parse(r.body.data.updated_at)).toBeGreaterThanOrEqual(Date.parse(c.updated_at));
    const types = (await app.db.prisma.event.findMany({ where: { entityId: c.id }, orderBy: { seq: 'asc' } })).map(
      (e) => e.type,
    );
    expect(types).toEqual([
      'contact.created',
      'contact.updated',
      'contact.status_changed',
      'contact.tag_added',
      'contact.tag_removed',
    ]);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { email: 'bad' })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { first_name: null })).status).toBe(400);
  });

  it('an update that changes nothing writes no event', async ({ app, ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', newContact({ company: 'Same' }))).body.data;
    expect((await ws.api('PUT', `/v1/contacts/${c.id}`, { company: 'Same' })).status).toBe(200);
    expect(await app.db.prisma.event.count({ where: { entityId: c.id } })).toBe(1);
  });

  it('delete answers {id, deleted:true}, removes notes, then 404', async ({ app, ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', newContact())).body.data;
    await ws.api('POST', `/v1/contacts/${c.id}/notes`, { content: 'bye' });
    const r = await ws.api('DELETE', `/v1/contacts/${c.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: c.id, deleted: true });
    expect(await app.db.prisma.note.count({ where: { contactId: c.id } })).toBe(0);
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).status).toBe(404);
    expect((await ws.api('DELETE', `/v1/contacts/${c.id}`)).status).toBe(404);
    expect(await app.db.prisma.event.count({ where: { entityId: c.id, type: 'contact.deleted' } })).toBe(1);
  });
});
