import { assertAllowed } from '../../auth/scopes.ts';
import { builder } from '../builder.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import { taskCompleteInput, taskCreateInput, taskUpdateInput } from './task.inputs.ts';
import { TaskType } from './task.type.ts';
import { completeTask, createTask, deleteTask, taskRefusals, updateTask } from './task.write.ts';
import { EXPECTED_VERSION_HELP } from '../common/versions.ts';
import { zodInput } from '../common/zod-input.ts';
import { transaction } from '../../db/transaction.ts';

const TaskCreateInput = zodInput(
  'TaskCreateInput',
  taskCreateInput,
  'A new task: title is required; related_to_type and related_to_id go together.',
);
const TaskUpdateInput = zodInput(
  'TaskUpdateInput',
  taskUpdateInput,
  'Fields to change, any status included; those left out keep their values.',
);
const TaskCompleteInput = zodInput(
  'TaskCompleteInput',
  taskCompleteInput,
  'An optional note on how the task was done.',
);

builder.mutationFields((t) => ({
  createTask: t.field({
    type: TaskType,
    description: 'Creates a task (title required).',
    args: { input: t.arg({ type: TaskCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'write');
      const input = parseInput(taskCreateInput, args.input);
      return transaction(ctx.prisma, (tx) => createTask(tx, ctx, input), taskRefusals(ctx, input.external_id));
    },
  }),
  updateTask: t.field({
    type: TaskType,
    description: 'Partial update: only the fields given change. Any status may be set.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: TaskUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'write');
      const input = parseInput(taskUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => updateTask(tx, ctx, String(args.id), input, args.expected_version),
        taskRefusals(ctx, input.external_id),
      );
    },
  }),
  completeTask: t.field({
    type: TaskType,
    description:
      'Completes a pending or in-progress task. A completed task is returned unchanged; a cancelled one is refused.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: TaskCompleteInput }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'write');
      const { completion_note } = parseInput(taskCompleteInput, args.input ?? {});
      return transaction(ctx.prisma, (tx) =>
        completeTask(tx, ctx, String(args.id), completion_note, args.expected_version),
      );
    },
  }),
  deleteTask: t.field({
    description: 'Deletes a task. Irreversible.',
    type: DeleteResult,
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'write');
      return transaction(ctx.prisma, (tx) => deleteTask(tx, ctx, String(args.id), args.expected_version));
    },
  }),
}));
