// The task writes: each runs inside the caller's transaction and records its events there.
import type { Prisma, Task } from '../../db/generated/client/client.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { recordEvent, type Actor } from '../../events/outbox.ts';
import type { BuiltEvent } from '../../events/catalogue/define.ts';
import {
  taskAssigned,
  taskCompleted,
  taskCreated,
  taskDeleted,
  taskUpdated,
  type TaskField,
} from '../../events/catalogue/task.events.ts';
import { actorOf, type Context } from '../context.ts';
import { assertActiveUser } from '../user/user.rules.ts';
import type { ReminderInput, TaskCreateInput, TaskUpdateInput } from './task.inputs.ts';
import {
  becameCompleted,
  changedFields,
  completedAtAfter,
  completion,
  newlyAssigned,
  notificationResets,
  reminderAt,
} from './task.rules.ts';
import { loadTaskView, loadTaskViews, type TaskView } from '../../records/task.ts';
import type { Refusals } from '../../db/transaction.ts';
import { externalIdTaken, onExternalId } from '../common/external-id.ts';
import { assertLockedVersion } from '../common/versions.ts';

type Tx = Prisma.TransactionClient;

export async function findTask(db: Pick<Tx, 'task'>, ctx: Context, id: string): Promise<Task> {
  const task = await db.task.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!task) throw notFound('Task');
  return task;
}

/**
 * Loads a task for a write and holds its row lock until the transaction ends, so concurrent
 * writes to one task run one after the other, each seeing the previous one's result: a task
 * is completed (or deleted) once, with one event, and a write racing a delete answers 404.
 */
async function lockTask(tx: Tx, ctx: Context, id: string, expectedVersion?: number | null): Promise<Task> {
  await tx.$queryRaw`SELECT id FROM tasks WHERE id = ${id} AND workspace_id = ${ctx.caller.workspaceId} FOR UPDATE`;
  const task = await findTask(tx, ctx, id);
  // The row is locked: its version stays what it is until this transaction ends.
  assertLockedVersion(task, expectedVersion);
  return task;
}

/**
 * What a unique violation of a task write means: its external_id is another task's, named in the
 * answer (looked up after the write's transaction).
 */
export function taskRefusals(ctx: Context, externalId: string | null | undefined): Refusals {
  return {
    uniqueViolation: async (columns) => {
      if (!onExternalId(columns) || !externalId) return new AppError('conflict', 'The task conflicts with another');
      return externalIdTaken('task', () =>
        ctx.prisma.task.findFirst({ where: { workspaceId: ctx.caller.workspaceId, externalId }, select: { id: true } }),
      );
    },
  };
}

/** How many records of the workspace a related kind has with an id; projects live elsewhere. */
const relatedCount: Record<string, (tx: Tx, where: { id: string; workspaceId: string }) => Promise<number>> = {
  contact: (tx, where) => tx.contact.count({ where }),
  // Under a key-share lock, as a foreign key would take: a merge or deletion of the company
  // (which locks it first) then finishes before this task is written, and the task sees it gone.
  company: async (tx, where) =>
    (
      await tx.$queryRaw<unknown[]>`
        SELECT id FROM companies WHERE id = ${where.id} AND workspace_id = ${where.workspaceId} FOR KEY SHARE`
    ).length,
  deal: (tx, where) => tx.deal.count({ where }),
};

/**
 * A task about a contact, company or deal must name one of this workspace (422); projects live
 * elsewhere and are taken as given.
 */
async function assertRelatedExists(tx: Tx, ctx: Context, type: string | null, id: string | null): Promise<void> {
  if (!type || !id) return;
  const count = relatedCount[type];
  const found = count ? await count(tx, { id, workspaceId: ctx.caller.workspaceId }) : 1;
  if (!found)
    throw new AppError('unprocessable_entity', `related_to_id does not name a ${type} of this workspace`, {
      related_to_id: [`unknown ${type}`],
    });
}

/** Task events show on the timeline of the contact the task is about. */
export async function recordTaskEvent(tx: Tx, view: TaskView, event: BuiltEvent, actor: Actor | null) {
  await recordEvent(tx, {
    ...event,
    workspaceId: view.workspaceId,
    contactId: view.relatedToType === 'contact' ? view.relatedToId : null,
    actor,
  });
}

const reminderColumns = (r: ReminderInput | null) => ({
  reminderType: r?.type ?? null,
  reminderBeforeMinutes: r?.before_minutes ?? null,
});

