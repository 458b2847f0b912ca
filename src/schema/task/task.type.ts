import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { UserType } from '../user/user.type.ts';
import { reminderOf, relatedTo, type TaskView } from './task.view.ts';

const RelatedTo = builder.objectRef<{ type: string; id: string; name: string | null }>('TaskRelatedTo').implement({
  description: 'The record a task is about.',
  fields: (t) => ({
    type: t.exposeString('type', { description: 'contact, deal or project' }),
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true, description: 'Contact full name or deal title; null for projects' }),
  }),
});

const Reminder = builder
  .objectRef<{ type: string; before_minutes: number; remind_at: Date | null; sent_at: Date | null }>('TaskReminder')
  .implement({
    fields: (t) => ({
      type: t.exposeString('type', { description: 'email or push' }),
      before_minutes: t.exposeInt('before_minutes'),
      remind_at: t.expose('remind_at', { type: 'DateTime', nullable: true, description: 'due_date minus before_minutes' }),
      sent_at: t.expose('sent_at', { type: 'DateTime', nullable: true, description: 'When the reminder was handled' }),
    }),
  });

export const TaskType = builder.objectRef<TaskView>('Task').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true, description: 'Markdown' }),
    status: t.exposeString('status', { description: 'pending, in_progress, completed or cancelled' }),
    priority: t.exposeString('priority', { description: 'low, medium, high or urgent' }),
    type: t.exposeString('type', { description: 'todo, call, email, meeting or follow_up' }),
    assignee_id: t.exposeString('assigneeId', { nullable: true }),
    assignee_name: t.string({ nullable: true, resolve: (task) => task.assignee?.name ?? null }),
    assignee: t.field({ type: UserType, nullable: true, resolve: (task) => task.assignee }),
    due_date: t.expose('dueDate', { type: 'DateTime', nullable: true }),
    related_to: t.field({ type: RelatedTo, nullable: true, resolve: relatedTo }),
    reminder: t.field({ type: Reminder, nullable: true, resolve: reminderOf }),
    completion_note: t.exposeString('completionNote', { nullable: true }),
    completed_at: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'Null until completed' }),
    created_by: t.exposeString('createdBy', { nullable: true, description: 'User id of the key that created it' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const TaskPage = pageType('TaskPage', TaskType);
