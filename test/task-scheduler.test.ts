import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../src/db/client.ts';
import { newId } from '../src/ids.ts';
import { runOnce, startTaskScheduler, type JobLogger, type SchedulerDeps } from '../src/jobs/task-scheduler.ts';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';

// The scheduler works on every workspace of its database: an isolated database keeps other
// test files' tasks out of its way (and their event counts out of its reach).
let app: TestApp;
let ws: TestWorkspace;
/** A second instance: on PostgreSQL its own connection pool on the same schema; PGlite has one connection. */
let second: Database | null = null;

interface Logged {
  level: 'info' | 'debug' | 'error';
  obj: Record<string, unknown>;
  msg: string;
}

function recordingLogger(): JobLogger & { lines: Logged[] } {
  const lines: Logged[] = [];
  const at = (level: Logged['level']) => (obj: object, msg: string) =>
    void lines.push({ level, obj: obj as Record<string, unknown>, msg });
  return { lines, info: at('info'), debug: at('debug'), error: at('error') };
}

const minutesFromNow = (m: number) => new Date(Date.now() + m * 60_000).toISOString();

const test = withAppOptions({ isolated: true });
test.beforeAll(async ({ app: started, ws: main }) => {
  app = started;
  ws = main;
  if (process.env.DATABASE_URL) {
    const [{ schema }] = await app.db.prisma.$queryRaw<{ schema: string }[]>`SELECT current_schema() AS schema`;
    second = await openDatabase({ databaseUrl: process.env.DATABASE_URL, schema, poolSize: 4 });
  }
});
afterAll(async () => {
  await second?.close();
});

const deps = (logger = recordingLogger()): SchedulerDeps & { logger: ReturnType<typeof recordingLogger> } => ({
  prisma: app.db.prisma,
  logger,
});
const otherInstance = (logger = recordingLogger()) => ({ prisma: (second ?? app.db).prisma, logger });

async function task(body: Record<string, unknown>) {
  const r = await ws.api('POST', '/v1/tasks', body);
  expect(r.status).toBe(201);
  return r.body.data as { id: string };
}

const overdueEvents = (taskId: string) =>
  app.db.prisma.event.findMany({ where: { entityId: taskId, type: 'task.overdue' } });

describe('overdue', () => {
  it('emits task.overdue once for open tasks whose due date passed', async () => {
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Late', email: uniqueEmail('late') })).body
      .data;
    const late = await task({
      title: 'late',
      due_date: minutesFromNow(-60),
      related_to_type: 'contact',
      related_to_id: contact.id,
    });
    const lateInProgress = await task({ title: 'late too', status: 'in_progress', due_date: minutesFromNow(-5) });
    const done = await task({ title: 'done', status: 'completed', due_date: minutesFromNow(-60) });
    const cancelled = await task({ title: 'cancelled', status: 'cancelled', due_date: minutesFromNow(-60) });
    const future = await task({ title: 'future', due_date: minutesFromNow(60) });
    const undated = await task({ title: 'undated' });

    expect((await runOnce(deps())).overdue).toBe(2);
    const [event] = await overdueEvents(late.id);
    expect(event).toMatchObject({ contactId: contact.id, actor: { type: 'system', id: 'task-scheduler' } });
    expect(event.data).toMatchObject({
      task: {
        id: late.id,
        title: 'late',
        status: 'pending',
        related_to: { type: 'contact', id: contact.id, name: 'Late' },
      },
    });
    expect(await overdueEvents(lateInProgress.id)).toHaveLength(1);
    for (const t of [done, cancelled, future, undated]) expect(await overdueEvents(t.id)).toHaveLength(0);

    expect((await runOnce(deps())).overdue).toBe(0);
    expect(await overdueEvents(late.id)).toHaveLength(1);
    // Bookkeeping is not an edit: updated_at stays.
    const row = await app.db.prisma.task.findUniqueOrThrow({ where: { id: late.id } });
    expect(row.overdueNotifiedAt).not.toBeNull();
    expect(row.updatedAt.getTime()).toBeLessThan(row.overdueNotifiedAt!.getTime());
  });

  it('fires again after the due date is moved and passes again', async () => {
    const t = await task({ title: 'moved', due_date: minutesFromNow(-10) });
    await runOnce(deps());
    await ws.api('PUT', `/v1/tasks/${t.id}`, { due_date: minutesFromNow(-1) });
    await runOnce(deps());
    expect(await overdueEvents(t.id)).toHaveLength(2);
  });

  it('two schedulers running at once emit each overdue event exactly once', async () => {
    const workspaceId = ws.id;
    const past = new Date(Date.now() - 3_600_000);
    const rows = Array.from({ length: 250 }, (_, i) => ({
      id: newId('task'),
      workspaceId,
      title: `bulk ${i}`,
      dueDate: past,
    }));
    await app.db.prisma.task.createMany({ data: rows });

    const [a, b] = await Promise.all([runOnce(deps()), runOnce(otherInstance())]);
    expect(a.overdue + b.overdue).toBe(250);
    const perTask = await app.db.prisma.event.groupBy({
      by: ['entityId'],
      where: { type: 'task.overdue', entityId: { in: rows.map((r) => r.id) } },
      _count: { _all: true },
    });
    expect(perTask).toHaveLength(250);
    expect(perTask.every((g) => g._count._all === 1)).toBe(true);
  });
});

