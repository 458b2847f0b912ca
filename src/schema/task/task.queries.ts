import { assertAllowed } from '../../auth/scopes.ts';
import { builder } from '../builder.ts';
import { parseInput } from '../common/validation.ts';
import { taskFilter } from './task.inputs.ts';
import { listTasks, TASK_SORT } from './task.list.ts';
import { TASK_WHERE } from '../common/where/resources.ts';
import { whereArg } from '../common/where/where.ts';
import { whereInput } from '../common/where/where.graphql.ts';
import { TaskPage, TaskType } from './task.type.ts';
import { loadTaskView } from '../../records/task.ts';
import { findTask } from './task.write.ts';
import { zodInput } from '../common/zod-input.ts';
import { sortArg } from '../common/sort.ts';

const TaskFilter = zodInput(
  'TaskFilter',
  taskFilter,
  'Conditions every listed task meets; all given conditions apply.',
);

builder.queryFields((t) => ({
  task: t.field({
    description: 'One task by id; not_found when the workspace has none with that id.',
    type: TaskType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'read');
      return loadTaskView(ctx.prisma, await findTask(ctx.prisma, ctx, String(args.id)));
    },
  }),
  tasks: t.field({
    type: TaskPage,
    description: 'Tasks of the workspace, filtered, sorted and paginated by cursor.',
    args: {
      filter: t.arg({ type: TaskFilter }),
      where: t.arg({
        type: whereInput(TASK_WHERE),
        description: 'A filter in the filter language (docs/filtering.md); applies together with `filter`.',
      }),
      sort: sortArg(
        t,
        'TaskSort',
        TASK_SORT,
        'Sort order, first value first; priority sorts by urgency (low < medium < high < urgent). ' +
          'Default created_at_desc.',
      ),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'read');
      const filter = parseInput(taskFilter, args.filter ?? {});
      return listTasks(ctx, filter, args, await whereArg(ctx, TASK_WHERE, args.where));
    },
  }),
}));
