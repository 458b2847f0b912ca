// Task request shapes: the same snake_case fields on REST bodies and GraphQL `input` objects.
import { z } from 'zod';
import { inputNamed } from '../common/graphql-names.ts';
import { isoDateOrTime, name255, optionalText } from '../common/validation.ts';
import { RELATED_TYPES, REMINDER_TYPES, TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '../../records/task.ts';
import { externalId, externalIdFilter } from '../common/external-id.ts';

const MAX_REMINDER_MINUTES = 525_600; // one year

const reminder = inputNamed(
  z
    .object({
      type: z.enum(REMINDER_TYPES),
      before_minutes: z
        .number()
        .int('must be a whole number of minutes')
        .min(0, 'must be 0 or more')
        .max(MAX_REMINDER_MINUTES, `must be at most ${MAX_REMINDER_MINUTES}`),
    })
    .strip(),
  'TaskReminderInput',
  'A reminder before the due date, by e-mail or push.',
);
export type ReminderInput = z.output<typeof reminder>;

const id = z.string().trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

const taskFields = {
  title: name255.min(1, 'is required'),
  description: optionalText(10_000),
  status: z.enum(TASK_STATUSES).optional(),
  priority: z.enum(TASK_PRIORITIES).optional(),
  type: z.enum(TASK_TYPES).optional(),
  assignee_id: id.nullable().optional(),
  due_date: isoDateOrTime.nullable().optional(),
  related_to_type: z.enum(RELATED_TYPES).nullable().optional(),
  related_to_id: id.nullable().optional(),
  reminder: reminder.nullable().optional(),
  external_id: externalId.nullable().optional(),
};

/** related_to_type and related_to_id name one thing together: both or neither. */
function relatedPair(v: { related_to_type?: string | null; related_to_id?: string | null }, ctx: z.RefinementCtx) {
  const hasType = v.related_to_type !== undefined && v.related_to_type !== null;
  const hasId = v.related_to_id !== undefined && v.related_to_id !== null;
  if (hasType && !hasId)
    ctx.addIssue({ code: 'custom', path: ['related_to_id'], message: 'is required with related_to_type' });
  if (hasId && !hasType)
    ctx.addIssue({ code: 'custom', path: ['related_to_type'], message: 'is required with related_to_id' });
}

// z.object strips unknown and read-only keys (id, created_at, completed_at, ...): never stored.
export const taskCreateInput = z.object(taskFields).superRefine(relatedPair);
export const taskUpdateInput = z.object(taskFields).partial().superRefine(relatedPair);
export type TaskCreateInput = z.output<typeof taskCreateInput>;
export type TaskUpdateInput = z.output<typeof taskUpdateInput>;

export const taskCompleteInput = z.object({ completion_note: optionalText(10_000) }).strip();

export const taskFilter = z
  .object({
    assignee_id: z.string().optional(),
    status: z.enum(TASK_STATUSES).optional(),
    priority: z.enum(TASK_PRIORITIES).optional(),
    type: z.enum(TASK_TYPES).optional(),
    due_before: isoDateOrTime.optional(),
    due_after: isoDateOrTime.optional(),
    related_to_type: z.enum(RELATED_TYPES).optional(),
    related_to_id: z.string().optional(),
    external_id: externalIdFilter.optional(),
  })
  .strip();
export type TaskFilter = z.output<typeof taskFilter>;
