// The Tasks page's data: its views as filters of the tasks query, due dates in words, the grouping
// by assignee, and the create and complete mutations.
import { gql } from '../api/graphql.ts';

export type TaskView = 'mine' | 'overdue' | 'today' | 'assignee';

export const TASK_VIEWS: { id: TaskView; label: string }[] = [
  { id: 'mine', label: 'My tasks' },
  { id: 'overdue', label: 'Overdue' },
  { id: 'today', label: 'Due today' },
  { id: 'assignee', label: 'By assignee' },
];

export const taskViewOf = (value: string | undefined): TaskView => TASK_VIEWS.find((v) => v.id === value)?.id ?? 'mine';

export interface TaskRow {
  id: string;
  title: string;
  status: string;
  due_date: string | null;
  assignee_id: string | null;
  assignee_name: string | null;
  related_to: { type: 'contact' | 'company' | 'deal' | 'project'; id: string; name: string | null } | null;
  reminder: { type: string; before_minutes: number; remind_at: string | null; sent_at: string | null } | null;
}

export interface TaskPage {
  nodes: TaskRow[];
  total: number;
  next_cursor: string | null;
}

const startOfDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate());
const nextDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate() + 1);

/** The open tasks a view lists, in the filter language; "today" is the browser's calendar day. */
export function viewWhere(view: TaskView, userId: string, now: Date): Record<string, unknown> {
  const open = { status: { in: ['pending', 'in_progress'] } };
  switch (view) {
    case 'mine':
      return { ...open, assignee_id: { eq: userId } };
    case 'overdue':
      return { ...open, due_date: { lt: now.toISOString() } };
    case 'today':
      return { ...open, due_date: { gte: startOfDay(now).toISOString(), lt: nextDay(now).toISOString() } };
    case 'assignee':
      return open;
    default: {
      const unreachable: never = view;
      throw new Error(`unknown view ${unreachable}`);
    }
  }
}

export type DueState = 'none' | 'overdue' | 'today' | 'later';

/** Where an open task's due date stands: overdue once it has passed, else due today or later. */
export function dueState(due: string | null, now: Date): DueState {
  if (!due) return 'none';
  const at = new Date(due);
  if (at < now) return 'overdue';
  return at < nextDay(now) ? 'today' : 'later';
}

export interface AssigneeGroup {
  id: string | null;
  name: string;
  tasks: TaskRow[];
}

/** Tasks grouped by assignee, groups by name, the unassigned ones last; tasks keep their order. */
export function groupByAssignee(tasks: TaskRow[]): AssigneeGroup[] {
  const groups = new Map<string | null, AssigneeGroup>();
  for (const t of tasks) {
    const group = groups.get(t.assignee_id) ?? {
      id: t.assignee_id,
      name: t.assignee_id ? (t.assignee_name ?? 'A former user') : 'Unassigned',
      tasks: [],
    };
    group.tasks.push(t);
    groups.set(t.assignee_id, group);
  }
  return [...groups.values()].sort((a, b) => (a.id === null ? 1 : b.id === null ? -1 : a.name.localeCompare(b.name)));
}

export const PAGE_SIZE = 50;

export function loadTasks(where: Record<string, unknown>, cursor: string | null): Promise<TaskPage> {
  return gql<{ tasks: TaskPage }>(
    `query ($where: TaskWhere, $cursor: String) {
      tasks(where: $where, cursor: $cursor, limit: ${PAGE_SIZE}, sort: [due_date_asc, created_at_asc]) {
        total next_cursor
        nodes {
          id title status due_date assignee_id assignee_name
          related_to { type id name }
          reminder { type before_minutes remind_at sent_at }
        }
      }
    }`,
    { where, cursor },
  ).then((d) => d.tasks);
}

export interface NewTask {
  title: string;
  due_date?: string;
  assignee_id?: string;
  related_to_type?: 'contact' | 'company';
  related_to_id?: string;
}

export const createTask = (input: NewTask) =>
  gql<{ createTask: { id: string; title: string } }>(
    'mutation ($input: TaskCreateInput!) { createTask(input: $input) { id title } }',
    { input },
  ).then((d) => d.createTask);

export const completeTask = (id: string, note: string) =>
  gql(
    `mutation ($id: ID!, $input: TaskCompleteInput) {
      completeTask(id: $id, input: $input) { id status completed_at completion_note }
    }`,
    { id, input: note ? { completion_note: note } : null },
  );
