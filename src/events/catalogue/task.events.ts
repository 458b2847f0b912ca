// Task events. `data.task` is the task after the change (before it, for a deletion).
import { z } from 'zod';
import { taskRecord, type TaskView } from '../../records/task.ts';
import { defineEvent } from './define.ts';
import { changedFields, previousValues, TaskRecordSchema } from './records.ts';
import { sampleTask } from './samples.ts';

export type TaskField = keyof ReturnType<typeof taskRecord>;

const taskOnly = z.object({ task: TaskRecordSchema });

const plain = (name: 'task.created' | 'task.overdue' | 'task.deleted', description: string, sample: () => TaskView) =>
  defineEvent({
    name,
    entityType: 'task',
    description,
    data: taskOnly,
    build: (task: TaskView) => ({ task: taskRecord(task) }),
    sampleInput: sample,
  });

export const taskCreated = plain('task.created', 'A task was created.', () => sampleTask());

export const taskUpdated = defineEvent({
  name: 'task.updated',
  entityType: 'task',
  description: 'Fields of a task changed; `changes` names them and `previous` holds their values before.',
  data: z.object({
    task: TaskRecordSchema,
    changes: changedFields(TaskRecordSchema),
    previous: previousValues(TaskRecordSchema),
  }),
  build: ({ task, before, changes }: { task: TaskView; before: TaskView; changes: TaskField[] }) => {
    const was = taskRecord(before);
    return { task: taskRecord(task), changes, previous: Object.fromEntries(changes.map((f) => [f, was[f] ?? null])) };
  },
  sampleInput: () => ({
    task: sampleTask({ priority: 'high' }),
    before: sampleTask(),
    changes: ['priority'] as TaskField[],
  }),
});

export const taskAssigned = defineEvent({
  name: 'task.assigned',
  entityType: 'task',
  description: 'A task was given an assignee, at creation or by reassignment.',
  data: z.object({
    task: TaskRecordSchema,
    previous_assignee_id: z.string().nullable().describe('The assignee before; null when the task had none'),
  }),
  build: ({ task, previousAssigneeId }: { task: TaskView; previousAssigneeId: string | null }) => ({
    task: taskRecord(task),
    previous_assignee_id: previousAssigneeId,
  }),
  sampleInput: () => ({ task: sampleTask(), previousAssigneeId: null }),
});

export const taskCompleted = defineEvent({
  name: 'task.completed',
  entityType: 'task',
  description: 'A task was completed (by the complete action, an update or at creation).',
  data: z.object({
    task: TaskRecordSchema,
    completion_note: z.string().optional().describe('Present when the complete action was given a note'),
  }),
  build: ({ task, note }: { task: TaskView; note?: string | null }) => ({
    task: taskRecord(task),
    ...(note ? { completion_note: note } : {}),
  }),
  sampleInput: () => ({
    task: sampleTask({ status: 'completed', completedAt: new Date(), completionNote: 'Called back' }),
    note: 'Called back',
  }),
});

export const taskOverdue = plain(
  'task.overdue',
  "A task's due date passed while it was still open (once per task, and again after its due date changes).",
  () =>
    sampleTask({
      dueDate: new Date(Date.now() - 3_600_000),
      reminderAt: new Date(Date.now() - 5_400_000),
      reminderSentAt: new Date(Date.now() - 5_400_000),
    }),
);

export const taskDeleted = plain('task.deleted', 'A task was deleted; `data.task` is the task as it was.', () =>
  sampleTask(),
);
