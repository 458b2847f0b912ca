import { assertAllowed } from '../../auth/scopes.ts';
import { builder } from '../builder.ts';
import { parseLimit } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { taskFilter } from './task.inputs.ts';
import { listTasks } from './task.list.ts';
import { TaskPage, TaskType } from './task.type.ts';
import { loadTaskView } from './task.view.ts';
import { findTask } from './task.write.ts';

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
      filter: t.arg({
        type: 'JSONObject',
        description: 'assignee_id, status, priority, type, due_before, due_after, related_to_type, related_to_id',
      }),
      sort: t.arg.string({ description: 'due_date, priority (by urgency), created_at, updated_at; prefix - for descending. Default -created_at' }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'tasks', 'read');
      const filter = parseInput(taskFilter, args.filter ?? {});
      return listTasks(ctx, filter, args.sort, parseLimit(args.limit), args.cursor);
    },
  }),
}));
