// Time-driven task notifications, run inside the service every few seconds:
//  - task.overdue, once per task, when its due date passes while it is still open;
//  - reminders, once per task, at due_date - before_minutes, on the assignee's chosen channel.
// Several instances may run this at once. Each batch claims its rows with
// FOR UPDATE SKIP LOCKED and marks them in the same statement, so two instances never
// claim the same task, and a task once marked is never claimed again.
import { Prisma } from '../db/generated/client/client.ts';
import type { Db } from '../db/client.ts';
import type { Actor } from '../events/outbox.ts';
import { OPEN_STATUSES } from '../schema/task/task.rules.ts';
import { loadTaskViews } from '../records/task.ts';
import { recordTaskEvent } from '../schema/task/task.write.ts';
import { taskOverdue } from '../events/catalogue/task.events.ts';
import { notificationPreferences, type NotificationChannel } from '../schema/user/preferences.rules.ts';

const BATCH = 100;
const ACTOR: Actor = { type: 'system', id: 'task-scheduler', name: 'Task scheduler' };
const OPEN = Prisma.join([...OPEN_STATUSES]);

export interface JobLogger {
  info(obj: object, msg: string): void;
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SchedulerDeps {
  prisma: Db;
  logger: JobLogger;
}

export interface RunResult {
  overdue: number;
  remindersSent: number;
  remindersSkipped: number;
}

/** Marks up to BATCH newly overdue tasks and records their events, all in one transaction. */
function overdueBatch(prisma: Db, now: Date): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const claimed = await tx.$queryRaw<{ id: string }[]>`
      UPDATE tasks SET overdue_notified_at = ${now}
      WHERE id IN (
        SELECT id FROM tasks
        WHERE due_date < ${now} AND status IN (${OPEN}) AND overdue_notified_at IS NULL
        ORDER BY due_date LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED)
      RETURNING id`;
    if (claimed.length === 0) return 0;
    const tasks = await tx.task.findMany({
      where: { id: { in: claimed.map((c) => c.id) } },
      orderBy: { dueDate: 'asc' },
    });
    for (const view of await loadTaskViews(tx, tasks)) await recordTaskEvent(tx, view, taskOverdue.build(view), ACTOR);
    return claimed.length;
  });
}

interface ClaimedReminder {
  id: string;
  workspace_id: string;
  title: string;
  due_date: Date;
  reminder_type: string;
  assignee_id: string;
  active: boolean;
  notification_preferences: unknown;
}

/**
 * Marks up to BATCH due reminders as handled. A task without an assignee keeps its reminder
 * until it gets one. A reminder whose channel the assignee switched off (or whose assignee
 * is deactivated) is handled by not sending it: its moment has passed.
 */
function reminderBatch(prisma: Db, now: Date): Promise<ClaimedReminder[]> {
  return prisma.$transaction(
    (tx) => tx.$queryRaw<ClaimedReminder[]>`
      UPDATE tasks t SET reminder_sent_at = ${now}
      FROM users u
      WHERE u.id = t.assignee_id AND t.id IN (
        SELECT id FROM tasks
        WHERE reminder_at <= ${now} AND reminder_sent_at IS NULL AND assignee_id IS NOT NULL AND status IN (${OPEN})
        ORDER BY reminder_at LIMIT ${BATCH}
        FOR UPDATE SKIP LOCKED)
      RETURNING t.id, t.workspace_id, t.title, t.due_date, t.reminder_type, t.assignee_id,
        u.active, u.notification_preferences`,
  );
}

const wants = (r: ClaimedReminder) =>
  r.active && notificationPreferences(r.notification_preferences)[r.reminder_type as NotificationChannel] === true;

/** One pass: every newly overdue task and every due reminder, in batches until none is left. */
export async function runOnce(deps: SchedulerDeps, now: Date = new Date()): Promise<RunResult> {
  const result: RunResult = { overdue: 0, remindersSent: 0, remindersSkipped: 0 };
  for (;;) {
    const n = await overdueBatch(deps.prisma, now);
    result.overdue += n;
    if (n < BATCH) break;
  }
  for (;;) {
    const batch = await reminderBatch(deps.prisma, now);
    for (const r of batch) {
      // Sent after the claim committed: at most once, never twice, even across instances.
      // No e-mail or push transport exists yet, so "sending" is this log line; a transport
      // would be called here with the same fields.
      if (wants(r)) {
        deps.logger.info(
          {
            task_id: r.id,
            workspace_id: r.workspace_id,
            user_id: r.assignee_id,
            channel: r.reminder_type,
            title: r.title,
            due_date: r.due_date,
          },
          'task reminder',
        );
        result.remindersSent++;
      } else {
        deps.logger.debug(
          { task_id: r.id, user_id: r.assignee_id, channel: r.reminder_type },
          'task reminder not sent: channel off or user inactive',
        );
        result.remindersSkipped++;
      }
    }
    if (batch.length < BATCH) break;
  }
  return result;
}

export interface TaskScheduler {
  /** Waits for a run in progress, then no further run starts. */
  stop(): Promise<void>;
}

/** Runs at start, then intervalMs after each run ends (runs never overlap). 0 disables it. */
export function startTaskScheduler(deps: SchedulerDeps & { intervalMs: number }): TaskScheduler {
  if (deps.intervalMs <= 0) {
    deps.logger.info({}, 'task scheduler disabled (SCHEDULER_INTERVAL_MS=0)');
    return { stop: async () => {} };
  }
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const tick = () => {
    running = runOnce(deps)
      .then((r) => {
        if (r.overdue || r.remindersSent || r.remindersSkipped) deps.logger.debug({ ...r }, 'task scheduler run');
      })
      .catch((err: unknown) => deps.logger.error({ err }, 'task scheduler run failed'))
      .finally(() => {
        running = undefined;
        // unref: a pending run must not keep the process alive on its own.
        if (!stopped) timer = setTimeout(tick, deps.intervalMs).unref();
      });
  };
  timer = setTimeout(tick, 0).unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
