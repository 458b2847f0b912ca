// A task on the wire: its statuses, priorities, types and related kinds, and the task as the API shows
// it: the row plus the names it refers to (assignee, related record). The names are loaded for a whole
// page at once: one query per kind, not one per task.
import type { Prisma, Task, User } from '../db/generated/client/client.ts';

export const TASK_STATUSES = ['pending', 'in_progress', 'completed', 'cancelled'] as const;
/** In order of urgency: sorting by priority uses this order, not the alphabet. */
export const TASK_PRIORITIES = ['low', 'medium', 'high', 'urgent'] as const;
export const TASK_TYPES = ['todo', 'call', 'email', 'meeting', 'follow_up'] as const;
export const RELATED_TYPES = ['contact', 'company', 'deal', 'project'] as const;
export const REMINDER_TYPES = ['email', 'push'] as const;

export interface TaskView extends Task {
  assignee: User | null;
  /** Contact full name, company name or deal title; null for projects and for records deleted since. */
  relatedName: string | null;
}

type Reader = Pick<Prisma.TransactionClient, 'user' | 'contact' | 'company' | 'deal'>;

const idsOf = (tasks: Task[], type: string) => [
  ...new Set(tasks.filter((t) => t.relatedToType === type).map((t) => t.relatedToId!)),
];
const nameKey = (workspaceId: string, type: string | null, id: string | null) => `${workspaceId}:${type}:${id}`;

/** Works for tasks of several workspaces (the scheduler's batches); a name only matches in its own workspace. */
export async function loadTaskViews(db: Reader, tasks: Task[]): Promise<TaskView[]> {
  if (tasks.length === 0) return [];
  const assigneeIds = [...new Set(tasks.map((t) => t.assigneeId).filter((id) => id !== null))];
  const contactIds = idsOf(tasks, 'contact');
  const companyIds = idsOf(tasks, 'company');
  const dealIds = idsOf(tasks, 'deal');
  const [users, contacts, companies, deals] = await Promise.all([
    assigneeIds.length ? db.user.findMany({ where: { id: { in: assigneeIds } } }) : [],
    contactIds.length
      ? db.contact.findMany({
          where: { id: { in: contactIds } },
          select: { id: true, workspaceId: true, firstName: true, lastName: true },
        })
      : [],
    companyIds.length
      ? db.company.findMany({
          where: { id: { in: companyIds } },
          select: { id: true, workspaceId: true, name: true },
        })
      : [],
    dealIds.length
      ? db.deal.findMany({ where: { id: { in: dealIds } }, select: { id: true, workspaceId: true, title: true } })
      : [],
  ]);
  const userById = new Map(users.map((u) => [u.id, u]));
  const names = new Map<string, string>([
    ...contacts.map(
      (c) => [nameKey(c.workspaceId, 'contact', c.id), [c.firstName, c.lastName].filter(Boolean).join(' ')] as const,
    ),
    ...companies.map((c) => [nameKey(c.workspaceId, 'company', c.id), c.name] as const),
    ...deals.map((d) => [nameKey(d.workspaceId, 'deal', d.id), d.title] as const),
  ]);
  return tasks.map((t) => ({
    ...t,
    assignee: t.assigneeId ? (userById.get(t.assigneeId) ?? null) : null,
    relatedName: names.get(nameKey(t.workspaceId, t.relatedToType, t.relatedToId)) ?? null,
  }));
}

export async function loadTaskView(db: Reader, task: Task): Promise<TaskView> {
  return (await loadTaskViews(db, [task]))[0];
}

export const relatedTo = (t: TaskView) =>
  t.relatedToType && t.relatedToId ? { type: t.relatedToType, id: t.relatedToId, name: t.relatedName } : null;

export function reminderOf(t: Task) {
  if (!t.reminderType || t.reminderBeforeMinutes === null) return null;
  return {
    type: t.reminderType,
    before_minutes: t.reminderBeforeMinutes,
    remind_at: t.reminderAt,
    sent_at: t.reminderSentAt,
  };
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

/** The snake_case record events and webhook payloads carry: the REST response shape. */
export function taskRecord(t: TaskView) {
  const reminder = reminderOf(t);
  return {
    id: t.id,
    title: t.title,
    description: t.description,
    status: t.status,
    priority: t.priority,
    type: t.type,
    assignee_id: t.assigneeId,
    assignee_name: t.assignee?.name ?? null,
    due_date: iso(t.dueDate),
    related_to: relatedTo(t),
    reminder: reminder && { ...reminder, remind_at: iso(reminder.remind_at), sent_at: iso(reminder.sent_at) },
    completion_note: t.completionNote,
    completed_at: iso(t.completedAt),
    created_by: t.createdBy,
    external_id: t.externalId,
    version: t.version,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}
