// Task state rules. Pure: the writes load the task, ask these, then write and record events.
import type { Task } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';
import { TASK_PRIORITIES } from '../../records/task.ts';

/** Statuses of a task still to be done: it can be completed, become overdue and remind. */
export const OPEN_STATUSES = ['pending', 'in_progress'] as const;
export const isOpen = (status: string): boolean => (OPEN_STATUSES as readonly string[]).includes(status);

/**
 * PUT /tasks/:id/complete: an open task is completed; a completed one is answered as it is
 * (idempotent, no second event); a cancelled one cannot be completed (422).
 */
export function completion(status: string): 'complete' | 'unchanged' {
  if (isOpen(status)) return 'complete';
  if (status === 'completed') return 'unchanged';
  throw new AppError('unprocessable_entity', `A ${status} task cannot be completed; set its status to pending first`, {
    status: [`is ${status}`],
  });
}

/**
 * completed_at follows the status, whichever way it was set (PUT or /complete): stamped on
 * entering completed, kept while completed, cleared when the task is reopened or cancelled.
 */
export function completedAtAfter(
  before: Pick<Task, 'status' | 'completedAt'> | null,
  status: string,
  now: Date,
): Date | null {
  if (status !== 'completed') return null;
  return before?.status === 'completed' ? before.completedAt : now;
}

/** task.completed fires on entering completed, never for a task that already was. */
export const becameCompleted = (before: string | null, after: string): boolean =>
  after === 'completed' && before !== 'completed';

/** task.assigned fires when a task gets an assignee it did not have (on create too), not on unassignment. */
export const newlyAssigned = (before: string | null, after: string | null): boolean =>
  after !== null && after !== before;

/** When a reminder fires: before_minutes ahead of the due date, so a reminder needs a due date. */
export function reminderAt(dueDate: Date | null, reminder: { before_minutes: number } | null): Date | null {
  if (!reminder) return null;
  if (!dueDate) {
    throw new AppError('unprocessable_entity', 'A reminder needs a due date', {
      reminder: ['requires the task to have a due_date'],
    });
  }
  return new Date(dueDate.getTime() - reminder.before_minutes * 60_000);
}

/**
 * A moved due date may pass again, and a moved reminder may fire again: the scheduler's
 * "already notified" marks are cleared when what they refer to changes.
 */
export function notificationResets(
  before: Pick<Task, 'dueDate' | 'reminderAt'>,
  after: Pick<Task, 'dueDate' | 'reminderAt'>,
): Partial<Pick<Task, 'overdueNotifiedAt' | 'reminderSentAt'>> {
  const same = (a: Date | null, b: Date | null) => (a?.getTime() ?? null) === (b?.getTime() ?? null);
  return {
    ...(same(before.dueDate, after.dueDate) ? {} : { overdueNotifiedAt: null }),
    ...(same(before.reminderAt, after.reminderAt) ? {} : { reminderSentAt: null }),
  };
}

/** 1 (low) to 4 (urgent): priority sorts by urgency. */
export const priorityRank = (priority: string): number => (TASK_PRIORITIES as readonly string[]).indexOf(priority) + 1;

/** The columns behind each API field an update can change. */
const API_FIELDS: Record<string, (keyof Task)[]> = {
  title: ['title'],
  description: ['description'],
  status: ['status'],
  priority: ['priority'],
  type: ['type'],
  assignee_id: ['assigneeId'],
  due_date: ['dueDate'],
  related_to: ['relatedToType', 'relatedToId'],
  reminder: ['reminderType', 'reminderBeforeMinutes'],
  completed_at: ['completedAt'],
  external_id: ['externalId'],
};

/** The API fields whose stored value differs between two versions of a task. */
export function changedFields(before: Task, after: Task): string[] {
  return Object.entries(API_FIELDS)
    .filter(([, columns]) => columns.some((c) => JSON.stringify(before[c]) !== JSON.stringify(after[c])))
    .map(([api]) => api);
}