export async function createTask(tx: Tx, ctx: Context, input: TaskCreateInput): Promise<TaskView> {
  await assertActiveUser(tx, ctx, input.assignee_id, 'assignee_id');
  await assertRelatedExists(tx, ctx, input.related_to_type ?? null, input.related_to_id ?? null);
  const dueDate = input.due_date ?? null;
  const reminder = input.reminder ?? null;
  const status = input.status ?? 'pending';
  const task = await tx.task.create({
    data: {
      id: newId('task'),
      workspaceId: ctx.caller.workspaceId,
      title: input.title,
      description: input.description ?? null,
      status,
      priority: input.priority ?? 'medium',
      type: input.type ?? 'todo',
      assigneeId: input.assignee_id ?? null,
      dueDate,
      relatedToType: input.related_to_type ?? null,
      relatedToId: input.related_to_id ?? null,
      ...reminderColumns(reminder),
      reminderAt: reminderAt(dueDate, reminder),
      completedAt: completedAtAfter(null, status, new Date()),
      createdBy: ctx.caller.userId,
      externalId: input.external_id ?? null,
    },
  });
  const view = await loadTaskView(tx, task);
  const actor = actorOf(ctx);
  await recordTaskEvent(tx, view, taskCreated.build(view), actor);
  if (newlyAssigned(null, task.assigneeId))
    await recordTaskEvent(tx, view, taskAssigned.build({ task: view, previousAssigneeId: null }), actor);
  if (becameCompleted(null, status)) await recordTaskEvent(tx, view, taskCompleted.build({ task: view }), actor);
  return view;
}

/** PUT semantics per the product decisions: any field, any status; only given fields change. */
export async function updateTask(
  tx: Tx,
  ctx: Context,
  id: string,
  input: TaskUpdateInput,
  expectedVersion?: number | null,
): Promise<TaskView> {
  const before = await lockTask(tx, ctx, id, expectedVersion);
  // An unchanged assignee who has since been deactivated does not block other edits.
  if (input.assignee_id !== before.assigneeId) await assertActiveUser(tx, ctx, input.assignee_id, 'assignee_id');
  // related_to_type and related_to_id change together (the input rule asks for both or neither).
  const relatedGiven = input.related_to_type !== undefined || input.related_to_id !== undefined;
  const relatedToType = relatedGiven ? (input.related_to_type ?? null) : before.relatedToType;
  const relatedToId = relatedGiven ? (input.related_to_id ?? null) : before.relatedToId;
  if (relatedToType !== before.relatedToType || relatedToId !== before.relatedToId)
    await assertRelatedExists(tx, ctx, relatedToType, relatedToId);

  const dueDate = input.due_date !== undefined ? input.due_date : before.dueDate;
  const stored: ReminderInput | null =
    before.reminderType && before.reminderBeforeMinutes !== null
      ? { type: before.reminderType as ReminderInput['type'], before_minutes: before.reminderBeforeMinutes }
      : null;
  const reminder = input.reminder !== undefined ? input.reminder : stored;
  const status = input.status ?? before.status;
  const schedule = { dueDate, reminderAt: reminderAt(dueDate, reminder) };
  const after = await tx.task.update({
    where: { id },
    data: {
      title: input.title,
      description: input.description,
      status,
      priority: input.priority,
      type: input.type,
      assigneeId: input.assignee_id,
      relatedToType,
      relatedToId,
      ...reminderColumns(reminder),
      ...schedule,
      ...notificationResets(before, schedule),
      completedAt: completedAtAfter(before, status, new Date()),
      externalId: input.external_id,
    },
  });

  const changes = changedFields(before, after);
  const [beforeView, view] = await loadTaskViews(tx, [before, after]);
  if (changes.length === 0) return view;
  const actor = actorOf(ctx);
  // changedFields names task record fields (its API_FIELDS).
  await recordTaskEvent(
    tx,
    view,
    taskUpdated.build({ task: view, before: beforeView, changes: changes as TaskField[] }),
    actor,
  );
  if (newlyAssigned(before.assigneeId, after.assigneeId))
    await recordTaskEvent(tx, view, taskAssigned.build({ task: view, previousAssigneeId: before.assigneeId }), actor);
  if (becameCompleted(before.status, after.status))
    await recordTaskEvent(tx, view, taskCompleted.build({ task: view }), actor);
  return view;
}

export async function completeTask(
  tx: Tx,
  ctx: Context,
  id: string,
  note: string | null | undefined,
  expectedVersion?: number | null,
): Promise<TaskView> {
  const before = await lockTask(tx, ctx, id, expectedVersion);
  if (completion(before.status) === 'unchanged') return loadTaskView(tx, before);
  const after = await tx.task.update({
    where: { id },
    data: {
      status: 'completed',
      completedAt: completedAtAfter(before, 'completed', new Date()),
      completionNote: note ?? null,
    },
  });
  const view = await loadTaskView(tx, after);
  await recordTaskEvent(tx, view, taskCompleted.build({ task: view, note }), actorOf(ctx));
  return view;
}

export async function deleteTask(
  tx: Tx,
  ctx: Context,
  id: string,
  expectedVersion?: number | null,
): Promise<{ id: string; deleted: true }> {
  const task = await lockTask(tx, ctx, id, expectedVersion);
  const view = await loadTaskView(tx, task);
  await tx.task.delete({ where: { id } });
  await recordTaskEvent(tx, view, taskDeleted.build(view), actorOf(ctx));
  return { id, deleted: true };
}
