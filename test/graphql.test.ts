// GraphQL runs the same resolvers as REST: same data, same errors, same events.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type TestApp } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('industry', 'text');
});

const FIELDS = 'id first_name last_name email status source tags custom_fields created_at updated_at';
const eventsOf = async (app: TestApp, id: string) =>
  (await app.db.prisma.event.findMany({ where: { entityId: id }, orderBy: { seq: 'asc' } })).map((e) => ({
    type: e.type,
    data: e.data as any,
  }));

describe('GraphQL contacts', () => {
  it('create, update and delete write the same events as REST', async ({ app, ws }) => {
    const input = { first_name: 'Gq', email: uniqueEmail('gq'), tags: ['a'] };
    const g = await gql(
      app.base,
      ws.key,
      `mutation($i: ContactCreateInput!) { createContact(input: $i) { ${FIELDS} } }`,
      { i: input },
    );
    const r = (await ws.api('POST', '/v1/contacts', { ...input, email: uniqueEmail('rest') })).body.data;
    const gid = g.data!.createContact.id;
    expect(Object.keys(g.data!.createContact).sort()).toEqual(FIELDS.split(' ').sort());
    await gql(
      app.base,
      ws.key,
      'mutation($id: ID!, $i: ContactUpdateInput!) { updateContact(id: $id, input: $i) { id } }',
      { id: gid, i: { status: 'customer', tags: [] } },
    );
    await ws.api('PUT', `/v1/contacts/${r.id}`, { status: 'customer', tags: [] });
    await gql(app.base, ws.key, 'mutation($id: ID!) { deleteContact(id: $id) { id deleted } }', { id: gid });
    await ws.api('DELETE', `/v1/contacts/${r.id}`);
    const gEvents = await eventsOf(app, gid);
    const rEvents = await eventsOf(app, r.id);
    expect(gEvents.map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.status_changed',
      'contact.tag_removed',
      'contact.deleted',
    ]);
    expect(rEvents.map((e) => e.type)).toEqual(gEvents.map((e) => e.type));
    expect(Object.keys(rEvents[0].data.contact).sort()).toEqual(Object.keys(gEvents[0].data.contact).sort());
  });

  it('lists with filters, sort and cursor like REST', async ({ app, ws }) => {
    for (let i = 0; i < 3; i++)
      await ws.api('POST', '/v1/contacts', { first_name: `List${i}`, email: uniqueEmail(), status: 'churned' });
    const q =
      'query($f: ContactFilter, $c: String) { contacts(filter: $f, sort: [first_name_asc], limit: 2, cursor: $c) {' +
      ' nodes { first_name } total has_more next_cursor } }';
    const p1 = await gql(app.base, ws.key, q, { f: { status: 'churned' } });
    expect(p1.data!.contacts).toMatchObject({
      total: 3,
      has_more: true,
      nodes: [{ first_name: 'List0' }, { first_name: 'List1' }],
    });
    const p2 = await gql(app.base, ws.key, q, { f: { status: 'churned' }, c: p1.data!.contacts.next_cursor });
    expect(p2.data!.contacts).toMatchObject({ has_more: false, next_cursor: null, nodes: [{ first_name: 'List2' }] });
  });

  it('errors carry the same codes and details as REST', async ({ app, ws }) => {
    const bad = await gql(app.base, ws.key, 'mutation($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'x', email: 'nope' },
    });
    expect(bad.errors![0].extensions).toMatchObject({
      code: 'validation_error',
      details: { email: [expect.any(String)] },
    });
    const email = uniqueEmail('twice');
    await ws.api('POST', '/v1/contacts', { first_name: 'x', email });
    const dup = await gql(app.base, ws.key, 'mutation($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'x', email },
    });
    expect(dup.errors![0].extensions!.code).toBe('conflict');
    const limit = await gql(app.base, ws.key, '{ contacts(limit: 500) { total } }');
    expect(limit.errors![0].extensions!.code).toBe('validation_error');
  });

  it('warnings travel in extensions', async ({ app, ws }) => {
    const r = await gql(
      app.base,
      ws.key,
      'mutation($i: ContactCreateInput!) { createContact(input: $i) { custom_fields } }',
      {
        i: { first_name: 'W', email: uniqueEmail(), custom_fields: { industry: 'x', other: 1 } },
      },
    );
    expect(r.data!.createContact.custom_fields).toEqual({ industry: 'x' });
    expect(r.extensions!.warnings[0]).toMatch(/other/);
  });

  it('search, notes and timeline are queryable', async ({ app, ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Quasimodo', email: uniqueEmail() })).body.data;
    await gql(app.base, ws.key, 'mutation($id: ID!) { createNote(contactId: $id, input: { content: "hi" }) { id } }', {
      id: c.id,
    });
    const r = await gql(
      app.base,
      ws.key,
      `query($id: ID!) {
      searchContacts(q: "quasimodo") { nodes { id } }
      contactNotes(contactId: $id) { nodes { content } }
      contactTimeline(contactId: $id) { nodes { type summary } }
    }`,
      { id: c.id },
    );
    expect(r.data!.searchContacts.nodes).toEqual([{ id: c.id }]);
    expect(r.data!.contactNotes.nodes).toEqual([{ content: 'hi' }]);
    expect(r.data!.contactTimeline.nodes.map((n: { type: string }) => n.type)).toEqual([
      'note.created',
      'contact.created',
    ]);
  });
});
