// Every closed set of the API as one GraphQL enum, built from the same constants the zod schemas
// check input with: outputs name the enum directly, and input types generated from zod schemas
// find theirs here by the set of values (src/schema/common/zod-input.ts).
import { ACTIVITY_OUTCOMES, ACTIVITY_TYPES } from '../../records/activity.ts';
import { SCOPES } from '../../auth/scopes.ts';
import { ERROR_CODES } from '../../errors.ts';
import type { Actor } from '../../events/outbox.ts';
import { builder } from '../builder.ts';
import { BATCH_OPS } from '../batch/batch.inputs.ts';
import { IMPORT_FORMATS, IMPORT_MODES, IMPORT_RESOURCES, IMPORT_STATUSES, UPSERT_KEYS } from '../../records/import.ts';
import { EVENT_RESOURCES } from '../event/event-log.inputs.ts';
import { CONTACT_SOURCES, CONTACT_STATUSES, MERGE_STRATEGIES } from '../../records/contact.ts';
import { CUSTOM_FIELD_TYPES } from '../custom-field/custom-field.rules.ts';
import { DEAL_STATUSES } from '../../records/deal.ts';
import { RELATED_TYPES, TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '../../records/task.ts';
import { NOTIFICATION_CHANNELS } from '../user/preferences.rules.ts';
import { DELIVERY_STATUSES, HTTP_METHODS, PAYLOAD_FORMATS, WEBHOOK_CONTENT_TYPES } from '../webhook/webhook.inputs.ts';

/** Every kind of actor an event or stage move can name. */
const ACTOR_TYPES = ['api_key', 'user', 'system'] as const satisfies readonly Actor['type'][];

const setKey = (values: readonly string[]) => [...values].sort().join('|');
const byValues = new Map<string, string>();

function closedSet<const V extends readonly string[]>(name: string, values: V, description: string) {
  const key = setKey(values);
  if (byValues.has(key)) throw new Error(`Enums ${byValues.get(key)} and ${name} have the same values: use one`);
  byValues.set(key, name);
  return builder.enumType(name, {
    description,
    values: Object.fromEntries(values.map((v) => [v, { value: v }])) as { [K in V[number]]: { value: K } },
  });
}

/** The enum registered for exactly these values, if any. */
export const enumNamed = (values: readonly string[]): string | undefined => byValues.get(setKey(values));

export const ContactStatus = closedSet('ContactStatus', CONTACT_STATUSES, 'Where a contact stands with the business.');
export const ContactSource = closedSet('ContactSource', CONTACT_SOURCES, 'How a contact came in.');
export const MergeStrategy = closedSet(
  'MergeStrategy',
  MERGE_STRATEGIES,
  'Whose values win when two contacts are merged.',
);
export const DealStatus = closedSet('DealStatus', DEAL_STATUSES, 'Whether a deal is still open, or won or lost.');
export const TaskStatus = closedSet('TaskStatus', TASK_STATUSES, 'Where a task stands.');
export const TaskPriority = closedSet('TaskPriority', TASK_PRIORITIES, 'How urgent a task is, from low to urgent.');
export const TaskType = closedSet('TaskType', TASK_TYPES, 'What kind of work a task is.');
export const TaskRelatedType = closedSet('TaskRelatedType', RELATED_TYPES, 'The kind of record a task is about.');
export const NotificationChannel = closedSet(
  'NotificationChannel',
  NOTIFICATION_CHANNELS,
  'A channel reminders and notifications may use.',
);
export const EventResource = closedSet(
  'EventResource',
  EVENT_RESOURCES,
  'The kind of record an event is about (contact.updated is about a contact).',
);
export const ActivityType = closedSet('ActivityType', ACTIVITY_TYPES, 'What kind of interaction an activity was.');
export const ActivityOutcome = closedSet('ActivityOutcome', ACTIVITY_OUTCOMES, 'How an interaction ended.');
export const CustomFieldType = closedSet(
  'CustomFieldType',
  CUSTOM_FIELD_TYPES,
  'The type of the values a custom field holds.',
);
export const ApiKeyScope = closedSet(
  'ApiKeyScope',
  SCOPES,
  'What an API key may do: everything, read only, or the listed permissions.',
);
export const ApiKeyEnvironment = closedSet(
  'ApiKeyEnvironment',
  ['production', 'sandbox'] as const,
  'Which data a key acts on: the live workspace or its sandbox twin.',
);
export const WebhookHttpMethod = closedSet(
  'WebhookHttpMethod',
  HTTP_METHODS,
  'The HTTP method deliveries are sent with.',
);
export const WebhookPayloadFormat = closedSet(
  'WebhookPayloadFormat',
  PAYLOAD_FORMATS,
  'event: the envelope with the event id; record: the record itself.',
);
export const WebhookContentType = closedSet(
  'WebhookContentType',
  WEBHOOK_CONTENT_TYPES,
  'json: an application/json body; form: the JSON as the `payload` field of a form.',
);
export const DeliveryStatus = closedSet(
  'DeliveryStatus',
  DELIVERY_STATUSES,
  'Where a delivery stands: waiting for an attempt, delivered, or failed for good.',
);
export const ActorType = closedSet(
  'ActorType',
  ACTOR_TYPES,
  'Who caused a change: an API key, a user signed in to the dashboard, ' +
    'or the service itself (such as the task scheduler).',
);
export const ErrorCode = closedSet(
  'ErrorCode',
  ERROR_CODES,
  'Why a request, or one row of it, failed: the `code` of the error envelope and of GraphQL `extensions.code`.',
);

export const BatchOperationKind = closedSet(
  'BatchOperationKind',
  BATCH_OPS,
  'What one operation of a batch does: create, update (by id), upsert (by a key) or delete (by id).',
);
export const ContactUpsertKey = closedSet(
  'ContactUpsertKey',
  ['email', 'external_id'],
  'The field of its data that an upsert of a contact finds the contact by.',
);
export const CompanyUpsertKey = closedSet(
  'CompanyUpsertKey',
  ['domain', 'external_id'],
  'The field of its data that an upsert of a company finds the company by.',
);
export const ExternalIdUpsertKey = closedSet(
  'ExternalIdUpsertKey',
  ['external_id'],
  'The field of its data that an upsert finds the record by: its external_id.',
);
export const ImportResource = closedSet(
  'ImportResource',
  IMPORT_RESOURCES,
  'The kind of record an import creates or updates.',
);
export const ImportFormat = closedSet('ImportFormat', IMPORT_FORMATS, 'The format of an imported file.');
export const ImportMode = closedSet(
  'ImportMode',
  IMPORT_MODES,
  'Whether each row creates a record, or updates the record its upsert key matches and creates one otherwise.',
);
export const ImportUpsertKey = closedSet(
  'ImportUpsertKey',
  [...new Set(Object.values(UPSERT_KEYS).flat())],
  'The field an upsert import matches records by: email (contacts), domain (companies), external_id (any).',
);
export const ImportStatus = closedSet(
  'ImportStatus',
  IMPORT_STATUSES,
  'Where an import job stands: queued, running, completed (every row read) or failed (stopped).',
);
