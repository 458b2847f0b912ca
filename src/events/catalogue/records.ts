// The records events carry, as zod schemas of what the record functions (contactRecord,
// dealRecord, taskRecord, activityRecord) answer. These are answers, not input rules: a value
// here was checked when it was written, so the schemas say what is stored, not how to refuse it.
import { z } from 'zod';
import { IMPORT_FORMATS, IMPORT_MODES, IMPORT_RESOURCES, IMPORT_STATUSES } from '../../records/import.ts';
import { ACTIVITY_OUTCOMES, ACTIVITY_TYPES } from '../../records/activity.ts';
import { CONTACT_SOURCES, CONTACT_STATUSES } from '../../records/contact.ts';
import { DEAL_STATUSES } from '../../records/deal.ts';
import { RELATED_TYPES, REMINDER_TYPES, TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '../../records/task.ts';

export const dateTime = z.iso.datetime().describe('ISO 8601 UTC date-time with milliseconds');
const day = z.iso.date().describe('Calendar date, YYYY-MM-DD');
const text = z.string();
const optional = <T extends z.ZodType>(schema: T) => schema.nullable();

export const ActorSchema = z
  .object({
    type: z
      .enum(['api_key', 'user', 'system'])
      .describe(
        'api_key: a key without a user; user: a user, through a key or the dashboard; ' +
          'system: the service itself (e.g. the task scheduler)',
      ),
    id: text,
    name: text,
  })
  .describe('Who made the change');

/** Custom field values, typed by their definition: text, date (YYYY-MM-DD) and select are strings. */
export const CustomFieldValuesSchema = z
  .record(z.string(), z.union([z.string(), z.number(), z.boolean()]))
  .describe('Custom field values by key, typed by their definition (text, date and select values are strings)');

const AddressSchema = z
  .object({
    street: optional(text),
    city: optional(text),
    state: optional(text),
    zip: optional(text),
    country: optional(text),
  })
  .describe('Postal address: every part, null where none was given');

export const ContactRecordSchema = z
  .object({
    id: text,
    first_name: text,
    last_name: optional(text),
    email: z.email(),
    phone: optional(text).describe('E.164'),
    company: optional(text).describe("The company's name; the linked company's when company_id is set"),
    company_id: optional(text).describe('The linked company'),
    job_title: optional(text),
    status: z.enum(CONTACT_STATUSES),
    source: z.enum(CONTACT_SOURCES),
    tags: z.array(text),
    assigned_to: optional(text).describe('User id'),
    engagement_score: z.int(),
    custom_fields: CustomFieldValuesSchema,
    address: AddressSchema.nullable(),
    external_id: optional(text).describe("The caller's own id for the record"),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .describe('A contact as the API answers it');

export const DealRecordSchema = z
  .object({
    id: text,
    title: text,
    value: optional(z.number()),
    currency: text.describe('ISO 4217 code'),
    pipeline_id: text,
    stage_id: text,
    stage_name: text,
    probability: optional(z.int()),
    owner_id: optional(text).describe('User id'),
    contact_id: optional(text).describe('The primary contact'),
    company_id: optional(text).describe('The company the deal is with'),
    expected_close_date: optional(day),
    status: z.enum(DEAL_STATUSES),
    won_reason: optional(text),
    lost_reason: optional(text),
    competitor: optional(text),
    tags: z.array(text),
    custom_fields: CustomFieldValuesSchema,
    closed_at: optional(dateTime).describe('Set when the deal is won or lost; null while open'),
    external_id: optional(text).describe("The caller's own id for the record"),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .describe('A deal as events carry it');

export const CompanyRecordSchema = z
  .object({
    id: text,
    name: text,
    domain: optional(text).describe('Lower case host name, unique in the workspace'),
    industry: optional(text),
    size: optional(z.int()).describe('Number of employees'),
    phone: optional(text).describe('E.164'),
    address: AddressSchema.nullable(),
    tags: z.array(text),
    owner_id: optional(text).describe('User id'),
    custom_fields: CustomFieldValuesSchema,
    external_id: optional(text).describe("The caller's own id for the company"),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .describe('A company as the API answers it');

export const TaskRecordSchema = z
  .object({
    id: text,
    title: text,
    description: optional(text),
    status: z.enum(TASK_STATUSES),
    priority: z.enum(TASK_PRIORITIES),
    type: z.enum(TASK_TYPES),
    assignee_id: optional(text),
    assignee_name: optional(text),
    due_date: optional(dateTime),
    related_to: z
      .object({
        type: z.enum(RELATED_TYPES),
        id: text,
        name: optional(text).describe(
          'Contact name, company name or deal title; null for projects and records deleted since',
        ),
      })
      .nullable(),
    reminder: z
      .object({
        type: z.enum(REMINDER_TYPES),
        before_minutes: z.int(),
        remind_at: optional(dateTime),
        sent_at: optional(dateTime),
      })
      .nullable(),
    completion_note: optional(text),
    completed_at: optional(dateTime),
    created_by: optional(text).describe('User id'),
    external_id: optional(text).describe("The caller's own id for the record"),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
    updated_at: dateTime,
  })
  .describe('A task as the API answers it');

export const ActivityRecordSchema = z
  .object({
    id: text,
    type: z.enum(ACTIVITY_TYPES),
    subject: optional(text),
    description: optional(text),
    contact_id: optional(text),
    deal_id: optional(text),
    company_id: optional(text),
    user_id: optional(text),
    duration: optional(z.int()).describe('Minutes'),
    outcome: optional(z.enum(ACTIVITY_OUTCOMES)),
    occurred_at: dateTime,
    attendees: z.array(text).describe('Contact ids'),
    external_id: optional(text).describe("The caller's own id for the record"),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
  })
  .describe('An activity as the API answers it');

export const NoteRecordSchema = z
  .object({
    id: text,
    contact_id: optional(text).describe('The contact the note is on; null for a note on a company'),
    company_id: optional(text).describe('The company the note is on; null for a note on a contact'),
    content: text.describe('Markdown'),
    version: z.int().describe('Raised by every change'),
    created_at: dateTime,
  })
  .describe('A note on a contact or on a company');

export const ImportRecordSchema = z
  .object({
    id: text,
    resource: z.enum(IMPORT_RESOURCES),
    format: z.enum(IMPORT_FORMATS),
    mode: z.enum(IMPORT_MODES),
    upsert_by: optional(text).describe('The field an upsert matches records by'),
    mapping: optional(z.record(z.string(), z.string())).describe(
      'Column (or JSON key) to field; null when JSON lines are taken as they are',
    ),
    filename: optional(text),
    status: z.enum(IMPORT_STATUSES),
    rows_read: z.int(),
    rows_written: z.int().describe('Rows created or updated'),
    rows_failed: z.int().describe('Rows not imported; GET /v1/imports/:id/failed-rows lists them'),
    rows_created: z.int(),
    bytes_total: z.int(),
    bytes_read: z.int(),
    rows_per_second: optional(z.int()).describe('Over the running time so far; null before the first rows'),
    eta_seconds: optional(z.int()).describe('Seconds left at the pace so far; 0 once completed, null when unknown'),
    error: optional(z.object({ code: text, message: text })).describe('Why a failed import stopped'),
    created_at: dateTime,
    started_at: optional(dateTime),
    finished_at: optional(dateTime),
  })
  .describe('An import job');

/** `previous` of an `*.updated` event: the changed fields' values before the change. */
export const previousValues = <S extends z.ZodObject>(record: S) =>
  record.partial().describe('The values of the changed fields before the change, by field name');

export const changedFields = <S extends z.ZodObject>(record: S) =>
  z.array(record.keyof()).describe('The fields that changed');
