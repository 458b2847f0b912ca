// Listing tasks. Priority sorts by urgency (low < medium < high < urgent), which no column
// holds and Prisma's orderBy cannot express, so the page is selected with SQL: ORDER BY a
// CASE over the priority, and the paginator's keyset stated in SQL over that same expression
// (common/pagination.sql.ts). The cursor carries the rank (1..4), so pages stay stable under
// inserts exactly like the other lists. The other sort keys use the same path.
import { Prisma } from '../../db/generated/client/client.ts';
import type { Context } from '../context.ts';
import { keysetPage, type ListArgs, type Page, type SortSpec } from '../common/pagination.ts';
import { sqlKeyset } from '../common/pagination.sql.ts';
import { TASK_PRIORITIES } from '../../records/task.ts';
import type { TaskFilter } from './task.inputs.ts';
import { TASK_WHERE } from '../common/where/resources.ts';
import { allOf, conditionsOf } from '../common/where/where.ts';
import type { Condition } from '../common/where/where.compile.ts';
import { toSqlWhere } from '../common/where/where.sql.ts';
import { priorityRank } from './task.rules.ts';
import { loadTaskViews, type TaskView } from '../../records/task.ts';

const sql = Prisma.sql;

export const TASK_SORT: SortSpec = {
  default: '-created_at',
  fields: {
    due_date: { field: 'due_date', type: 'date', nullable: true },
    priority: { field: 'priority', type: 'int' },
    created_at: { field: 'created_at', type: 'date' },
    updated_at: { field: 'updated_at', type: 'date' },
  },
};

const PRIORITY_RANK_SQL = sql`(CASE priority ${Prisma.join(
  TASK_PRIORITIES.map((p) => sql`WHEN ${p} THEN ${Prisma.raw(String(priorityRank(p)))}`),
  ' ',
)} END)`;

/** Per sort field, the SQL expression it orders by. */
const TASK_KEYSET = sqlKeyset({
  due_date: sql`due_date`,
  priority: PRIORITY_RANK_SQL,
  created_at: sql`created_at`,
  updated_at: sql`updated_at`,
});

/** A task's place in the order: its id and its value of each sort field, named as the field. */
interface TaskPosition {
  id: string;
  due_date: Date | null;
  priority: number;
  created_at: Date;
  updated_at: Date;
}

/** The workspace's tasks that meet the query-string filter and the `where` filter's conditions. */
export function taskWhereSql(workspaceId: string, f: TaskFilter, where: Condition | null): Prisma.Sql {
  const legacy = conditionsOf(TASK_WHERE, [
    ['assignee_id', 'eq', f.assignee_id],
    ['status', 'eq', f.status],
    ['priority', 'eq', f.priority],
    ['type', 'eq', f.type],
    ['due_date', 'lte', f.due_before],
    ['due_date', 'gte', f.due_after],
    ['related_to_type', 'eq', f.related_to_type],
    ['related_to_id', 'eq', f.related_to_id],
    ['external_id', 'eq', f.external_id],
  ]);
  return sql`workspace_id = ${workspaceId} AND ${toSqlWhere(allOf(legacy, where))}`;
}

export async function listTasks(
  ctx: Context,
  filter: TaskFilter,
  args: ListArgs,
  where: Condition | null = null,
): Promise<Page<TaskView>> {
  const page = await keysetPage(TASK_KEYSET, args, TASK_SORT, {
    list: 'tasks',
    where: taskWhereSql(ctx.caller.workspaceId, filter, where),
    fetch: ({ where, orderBy, take }) => ctx.prisma.$queryRaw<TaskPosition[]>`
      SELECT id, due_date, ${PRIORITY_RANK_SQL} AS priority, created_at, updated_at
      FROM tasks WHERE ${where} ORDER BY ${orderBy} LIMIT ${take}`,
    count: async (where) => {
      const [{ n }] = await ctx.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE ${where}`;
      return n;
    },
  });
  const ids = page.nodes.map((p) => p.id);
  const rows = new Map((await ctx.prisma.task.findMany({ where: { id: { in: ids } } })).map((t) => [t.id, t]));
  // A task deleted between the two reads is left out.
  const nodes = await loadTaskViews(
    ctx.prisma,
    ids.map((id) => rows.get(id)).filter((t) => t !== undefined),
  );
  return { ...page, nodes };
}
