// Scopes: full, read_only, or custom with `<resource>:read|write` permissions.
import { AppError } from '../errors.ts';
import { IMPORT_RESOURCES } from '../records/import.ts';
import { RESOURCES, type Resource } from './resources.ts';

export { RESOURCES, type Resource };
export type Access = 'read' | 'write';
export const SCOPES = ['full', 'read_only', 'custom'] as const;
export type Scope = (typeof SCOPES)[number];

export interface Grant {
  scope: Scope;
  permissions: readonly string[];
}

/** Parses `contacts:read,deals:write`; returns the invalid entries separately. */
export function parsePermissions(list: string[]): { valid: string[]; invalid: string[] } {
  const valid: string[] = [];
  const invalid: string[] = [];
  for (const raw of list.map((p) => p.trim()).filter(Boolean)) {
    const [resource, access] = raw.split(':');
    if ((RESOURCES as readonly string[]).includes(resource) && (access === 'read' || access === 'write'))
      valid.push(raw);
    else invalid.push(raw);
  }
  return { valid, invalid };
}

export function allows(grant: Grant, resource: Resource, access: Access): boolean {
  if (grant.scope === 'full') return true;
  if (grant.scope === 'read_only') return access === 'read';
  // A write permission implies read of the same resource.
  return (
    grant.permissions.includes(`${resource}:${access}`) ||
    (access === 'read' && grant.permissions.includes(`${resource}:write`))
  );
}

export function assertAllowed(grant: Grant, resource: Resource, access: Access): void {
  if (!allows(grant, resource, access)) {
    throw new AppError('forbidden', `This API key may not ${access} ${resource}`);
  }
}

/** The resource whose data a kind of record holds, by the record kind an event name starts with. */
const RESOURCE_OF_RECORD: Record<string, Resource> = {
  contact: 'contacts',
  note: 'contacts',
  company: 'companies',
  deal: 'deals',
  task: 'tasks',
  activity: 'activities',
};

/** An import's event needs the resource it imported into; without its data, each such resource. */
function importNeeds(data: unknown): readonly Resource[] {
  const imported = data && typeof data === 'object' ? (data as { import?: { resource?: unknown } }).import : undefined;
  const resource = imported?.resource;
  return typeof resource === 'string' && (IMPORT_RESOURCES as readonly string[]).includes(resource)
    ? [resource as Resource]
    : IMPORT_RESOURCES;
}

/** The resource of the record a task is related to; its name is in the task's record. */
const RELATED_RESOURCE: Record<string, Resource> = { contact: 'contacts', company: 'companies', deal: 'deals' };

/** A note is data of the record it is on: a company's note needs companies, a contact's contacts. */
function noteNeeds(data: unknown): readonly Resource[] {
  const note = data && typeof data === 'object' ? (data as { note?: { company_id?: unknown } }).note : undefined;
  if (!note) return ['contacts', 'companies'];
  return typeof note.company_id === 'string' ? ['companies'] : ['contacts'];
}

function relatedType(record: unknown): string | undefined {
  const related = record && typeof record === 'object' ? (record as { related_to?: unknown }).related_to : undefined;
  const type = related && typeof related === 'object' ? (related as { type?: unknown }).type : undefined;
  return typeof type === 'string' ? type : undefined;
}

/**
 * The read permissions the data of an event needs (also its timeline entry and its deliveries).
 * A task's record carries the name of the contact, company or deal it is related to: given the
 * event's data, that record's resource is needed too; without it (a subscription to the event
 * name), each of them. A note's needs its contact's or its company's resource, as its data says.
 * Names of the specification that nothing emits yet name no resource of this service: whatever
 * they will carry, only a key that may read everything may receive them.
 */
export function eventNeeds(name: string, data?: unknown): readonly Resource[] {
  if (name.startsWith('import.')) return importNeeds(data);
  if (name.startsWith('note.')) return noteNeeds(data);
  const resource = RESOURCE_OF_RECORD[name.split('.')[0]];
  if (!resource) return RESOURCES;
  if (resource !== 'tasks') return [resource];
  if (data === undefined) return ['tasks', 'contacts', 'companies', 'deals'];
  const d = (data ?? {}) as { task?: unknown; previous?: unknown };
  const related = [relatedType(d.task), relatedType(d.previous)]
    .map((t) => (t ? RELATED_RESOURCE[t] : undefined))
    .filter((r) => r !== undefined);
  return ['tasks', ...new Set(related)];
}

/** The record kinds (events' `entity_type`) whose data the grant may read. */
export function readableRecordKinds(grant: Grant): string[] {
  const kinds = Object.entries(RESOURCE_OF_RECORD)
    .filter(([, resource]) => allows(grant, resource, 'read'))
    .map(([kind]) => kind);
  // An import's event: its data needs the resource it imported into, checked per event.
  if (IMPORT_RESOURCES.some((r) => allows(grant, r, 'read'))) kinds.push('import');
  return kinds;
}

/** The first of `needs` the grant may not read, if any. */
export const firstUnreadable = (grant: Grant, needs: readonly Resource[]): Resource | undefined =>
  needs.find((r) => !allows(grant, r, 'read'));

/** Refuses (403) when the grant may not read the data of every event named. */
export function assertMayReadEvents(grant: Grant, events: readonly string[], field = 'events'): void {
  const refused = events.filter((e) => firstUnreadable(grant, eventNeeds(e)));
  if (refused.length === 0) return;
  throw new AppError('forbidden', `This API key may not read the data of ${refused.join(', ')}`, {
    [field]: refused.map(
      (e) =>
        `${e} needs ${eventNeeds(e)
          .map((r) => `${r}:read`)
          .join(', ')}`,
    ),
  });
}
