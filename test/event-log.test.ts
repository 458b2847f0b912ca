// GET /v1/events and the eventLog query: the log oldest first with the ids deliveries carry, its
// filters, bad filters answered with 400, and the read rule: kinds of record a key may not read
// are left out with a warning, and data naming another resource is held back.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

/** A deal in the workspace's default pipeline. */
async function newDeal(api: (m: string, p: string, b?: unknown) => Promise<any>, title: string) {
  const pipeline = (await api('GET', '/v1/pipelines')).body.data[0];
  const r = await api('POST', '/v1/deals', { title, value: 10, pipeline_id: pipeline.id });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body.data;
}

type Logged = {
  id: string;
  type: string;
  resource: string;
  record_id: string;
  occurred_at: string;
  data: any;
  actor: unknown;
};

describe('GET /v1/events', () => {
  it('pages through the log oldest first, with the ids and data the log holds', async ({ app }) => {
    const ws = await app.workspace();
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Log', email: uniqueEmail('log') })).body.data;
    await ws.api('PUT', `/v1/contacts/${contact.id}`, { status: 'customer' });
    const company = (await ws.api('POST', '/v1/companies', { name: 'Log Co' })).body.data;
    await ws.api('POST', `/v1/contacts/${contact.id}/notes`, { content: 'timeline only' });

    const seen: Logged[] = [];
    let cursor: string | null = null;
    do {
      const r = await ws.api('GET', `/v1/events?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      seen.push(...r.body.data);
      cursor = r.body.meta.next_cursor;
    } while (cursor);
    const rows = await app.db.prisma.event.findMany({
      where: { workspaceId: ws.id, type: { not: 'note.created' } },
      orderBy: { seq: 'asc' },
    });
    expect(seen.map((e) => e.id)).toEqual(rows.map((r) => r.id));
    expect(seen.map((e) => e.type)).toEqual([
      'contact.created',
      'contact.updated',
      'contact.status_changed',
      'company.created',
    ]);
    expect(seen[0]).toMatchObject({ resource: 'contact', record_id: contact.id, sequence: 1 });
    expect(seen[0].data.contact).toMatchObject({ id: contact.id, email: contact.email });
    expect(seen[3]).toMatchObject({ resource: 'company', record_id: company.id });
    expect(seen[0].actor).toMatchObject({ type: 'api_key' });

    // The same through GraphQL.
    const g = await gql(app.base, ws.key, `{ eventLog(limit: 100) { nodes { id type record_id } has_more } }`);
    expect(g.data.eventLog.nodes.map((e: Logged) => e.id)).toEqual(seen.map((e) => e.id));
  });

  it('filters by names, kind of record, record and time window', async ({ app }) => {
    const ws = await app.workspace();
    const a = (await ws.api('POST', '/v1/contacts', { first_name: 'A', email: uniqueEmail('a') })).body.data;
    const b = (await ws.api('POST', '/v1/contacts', { first_name: 'B', email: uniqueEmail('b') })).body.data;
    await ws.api('PUT', `/v1/contacts/${b.id}`, { job_title: 'Boss' });
    const deal = await newDeal(ws.api, 'Big');
    const types = async (query: string) =>
      ((await ws.api('GET', `/v1/events?${query}`)).body.data as Logged[]).map((e) => `${e.type}:${e.record_id}`);

    expect(await types('type=contact.updated,deal.created')).toEqual([
      `contact.updated:${b.id}`,
      `deal.created:${deal.id}`,
    ]);
    expect(await types('resource=deal')).toEqual([`deal.created:${deal.id}`]);
    expect(await types('resource=contacts&type=contact.created')).toEqual([
      `contact.created:${a.id}`,
      `contact.created:${b.id}`,
    ]);
    expect(await types(`record_id=${b.id}`)).toEqual([`contact.created:${b.id}`, `contact.updated:${b.id}`]);

    const all = (await ws.api('GET', '/v1/events?limit=100')).body.data as Logged[];
    const last = all.at(-1)!.occurred_at;
    expect(await types(`since=${encodeURIComponent(last)}`)).toContain(`deal.created:${deal.id}`);
    expect(await types(`until=${encodeURIComponent(all[0].occurred_at)}`)).toEqual([]);
    expect(await types('since=2999-01-01')).toEqual([]);
    const newestFirst = (await ws.api('GET', '/v1/events?sort=-occurred_at&limit=1')).body.data as Logged[];
    expect(newestFirst[0].id).toBe(all.at(-1)!.id);
  });

  it('answers bad filters with 400 naming the parameter', async ({ app }) => {
    const ws = await app.workspace();
    for (const [query, field] of [
      ['type=contact.exploded', 'type'],
      ['type=note.created', 'type'],
      ['type=', 'type'],
      ['type=,,,', 'type'],
      ['resource=__proto__', 'resource'],
      ['resource=constructor', 'resource'],
      ['since=2030-01-01&until=2020-01-01', 'until'],
      ['resource=invoice', 'resource'],
      ['since=yesterday', 'since'],
      ['until=2026-02-30', 'until'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['sort=type', 'sort'],
      ['cursor=not-a-cursor', 'cursor'],
    ]) {
      const r = await ws.api('GET', `/v1/events?${query}`);
      expect(r.status, query).toBe(400);
      expect(Object.keys(r.body.error.details ?? {}), query).toContain(field);
    }
  });

  it('shows a key only the kinds of record it may read, and never another workspace', async ({ app }) => {
    const ws = await app.workspace();
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Hidden', email: uniqueEmail('h') })).body.data;
    const deal = await newDeal(ws.api, 'Seen');
    // A task related to the contact: its record carries the contact's name.
    const task = (
      await ws.api('POST', '/v1/tasks', { title: 'Call', related_to_type: 'contact', related_to_id: contact.id })
    ).body.data;
    const dealsOnly = await ws.addKey({ scope: 'custom', permissions: ['deals:read'] });
    const r = await dealsOnly.api('GET', '/v1/events?limit=100');
    expect(r.status).toBe(200);
    expect((r.body.data as Logged[]).map((e) => e.record_id)).toEqual([deal.id]);
    expect(r.body.meta.warnings.join(' ')).toMatch(/contact, company, task, activity events: they are left out/);
    const asked = await dealsOnly.api('GET', '/v1/events?resource=contact');
    expect(asked.status).toBe(200);
    expect(asked.body.data).toEqual([]);
    expect(asked.body.meta.warnings).toEqual([
      'This API key may not read the records of contact events: they are left out',
    ]);

    const tasksOnly = await ws.addKey({ scope: 'custom', permissions: ['tasks:read'] });
    const t = await tasksOnly.api('GET', '/v1/events?limit=100');
    expect((t.body.data as Logged[]).map((e) => e.record_id)).toEqual([task.id]);
    expect(t.body.data[0].data).toBeNull();
    expect(t.body.meta.warnings?.join(' ')).toMatch(/contacts/);

    const noRecords = await ws.addKey({ scope: 'custom', permissions: ['webhooks:read'] });
    const none = await noRecords.api('GET', '/v1/events');
    expect(none.status).toBe(200);
    expect(none.body.data).toEqual([]);

    const other = await app.workspace();
    const theirs = (await other.api('GET', '/v1/events?limit=100')).body.data as Logged[];
    expect(theirs.map((e) => e.record_id)).not.toContain(contact.id);
    expect((await other.api('GET', `/v1/events?record_id=${deal.id}`)).body.data).toEqual([]);
  });
});