describe('reminders', () => {
  it('fire once on the assignee channels that are switched on', async () => {
    const keen = await ws.addUser('Keen');
    const quiet = await ws.addUser('Quiet');
    const pref = await ws.api('PUT', `/v1/users/${quiet.id}/notification-preferences`, { email: false });
    expect(pref.body.data.notification_preferences).toEqual({ email: false, push: true });

    const due = minutesFromNow(10);
    const toKeen = await task({
      title: 'keen email',
      assignee_id: keen.id,
      due_date: due,
      reminder: { type: 'email', before_minutes: 30 },
    });
    const quietEmail = await task({
      title: 'quiet email',
      assignee_id: quiet.id,
      due_date: due,
      reminder: { type: 'email', before_minutes: 30 },
    });
    const quietPush = await task({
      title: 'quiet push',
      assignee_id: quiet.id,
      due_date: due,
      reminder: { type: 'push', before_minutes: 30 },
    });
    const nobody = await task({ title: 'nobody', due_date: due, reminder: { type: 'email', before_minutes: 30 } });
    const later = await task({
      title: 'later',
      assignee_id: keen.id,
      due_date: due,
      reminder: { type: 'email', before_minutes: 5 },
    });
    const finished = await task({
      title: 'finished',
      status: 'completed',
      assignee_id: keen.id,
      due_date: due,
      reminder: { type: 'email', before_minutes: 30 },
    });

    const one = deps();
    const two = otherInstance();
    const [ra, rb] = await Promise.all([runOnce(one), runOnce(two)]);
    expect(ra.remindersSent + rb.remindersSent).toBe(2);
    expect(ra.remindersSkipped + rb.remindersSkipped).toBe(1);
    const sent = [...one.logger.lines, ...two.logger.lines].filter(
      (l) => l.level === 'info' && l.msg === 'task reminder',
    );
    expect(sent.map((l) => [l.obj.task_id, l.obj.channel, l.obj.user_id]).sort()).toEqual(
      [
        [toKeen.id, 'email', keen.id],
        [quietPush.id, 'push', quiet.id],
      ].sort(),
    );

    const sentAt = async (id: string) => (await app.db.prisma.task.findUniqueOrThrow({ where: { id } })).reminderSentAt;
    expect(await sentAt(toKeen.id)).not.toBeNull();
    expect(await sentAt(quietEmail.id)).not.toBeNull(); // handled by not sending
    expect(await sentAt(nobody.id)).toBeNull(); // waits for an assignee
    expect(await sentAt(later.id)).toBeNull();
    expect(await sentAt(finished.id)).toBeNull();
    expect((await ws.api('GET', `/v1/tasks/${toKeen.id}`)).body.data.reminder.sent_at).not.toBeNull();

    const again = deps();
    expect(await runOnce(again)).toMatchObject({ remindersSent: 0, remindersSkipped: 0 });

    await ws.api('PUT', `/v1/tasks/${nobody.id}`, { assignee_id: keen.id });
    expect((await runOnce(deps())).remindersSent).toBe(1);
  });
});

describe('startTaskScheduler', () => {
  it('runs by itself until stopped', async () => {
    const t = await task({ title: 'timed', due_date: minutesFromNow(-1) });
    const scheduler = startTaskScheduler({ ...deps(), intervalMs: 20 });
    try {
      await expect.poll(() => overdueEvents(t.id), { timeout: 5_000, interval: 50 }).toHaveLength(1);
    } finally {
      await scheduler.stop();
    }
    const t2 = await task({ title: 'after stop', due_date: minutesFromNow(-1) });
    await new Promise((r) => setTimeout(r, 100));
    expect(await overdueEvents(t2.id)).toHaveLength(0);
  });

  it('is disabled by an interval of 0', async () => {
    const logger = recordingLogger();
    await startTaskScheduler({ prisma: app.db.prisma, logger, intervalMs: 0 }).stop();
    expect(logger.lines[0].msg).toMatch(/disabled/);
  });
});
