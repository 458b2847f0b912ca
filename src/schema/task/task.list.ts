// Listing tasks. Priority sorts by urgency (low < medium < high < urgent), which no column
// holds and Prisma's orderBy cannot express, so the page is selected with SQL: ORDER BY a
// CASE over the priority, and keyset conditions on that same expression. The cursor carries
// the rank (1..4), so pages stay stable under inserts exactly like the other lists.
// The other sort keys use the same path, so one keyset implementation serves every sort.
import { Prisma, type Task } from '../../db/generated/client/client.ts';
import type { Context } from '../context.ts';
import { cursorOf, decodeCursor, parseSort, type Page, type SortSpec } from '../common/pagination.ts';
import { TASK_PRIORITIES } from '../../records/task.ts';
import type { TaskFilter } from './task.inputs.ts';
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

/** Per sort field: its SQL expression and the value of a task the cursor stores. */
const COLUMNS: Record<string, { expr: Prisma.Sql; value: (t: Task) => Date | number | null }> = {
  due_date: { expr: sql`due_date`, value: (t) => t.dueDate },
  priority: { expr: PRIORITY_RANK_SQL, value: (t) => priorityRank(t.priority) },
  created_at: { expr: sql`created_at`, value: (t) => t.createdAt },
  updated_at: { expr: sql`updated_at`, value: (t) => t.updatedAt },
};

type SortKey = ReturnType<typeof parseSort>[number];

function whereOf(workspaceId: string, f: TaskFilter): Prisma.Sql {
  const conds = [sql`workspace_id = ${workspaceId}`];
  if (f.assignee_id) conds.push(sql`assignee_id = ${f.assignee_id}`);
  if (f.status) conds.push(sql`status = ${f.status}`);
  if (f.priority) conds.push(sql`priority = ${f.priority}`);
  if (f.type) conds.push(sql`type = ${f.type}`);
  if (f.due_before) conds.push(sql`due_date <= ${f.due_before}`);
  if (f.due_after) conds.push(sql`due_date >= ${f.due_after}`);
  if (f.related_to_type) conds.push(sql`related_to_type = ${f.related_to_type}`);
  if (f.related_to_id) conds.push(sql`related_to_id = ${f.related_to_id}`);
  return Prisma.join(conds, ' AND ');
}

const TASKS = 'tasks';
const encodeCursor = (keys: SortKey[], task: Task) => cursorOf(TASKS, keys, keys.map((k) => COLUMNS[k.field].value(task)), task.id);

/** Rows after the cursor: equal on the first i keys and strictly after on key i, for some i. Nulls sort last. */
function afterSql(keys: SortKey[], values: (Date | number | null)[], id: string): Prisma.Sql {
  const all = [...keys.map((k) => ({ expr: COLUMNS[k.field].expr, desc: k.desc, nullable: Boolean(k.nullable) })), { expr: sql`id`, desc: keys[0].desc, nullable: false }];
  const vals: (Date | number | string | null)[] = [...values, id];
  const branches: Prisma.Sql[] = [];
  all.forEach((key, i) => {
    const value = vals[i];
    if (value === null) return; // after a null come only nulls, ordered by the later keys
    const equal = all.slice(0, i).map((k, j) => (vals[j] === null ? sql`${k.expr} IS NULL` : sql`${k.expr} = ${vals[j]}`));
    const cmp = sql`${key.expr} ${Prisma.raw(key.desc ? '<' : '>')} ${value}`;
    const after = key.nullable ? sql`(${cmp} OR ${key.expr} IS NULL)` : cmp;
    branches.push(sql`(${Prisma.join([...equal, after], ' AND ')})`);
  });
  return branches.length ? sql`(${Prisma.join(branches, ' OR ')})` : sql`FALSE`;
}

function orderSql(keys: SortKey[]): Prisma.Sql {
  const parts = keys.map((k) => sql`${COLUMNS[k.field].expr} ${Prisma.raw(k.desc ? 'DESC' : 'ASC')} NULLS LAST`);
  parts.push(sql`id ${Prisma.raw(keys[0].desc ? 'DESC' : 'ASC')}`);
  return Prisma.join(parts, ', ');
}

export async function listTasks(ctx: Context, filter: TaskFilter, sort: readonly string[] | string | null | undefined, limit: number, cursor?: string | null): Promise<Page<TaskView>> {
  const keys = parseSort(sort, TASK_SORT);
  const where = whereOf(ctx.caller.workspaceId, filter);
  const after = cursor ? (decodeCursor(TASKS, keys, cursor) as { values: (Date | number | null)[]; id: string }) : null;
  const condition = after ? sql`${where} AND ${afterSql(keys, after.values, after.id)}` : where;
  const hits = await ctx.prisma.$queryRaw<{ id: string }[]>`SELECT id FROM tasks WHERE ${condition} ORDER BY ${orderSql(keys)} LIMIT ${limit + 1}`;
  const hasMore = hits.length > limit;
  const ids = hits.slice(0, limit).map((h) => h.id);
  const rows = new Map((await ctx.prisma.task.findMany({ where: { id: { in: ids } } })).map((t) => [t.id, t]));
  // A task deleted between the two reads is left out.
  const nodes = await loadTaskViews(ctx.prisma, ids.map((id) => rows.get(id)).filter((t) => t !== undefined));
  return {
    nodes,
    limit,
    hasMore,
    nextCursor: hasMore && nodes.length ? encodeCursor(keys, nodes[nodes.length - 1]) : null,
    total: async () => {
      const [{ n }] = await ctx.prisma.$queryRaw<{ n: number }[]>`SELECT count(*)::int AS n FROM tasks WHERE ${where}`;
      return n;
    },
  };
}
