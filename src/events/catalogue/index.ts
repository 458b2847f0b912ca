// The event catalogue: every event the log holds, by name. Write paths build their events with
// these definitions, test sends deliver their samples, and the JSON Schemas (envelopes.ts) and
// the OpenAPI `webhooks` section describe them.
import type { EventName } from '../names.ts';
import { activityLogged } from './activity.events.ts';
import {
  contactCreated,
  contactDeleted,
  contactMerged,
  contactStatusChanged,
  contactTagAdded,
  contactTagRemoved,
  contactUpdated,
} from './contact.events.ts';
import {
  dealContactAdded,
  dealContactRemoved,
  dealCreated,
  dealDeleted,
  dealLost,
  dealStageChanged,
  dealUpdated,
  dealWon,
} from './deal.events.ts';
import { companyCreated, companyDeleted, companyMerged, companyUpdated } from './company.events.ts';
import type { EventDefinition } from './define.ts';
import { importCompleted } from './import.events.ts';
import { noteCreated } from './note.events.ts';
import { taskAssigned, taskCompleted, taskCreated, taskDeleted, taskOverdue, taskUpdated } from './task.events.ts';

export type { BuiltEvent, EventData, EventDefinition } from './define.ts';

/** Typed by name, so an event name without a definition does not compile. */
export const EVENT_CATALOGUE: { readonly [N in EventName]: EventDefinition } = {
  'contact.created': contactCreated,
  'contact.updated': contactUpdated,
  'contact.deleted': contactDeleted,
  'contact.merged': contactMerged,
  'contact.tag_added': contactTagAdded,
  'contact.tag_removed': contactTagRemoved,
  'contact.status_changed': contactStatusChanged,
  'company.created': companyCreated,
  'company.updated': companyUpdated,
  'company.deleted': companyDeleted,
  'company.merged': companyMerged,
  'deal.created': dealCreated,
  'deal.updated': dealUpdated,
  'deal.stage_changed': dealStageChanged,
  'deal.won': dealWon,
  'deal.lost': dealLost,
  'deal.deleted': dealDeleted,
  'import.completed': importCompleted,
  'task.created': taskCreated,
  'task.updated': taskUpdated,
  'task.completed': taskCompleted,
  'task.assigned': taskAssigned,
  'task.overdue': taskOverdue,
  'task.deleted': taskDeleted,
  'activity.logged': activityLogged,
  'note.created': noteCreated,
  'deal.contact_added': dealContactAdded,
  'deal.contact_removed': dealContactRemoved,
};

for (const [name, definition] of Object.entries(EVENT_CATALOGUE)) {
  if (definition.name !== name) throw new Error(`Event catalogue: ${name} holds the definition of ${definition.name}`);
}

/** The definition of an event name; undefined for names nothing emits (accepted in subscriptions only). */
export function eventDefinition(name: string): EventDefinition | undefined {
  return Object.hasOwn(EVENT_CATALOGUE, name) ? EVENT_CATALOGUE[name as EventName] : undefined;
}

/**
 * The record an event is about with all its fields (`data.deal`, `data.contact`, …): what
 * subscription filters match. Envelope B's record is not used for this, as for deal.stage_changed
 * it holds names instead of ids (`pipeline`, not `pipeline_id`).
 */
export function subjectOf(type: string, data: Record<string, unknown>): Record<string, unknown> {
  const definition = eventDefinition(type);
  const record = definition ? data[definition.entityType] : undefined;
  return record !== null && typeof record === 'object' ? (record as Record<string, unknown>) : data;
}
