import { builder } from '../builder.ts';
import {
  NotificationChannel,
  TaskPriority,
  TaskRelatedType,
  TaskStatus,
  TaskType as TaskKind,
} from '../common/enums.ts';
import { pageType } from '../common/page.ts';
import { storedEnum } from '../common/stored-enum.ts';
import { UserType } from '../user/user.type.ts';
import { reminderOf, relatedTo, type TaskView } from '../../records/task.ts';
import { versionDescription } from '../common/versions.ts';
import { EXTERNAL_ID_ANSWER } from '../common/external-id.ts';

const RelatedTo = builder.objectRef<{ type: string; id: string; name: string | null }>('TaskRelatedTo').implement({
  description: 'The record a task is about.',
  fields: (t) => ({
    type: t.expose('type', { type: storedEnum(TaskRelatedType) }),
    id: t.exposeID('id', { description: 'The contact, company, deal or project id' }),
    name: t.exposeString('name', {
      nullable: true,
      description:
        'Contact full name, company name or deal title; null for projects, for records deleted since, ' +
        'and when the key may not read the record',
    }),
  }),
});

const Reminder = builder
  .objectRef<{ type: string; before_minutes: number; remind_at: Date | null; sent_at: Date | null }>('TaskReminder')
  .implement({
    description: 'A reminder sent to the assignee before the task is due.',
    fields: (t) => ({
      type: t.expose('type', { type: storedEnum(NotificationChannel), description: 'The channel it is sent on' }),
      before_minutes: t.exposeInt('before_minutes', { description: 'How long before due_date it is sent' }),
      remind_at: t.expose('remind_at', {
        type: 'DateTime',
        nullable: true,
        description: 'due_date minus before_minutes; null while the task has no due date',
      }),
      sent_at: t.expose('sent_at', {
        type: 'DateTime',
        nullable: true,
        description: 'When the reminder was handled; null until then',
      }),
    }),
  });

export const TaskType = builder.objectRef<TaskView>('Task').implement({
  description: 'Work to do, optionally about a contact, company, deal or project, with a due date and a reminder.',
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    description: t.exposeString('description', { nullable: true, description: 'Markdown; null when not given' }),
    status: t.expose('status', { type: storedEnum(TaskStatus) }),
    priority: t.expose('priority', { type: storedEnum(TaskPriority) }),
    type: t.expose('type', { type: storedEnum(TaskKind) }),
    assignee_id: t.exposeString('assigneeId', {
      nullable: true,
      description: 'Id of the assigned user; null when unassigned',
    }),
    assignee_name: t.string({
      nullable: true,
      description: 'Name of the assigned user; null when unassigned',
      resolve: (task) => task.assignee?.name ?? null,
    }),
    assignee: t.field({
      type: UserType,
      nullable: true,
      description: 'The assigned user; null when unassigned',
      resolve: (task) => task.assignee,
    }),
    due_date: t.expose('dueDate', { type: 'DateTime', nullable: true, description: 'Null when not given' }),
    related_to: t.field({
      type: RelatedTo,
      nullable: true,
      description: 'Null when the task is about no record',
      resolve: relatedTo,
    }),
    reminder: t.field({
      type: Reminder,
      nullable: true,
      description: 'Null when no reminder is set',
      resolve: reminderOf,
    }),
    completion_note: t.exposeString('completionNote', {
      nullable: true,
      description: 'Given when it was completed; null when none was',
    }),
    completed_at: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'Null until completed' }),
    created_by: t.exposeString('createdBy', {
      nullable: true,
      description: 'Id of the user behind the key or session that created it; null when the key belongs to no user',
    }),
    external_id: t.exposeString('externalId', { nullable: true, description: EXTERNAL_ID_ANSWER }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const TaskPage = pageType('TaskPage', TaskType);
