// Tasks in batches (POST /v1/tasks/batch, batchTasks): upserts by external_id, each operation
// through the single-record writes, so it records the same events.
import { AppError } from '../../errors.ts';
import { batchMutation } from '../batch/batch.type.ts';
import type { BatchResource } from '../batch/batch.run.ts';
import { taskCreateInput, taskUpdateInput, type TaskCreateInput, type TaskUpdateInput } from './task.inputs.ts';
import { createTask, deleteTask, updateTask } from './task.write.ts';
import { UPSERT_KEYS } from '../../records/upsert-keys.ts';

export const taskBatch: BatchResource<TaskCreateInput, TaskUpdateInput> = {
  noun: 'task',
  createInput: taskCreateInput,
  updateInput: taskUpdateInput,
  uniqueKeys: ['external_id'],
  prepare: async () => {},
  async find(tx, ctx, key, value) {
    const found = await tx.task.findFirst({
      where: { workspaceId: ctx.caller.workspaceId, [key === 'id' ? 'id' : 'externalId']: value },
      select: { id: true },
    });
    return found?.id ?? null;
  },
  create: (tx, ctx, input) => createTask(tx, ctx, input),
  update: (tx, ctx, id, input) => updateTask(tx, ctx, id, input),
  remove: async (tx, ctx, id) => {
    await deleteTask(tx, ctx, id);
  },
  refusals: { uniqueViolation: () => new AppError('conflict', 'A task with these values already exists') },
};

export const taskBatchInput = batchMutation(
  'batchTasks',
  'tasks',
  { typeName: 'Task', plural: 'tasks', data: taskUpdateInput, upsertKeys: UPSERT_KEYS.tasks },
  taskBatch,
);
