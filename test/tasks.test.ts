import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../src/ids.ts';
import { gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

let app: TestApp;
let ws: TestWorkspace;
let other: TestWorkspace;
let sam: { id: string };
let olivia: { id: string };

test.beforeAll(async ({ app: started, ws: main, other: neighbour }) => {
  app = started;
  ws = main;
  other = neighbour;
  sam = await ws.addUser('Sam Seller');
  olivia = await ws.addUser('Olivia Owner');
});

/** Deals belong to another module; the tasks only need a row to point at. */
async function makeDeal(workspaceId: string, title: string) {
  const stage = await app.db.prisma.stage.findFirstOrThrow({ where: { workspaceId }, orderBy: { position: 'asc' } });
  return app.db.prisma.deal.create({
    data: { id: newId('deal'), workspaceId, title, pipelineId: stage.pipelineId, stageId: stage.id, currency: 'USD' },
  });
}

async function makeContact(api: Client, first = 'Ada', last: string | null = 'Lovelace') {
  return (await api('POST', '/v1/contacts', { first_name: first, last_name: last, email: uniqueEmail('t') })).body.data;
}

const eventsOf = async (id: string) =>
  app.db.prisma.event.findMany({ where: { entityId: id }, orderBy: { seq: 'asc' } });
const typesOf = async (id: string) => (await eventsOf(id)).map((e) => e.type);
const newTask = async (body: Record<string, unknown>, api: Client = ws.api) => {
  const r = await api('POST', '/v1/tasks', body);
  expect(r.status).toBe(201);
  return r.body.data;
};

describe('create', () => {
  it('answers 201 with defaults, assignee_name, related deal name and the reminder', async () => {
    const deal = await makeDeal(ws.id, 'Big deal');
    const r = await ws.api('POST', '/v1/tasks', {
      title: 'Call back',
      assignee_id: sam.id,
      due_date: '2030-01-01T10:00:00Z',
      related_to_type: 'deal',
      related_to_id: deal.id,
      reminder: { type: 'email', before_minutes: 30 },
    });
    expect(r.status).toBe(201);
    expect(r.body.data).toMatchObject({
      title: 'Call back',
      description: null,
      status: 'pending',
      priority: 'medium',
      type: 'todo',
      assignee_id: sam.id,
      assignee_name: 'Sam Seller',
      due_date: '2030-01-01T10:00:00.000Z',
      related_to: { type: 'deal', id: deal.id, name: 'Big deal' },
      reminder: { type: 'email', before_minutes: 30, remind_at: '2030-01-01T09:30:00.000Z', sent_at: null },
      completed_at: null,
      completion_note: null,
    });
    const row = await app.db.prisma.task.findUniqueOrThrow({ where: { id: r.body.data.id } });
    expect(row).toMatchObject({
      reminderType: 'email',
      reminderBeforeMinutes: 30,
      reminderAt: new Date('2030-01-01T09:30:00Z'),
    });
    expect(await typesOf(r.body.data.id)).toEqual(['task.created', 'task.assigned']);
  });

  it('names a related contact by full name and sets the events contact; projects have no name', async () => {
    const contact = await makeContact(ws.api, 'Grace', 'Hopper');
    const t = await newTask({
      title: 'Follow up',
      type: 'follow_up',
      related_to_type: 'contact',
      related_to_id: contact.id,
    });
    expect(t.related_to).toEqual({ type: 'contact', id: contact.id, name: 'Grace Hopper' });
    expect((await eventsOf(t.id))[0].contactId).toBe(contact.id);
    const p = await newTask({ title: 'Plan', related_to_type: 'project', related_to_id: 'prj_anything' });
    expect(p.related_to).toEqual({ type: 'project', id: 'prj_anything', name: null });
    expect((await eventsOf(p.id))[0].contactId).toBeNull();
    expect((await newTask({ title: 'Alone' })).related_to).toBeNull();
  });

  it('created_by is the user of the key, null for keys without one', async () => {
    const userKey = await ws.addKey({ userId: olivia.id });
    expect((await newTask({ title: 'mine' }, userKey.api)).created_by).toBe(olivia.id);
    expect((await newTask({ title: 'nobody' })).created_by).toBeNull();
  });

  it('ignores read-only and unknown fields', async () => {
    const t = await newTask({
      title: 'x',
      id: 'mine',
      completed_at: '2000-01-01T00:00:00Z',
      created_by: olivia.id,
      hacker: 1,
    });
    expect(t.id).not.toBe('mine');
    expect(t.completed_at).toBeNull();
    expect(t.created_by).toBeNull();
    expect(t).not.toHaveProperty('hacker');
  });

  it('a task created as completed is stamped and emits task.completed', async () => {
    const t = await newTask({ title: 'done already', status: 'completed' });
    expect(Date.parse(t.completed_at)).not.toBeNaN();
    expect(await typesOf(t.id)).toEqual(['task.created', 'task.completed']);
  });

  it.each([
    [{ description: 'no title' }, 'title'],
    [{ title: '' }, 'title'],
    [{ title: 'x'.repeat(256) }, 'title'],
    [{ title: 'x', priority: 'critical' }, 'priority'],
    [{ title: 'x', status: 'done' }, 'status'],
    [{ title: 'x', type: 'fax' }, 'type'],
    [{ title: 'x', due_date: 'tomorrow' }, 'due_date'],
    [{ title: 'x', related_to_type: 'contact' }, 'related_to_id'],
    [{ title: 'x', related_to_id: 'con_1' }, 'related_to_type'],
    [{ title: 'x', related_to_type: 'invoice', related_to_id: 'i' }, 'related_to_type'],
    [{ title: 'x', due_date: '2030-01-01', reminder: { type: 'sms', before_minutes: 5 } }, 'reminder.type'],
    [{ title: 'x', due_date: '2030-01-01', reminder: { type: 'push', before_minutes: -1 } }, 'reminder.before_minutes'],
    [
      { title: 'x', due_date: '2030-01-01', reminder: { type: 'push', before_minutes: '5' } },
      'reminder.before_minutes',
    ],
    [{ title: 'x', assignee_id: 42 }, 'assignee_id'],
  ])('rejects %j with 400 naming %s', async (body, field) => {
    const r = await ws.api('POST', '/v1/tasks', body);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
    expect(r.body.error.details[field]).toBeDefined();
  });

  it('400 malformed_request for a body that is not an object', async () => {
    const r = await ws.api('POST', '/v1/tasks', '[1]');
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('malformed_request');
  });

  it('422 for assignees and related records of another workspace, and for a reminder without due date', async () => {
    const foreignUser = await other.addUser('Foreign');
    const foreignContact = await makeContact(other.api);
    const foreignDeal = await makeDeal(other.id, 'theirs');
    const inactive = await ws.addUser('Gone');
    await app.db.prisma.user.update({ where: { id: inactive.id }, data: { active: false } });
    for (const body of [
      { title: 'x', assignee_id: 'ghost' },
      { title: 'x', assignee_id: foreignUser.id },
      { title: 'x', assignee_id: inactive.id },
      { title: 'x', related_to_type: 'contact', related_to_id: 'con_ghost' },
      { title: 'x', related_to_type: 'contact', related_to_id: foreignContact.id },
      { title: 'x', related_to_type: 'deal', related_to_id: foreignDeal.id },
      { title: 'x', reminder: { type: 'email', before_minutes: 10 } },
    ]) {
      const r = await ws.api('POST', '/v1/tasks', body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.error.code).toBe('unprocessable_entity');
    }
  });

  it('a sandbox key keeps its tasks apart but assigns the account users', async () => {
    const sandbox = await ws.addKey({ sandbox: true });
    const t = await newTask({ title: 'sandboxed', assignee_id: sam.id }, sandbox.api);
    expect(t.assignee_name).toBe('Sam Seller');
    expect((await ws.api('GET', `/v1/tasks/${t.id}`)).status).toBe(404);
    expect((await sandbox.api('GET', `/v1/tasks/${t.id}`)).status).toBe(200);
  });
});

describe('read, update, delete', () => {
  it('gets by id; 404 for unknown ids and other workspaces on every route', async () => {
    const t = await newTask({ title: 'mine' });
    const r = await ws.api('GET', `/v1/tasks/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(t);
    expect((await ws.api('GET', '/v1/tasks/task_missing')).body.error.code).toBe('not_found');
    expect((await other.api('GET', `/v1/tasks/${t.id}`)).status).toBe(404);
    expect((await other.api('PUT', `/v1/tasks/${t.id}`, { title: 'x' })).status).toBe(404);
    expect((await other.api('PUT', `/v1/tasks/${t.id}/complete`, {})).status).toBe(404);
    expect((await other.api('DELETE', `/v1/tasks/${t.id}`)).status).toBe(404);
    expect((await ws.api('GET', `/v1/tasks/${t.id}`)).body.data.title).toBe('mine');
  });

  it('partial update changes the given fields and records task.updated with changes and previous values', async () => {
    const t = await newTask({ title: 'Draft', priority: 'low', description: 'keep me' });
    const r = await ws.api('PUT', `/v1/tasks/${t.id}`, { title: 'Final', priority: 'urgent' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({
      title: 'Final',
      priority: 'urgent',
      description: 'keep me',
      status: 'pending',
    });
    const [, updated] = await eventsOf(t.id);
    expect(updated.type).toBe('task.updated');
    expect(updated.data).toMatchObject({
      changes: ['title', 'priority'],
      previous: { title: 'Draft', priority: 'low' },
      task: { title: 'Final' },
    });
  });

  it('an update that changes nothing writes no event', async () => {
    const t = await newTask({ title: 'Same' });
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { title: 'Same' })).status).toBe(200);
    expect(await typesOf(t.id)).toEqual(['task.created']);
  });

  it('reassigning emits task.assigned, unassigning does not; a deactivated assignee does not block edits', async () => {
    const t = await newTask({ title: 'Hand over', assignee_id: sam.id });
    const r = await ws.api('PUT', `/v1/tasks/${t.id}`, { assignee_id: olivia.id });
    expect(r.body.data).toMatchObject({ assignee_id: olivia.id, assignee_name: 'Olivia Owner' });
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { assignee_id: null })).body.data.assignee_name).toBeNull();
    expect(await typesOf(t.id)).toEqual([
      'task.created',
      'task.assigned',
      'task.updated',
      'task.assigned',
      'task.updated',
    ]);
    const assigned = (await eventsOf(t.id)).filter((e) => e.type === 'task.assigned');
    expect(assigned[1].data).toMatchObject({ previous_assignee_id: sam.id });

    const leaver = await ws.addUser('Leaver');
    const t2 = await newTask({ title: 'x', assignee_id: leaver.id });
    await app.db.prisma.user.update({ where: { id: leaver.id }, data: { active: false } });
    expect((await ws.api('PUT', `/v1/tasks/${t2.id}`, { title: 'y', assignee_id: leaver.id })).status).toBe(200);
    expect((await ws.api('PUT', `/v1/tasks/${t2.id}`, { assignee_id: 'ghost' })).status).toBe(422);
  });

  it('any status may be set by PUT; completed_at follows the status', async () => {
    const t = await newTask({ title: 'Flip' });
    const done = await ws.api('PUT', `/v1/tasks/${t.id}`, { status: 'completed' });
    expect(Date.parse(done.body.data.completed_at)).not.toBeNaN();
    const reopened = await ws.api('PUT', `/v1/tasks/${t.id}`, { status: 'in_progress' });
    expect(reopened.body.data).toMatchObject({ status: 'in_progress', completed_at: null });
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { status: 'cancelled' })).body.data.status).toBe('cancelled');
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { status: 'pending' })).body.data.status).toBe('pending');
    expect(await typesOf(t.id)).toEqual([
      'task.created',
      'task.updated',
      'task.completed',
      'task.updated',
      'task.updated',
      'task.updated',
    ]);
  });

  it('moving the due date moves the reminder and re-arms overdue and reminder notices', async () => {
    const t = await newTask({
      title: 'Remind',
      due_date: '2020-01-01T10:00:00Z',
      reminder: { type: 'push', before_minutes: 60 },
    });
    await app.db.prisma.task.update({
      where: { id: t.id },
      data: { overdueNotifiedAt: new Date(), reminderSentAt: new Date() },
    });
    const r = await ws.api('PUT', `/v1/tasks/${t.id}`, { due_date: '2031-05-05T12:00:00Z' });
    expect(r.body.data.reminder).toMatchObject({
      type: 'push',
      before_minutes: 60,
      remind_at: '2031-05-05T11:00:00.000Z',
      sent_at: null,
    });
    const row = await app.db.prisma.task.findUniqueOrThrow({ where: { id: t.id } });
    expect(row.overdueNotifiedAt).toBeNull();
    const cleared = await ws.api('PUT', `/v1/tasks/${t.id}`, { reminder: null });
    expect(cleared.body.data.reminder).toBeNull();
    expect((await app.db.prisma.task.findUniqueOrThrow({ where: { id: t.id } })).reminderAt).toBeNull();
  });

  it('PUT: 400 for bad values, 422 for a reminder left without due date and for unknown related records', async () => {
    const t = await newTask({ title: 'x', due_date: '2030-01-01', reminder: { type: 'email', before_minutes: 5 } });
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { title: null })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { status: null })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { priority: 'asap' })).status).toBe(400);
    expect((await ws.api('PUT', `/v1/tasks/${t.id}`, { due_date: null })).status).toBe(422);
    expect(
      (await ws.api('PUT', `/v1/tasks/${t.id}`, { related_to_type: 'deal', related_to_id: 'deal_ghost' })).status,
    ).toBe(422);
    const moved = await ws.api('PUT', `/v1/tasks/${t.id}`, { due_date: null, reminder: null });
    expect(moved.body.data).toMatchObject({ due_date: null, reminder: null });
  });

  it('complete: sets completed_at and the note; again answers 200 unchanged with no second event', async () => {
    const t = await newTask({ title: 'Finish', status: 'in_progress' });
    const r = await ws.api('PUT', `/v1/tasks/${t.id}/complete`, { completion_note: 'done' });
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ status: 'completed', completion_note: 'done' });
    expect(Date.parse(r.body.data.completed_at)).not.toBeNaN();
    const again = await ws.api('PUT', `/v1/tasks/${t.id}/complete`, { completion_note: 'other' });
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(r.body.data);
    expect(await typesOf(t.id)).toEqual(['task.created', 'task.completed']);
    const noBody = await newTask({ title: 'quick' });
    expect((await ws.api('PUT', `/v1/tasks/${noBody.id}/complete`)).body.data.status).toBe('completed');
  });

  it('complete: 422 for a cancelled task, 400 for a bad note', async () => {
    const t = await newTask({ title: 'Drop', status: 'cancelled' });
    const r = await ws.api('PUT', `/v1/tasks/${t.id}/complete`, {});
    expect(r.status).toBe(422);
    expect(r.body.error.code).toBe('unprocessable_entity');
    expect((await ws.api('PUT', `/v1/tasks/${t.id}/complete`, { completion_note: 5 })).status).toBe(400);
  });

  it('concurrent completions complete once', async () => {
    const t = await newTask({ title: 'Race' });
    const rs = await Promise.all([1, 2, 3].map(() => ws.api('PUT', `/v1/tasks/${t.id}/complete`, {})));
    expect(rs.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await typesOf(t.id)).filter((x) => x === 'task.completed')).toHaveLength(1);
  });

  it('concurrent writes to one task run in turn: one completion event, 404 after a racing delete', async () => {
    const t = await newTask({ title: 'Busy' });
    const puts = await Promise.all([1, 2, 3].map(() => ws.api('PUT', `/v1/tasks/${t.id}`, { status: 'completed' })));
    expect(puts.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await typesOf(t.id)).filter((x) => x === 'task.completed')).toHaveLength(1);
    const [del, put, del2] = await Promise.all([
      ws.api('DELETE', `/v1/tasks/${t.id}`),
      ws.api('PUT', `/v1/tasks/${t.id}`, { title: 'late edit' }),
      ws.api('DELETE', `/v1/tasks/${t.id}`),
    ]);
    expect([del.status, del2.status].sort()).toEqual([200, 404]);
    expect([200, 404]).toContain(put.status);
    expect((await typesOf(t.id)).filter((x) => x === 'task.deleted')).toHaveLength(1);
  });

  it('delete answers {id, deleted:true} and records task.deleted; then 404', async () => {
    const t = await newTask({ title: 'Bye' });
    const r = await ws.api('DELETE', `/v1/tasks/${t.id}`);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual({ id: t.id, deleted: true });
    expect((await ws.api('GET', `/v1/tasks/${t.id}`)).status).toBe(404);
    expect((await ws.api('DELETE', `/v1/tasks/${t.id}`)).status).toBe(404);
    const deleted = (await eventsOf(t.id)).find((e) => e.type === 'task.deleted');
    expect(deleted?.data).toMatchObject({ task: { id: t.id, title: 'Bye' } });
  });

  it('405 for a wrong method on a task path', async () => {
    expect((await ws.api('POST', '/v1/tasks/abc/complete', {})).status).toBe(405);
  });
});

describe('list', () => {
  let lw: TestWorkspace;
  let user: { id: string };
  let deal: { id: string };
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    lw = await app.workspace();
    user = await lw.addUser('Lister');
    deal = await makeDeal(lw.id, 'Listed deal');
    const rows: [string, Record<string, unknown>][] = [
      ['low', { priority: 'low', due_date: '2030-01-03T00:00:00Z', type: 'call' }],
      ['urgent', { priority: 'urgent', due_date: '2030-01-05T00:00:00Z', assignee_id: user.id }],
      ['medium', { priority: 'medium', type: 'email', related_to_type: 'deal', related_to_id: deal.id }],
      ['high', { priority: 'high', due_date: '2030-01-01T00:00:00Z', status: 'in_progress' }],
      ['high2', { priority: 'high', due_date: '2030-01-02T00:00:00Z', assignee_id: user.id }],
      ['urgent2', { priority: 'urgent' }],
    ];
    for (const [name, body] of rows) ids[name] = (await newTask({ title: name, ...body }, lw.api)).id;
  });

  const titles = (r: { body: { data: { title: string }[] } }) => r.body.data.map((t) => t.title);

  async function walk(query: string, limit = 2): Promise<string[]> {
    const out: string[] = [];
    let cursor: string | null = null;
    do {
      const r = await lw.api('GET', `/v1/tasks?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status).toBe(200);
      expect(r.body.meta.total).toBe(6);
      out.push(...titles(r));
      cursor = r.body.meta.next_cursor;
      expect(r.body.meta.has_more).toBe(cursor !== null);
    } while (cursor);
    return out;
  }

  it('sorts by priority by urgency, not alphabetically, across pages', async () => {
    expect(await walk('sort=-priority,due_date')).toEqual(['urgent', 'urgent2', 'high', 'high2', 'medium', 'low']);
    expect(await walk('sort=priority,-due_date', 4)).toEqual(['low', 'medium', 'high2', 'high', 'urgent', 'urgent2']);
  });

  it('sorts by due date with tasks without one last, in both directions', async () => {
    const asc = await walk('sort=due_date', 1);
    expect(asc.slice(0, 4)).toEqual(['high', 'high2', 'low', 'urgent']);
    expect(asc.slice(4).sort()).toEqual(['medium', 'urgent2']);
    const desc = await walk('sort=-due_date,priority', 3);
    expect(desc).toEqual(['urgent', 'low', 'high2', 'high', 'medium', 'urgent2']);
  });

  it('sorts by created_at (default newest first) and updated_at', async () => {
    expect(await walk('sort=created_at')).toEqual(['low', 'urgent', 'medium', 'high', 'high2', 'urgent2']);
    expect(titles(await lw.api('GET', '/v1/tasks'))).toEqual(['urgent2', 'high2', 'high', 'medium', 'urgent', 'low']);
    await lw.api('PUT', `/v1/tasks/${ids.low}`, { title: 'low', description: 'touched' });
    expect((await walk('sort=-updated_at'))[0]).toBe('low');
  });

  it.each([
    [`assignee_id=USER`, ['urgent', 'high2']],
    ['status=in_progress', ['high']],
    ['priority=high', ['high', 'high2']],
    ['type=call', ['low']],
    ['due_before=2030-01-02T00:00:00Z', ['high', 'high2']],
    ['due_after=2030-01-03', ['low', 'urgent']],
    ['related_to_type=deal&related_to_id=DEAL', ['medium']],
    ['priority=urgent&assignee_id=USER', ['urgent']],
  ])('filters %s', async (query, expected) => {
    const r = await lw.api(
      'GET',
      `/v1/tasks?${query.replace('USER', user.id).replace('DEAL', deal.id)}&sort=created_at&limit=100`,
    );
    expect(r.status).toBe(200);
    expect(titles(r)).toEqual(expected);
    expect(r.body.meta.total).toBe(expected.length);
  });

  it('other workspaces see none of them', async () => {
    const r = await other.api('GET', `/v1/tasks?related_to_id=${deal.id}`);
    expect(r.body.data).toEqual([]);
  });

  it.each([
    'status=done',
    'priority=critical',
    'type=fax',
    'related_to_type=invoice',
    'due_before=soon',
    'due_after=2030-13-01',
    'sort=title',
    'sort=-assignee_id',
    'limit=0',
    'limit=101',
    'limit=ten',
    'cursor=garbage',
  ])('400 for %s', async (query) => {
    const r = await lw.api('GET', `/v1/tasks?${query}`);
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('validation_error');
  });

  it('400 for a cursor of another sort order; unknown parameters are ignored', async () => {
    const first = await lw.api('GET', '/v1/tasks?sort=priority&limit=1');
    const r = await lw.api('GET', `/v1/tasks?sort=due_date&cursor=${first.body.meta.next_cursor}`);
    expect(r.status).toBe(400);
    expect((await lw.api('GET', '/v1/tasks?colour=red')).status).toBe(200);
  });
});

describe('scopes', () => {
  it('read_only reads but cannot write', async () => {
    const t = await newTask({ title: 'guarded' });
    const ro = await ws.addKey({ scope: 'read_only' });
    expect((await ro.api('GET', '/v1/tasks')).status).toBe(200);
    expect((await ro.api('GET', `/v1/tasks/${t.id}`)).status).toBe(200);
    for (const [method, path] of [
      ['POST', '/v1/tasks'],
      ['PUT', `/v1/tasks/${t.id}`],
      ['PUT', `/v1/tasks/${t.id}/complete`],
      ['DELETE', `/v1/tasks/${t.id}`],
    ]) {
      const r = await ro.api(method, path, method === 'DELETE' ? undefined : { title: 'x' });
      expect(r.status, `${method} ${path}`).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
  });

  it('custom keys need tasks:read / tasks:write', async () => {
    const t = await newTask({ title: 'guarded' });
    const contactsOnly = await ws.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    expect((await contactsOnly.api('GET', '/v1/tasks')).status).toBe(403);
    expect((await contactsOnly.api('GET', `/v1/tasks/${t.id}`)).status).toBe(403);
    const reader = await ws.addKey({ scope: 'custom', permissions: ['tasks:read'] });
    expect((await reader.api('GET', '/v1/tasks')).status).toBe(200);
    expect((await reader.api('POST', '/v1/tasks', { title: 'x' })).status).toBe(403);
    const writer = await ws.addKey({ scope: 'custom', permissions: ['tasks:write'] });
    expect((await writer.api('POST', '/v1/tasks', { title: 'x' })).status).toBe(201);
    expect((await writer.api('GET', `/v1/tasks/${t.id}`)).status).toBe(200);
  });
});

describe('GraphQL', () => {
  const FIELDS =
    'id title status priority assignee_name related_to { type id name } reminder { type before_minutes } completed_at';

  it('creates, lists, updates, completes and deletes tasks', async () => {
    const created = await gql(
      app.base,
      ws.key,
      `mutation($input: TaskCreateInput!) { createTask(input: $input) { ${FIELDS} assignee { id name } } }`,
      {
        input: { title: 'GQL task', priority: 'high', assignee_id: sam.id },
      },
    );
    const task = created.data.createTask;
    expect(task).toMatchObject({
      title: 'GQL task',
      priority: 'high',
      status: 'pending',
      assignee_name: 'Sam Seller',
      assignee: { id: sam.id },
    });
    const list = await gql(
      app.base,
      ws.key,
      `{ tasks(filter: { assignee_id: "${sam.id}", priority: high }, sort: [priority_desc]) {` +
        ' nodes { id } total has_more } }',
    );
    expect(list.data.tasks.nodes.map((n: { id: string }) => n.id)).toContain(task.id);
    const updated = await gql(
      app.base,
      ws.key,
      `mutation { updateTask(id: "${task.id}", input: { status: in_progress }) { status } }`,
    );
    expect(updated.data.updateTask.status).toBe('in_progress');
    const done = await gql(app.base, ws.key, `mutation { completeTask(id: "${task.id}") { status completed_at } }`);
    expect(done.data.completeTask.status).toBe('completed');
    const one = await gql(app.base, ws.key, `{ task(id: "${task.id}") { completed_at } }`);
    expect(one.data.task.completed_at).toBe(done.data.completeTask.completed_at);
    const gone = await gql(app.base, ws.key, `mutation { deleteTask(id: "${task.id}") { id deleted } }`);
    expect(gone.data.deleteTask).toEqual({ id: task.id, deleted: true });
  });

  it('reports errors with codes', async () => {
    const bad = await gql(app.base, ws.key, 'mutation { createTask(input: { title: "", priority: high }) { id } }');
    expect(bad.errors?.[0].extensions?.code).toBe('validation_error');
    const missing = await gql(app.base, other.key, '{ task(id: "task_missing") { id } }');
    expect(missing.errors?.[0].extensions?.code).toBe('not_found');
    const ro = await ws.addKey({ scope: 'read_only' });
    const denied = await gql(app.base, ro.key, 'mutation { createTask(input: { title: "x" }) { id } }');
    expect(denied.errors?.[0].extensions?.code).toBe('forbidden');
  });

  it('REST and GraphQL write the same events with the same record shape', async () => {
    const contact = await makeContact(ws.api);
    const input = {
      title: 'Same',
      assignee_id: sam.id,
      related_to_type: 'contact',
      related_to_id: contact.id,
      due_date: '2030-02-02T00:00:00Z',
    };
    const viaRest = await newTask(input);
    await ws.api('PUT', `/v1/tasks/${viaRest.id}`, { priority: 'high' });
    await ws.api('PUT', `/v1/tasks/${viaRest.id}/complete`, {});
    await ws.api('DELETE', `/v1/tasks/${viaRest.id}`);
    const viaGql = (
      await gql(app.base, ws.key, 'mutation($input: TaskCreateInput!) { createTask(input: $input) { id } }', { input })
    ).data.createTask;
    await gql(app.base, ws.key, `mutation { updateTask(id: "${viaGql.id}", input: { priority: high }) { id } }`);
    await gql(app.base, ws.key, `mutation { completeTask(id: "${viaGql.id}", input: {}) { id } }`);
    await gql(app.base, ws.key, `mutation { deleteTask(id: "${viaGql.id}") { id } }`);
    const [a, b] = await Promise.all([eventsOf(viaRest.id), eventsOf(viaGql.id)]);
    const shape = (events: typeof a) =>
      events.map((e) => ({
        type: e.type,
        contactId: e.contactId,
        keys: Object.keys(e.data as object).sort(),
        taskKeys: Object.keys((e.data as { task: object }).task).sort(),
      }));
    expect(shape(a)).toEqual(shape(b));
    expect(a.map((e) => e.type)).toEqual([
      'task.created',
      'task.assigned',
      'task.updated',
      'task.completed',
      'task.deleted',
    ]);
    expect(a.every((e) => e.contactId === contact.id)).toBe(true);
    // The event carries the same record the REST API answers with.
    const { reminder: _r, ...record } = viaRest;
    expect((a[0].data as { task: object }).task).toMatchObject(record);
  });
});
