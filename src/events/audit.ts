// The audit log: one entry per write, recorded in the write's own transaction. A write that records
// an event records its entry in the same statement (outbox.ts builds both), so nothing that changed
// a record is missing from the log. Writes that record no event (API keys, webhook subscriptions,
// custom fields, users, settings) call recordAudit.
//
// An event that only accompanies another of the same record in the same request (a status change
// with its update, a stage move with the deal's update) adds no entry of its own: the update's
// entry already names those fields. Alone (a stage move by its own route), it is the entry.
import { Prisma } from '../db/generated/client/client.ts';
import { newId } from '../ids.ts';
import type { Actor, NewEvent } from './outbox.ts';
import { currentOrigin, type RequestOrigin } from './origin.ts';

/** Who the admin CLI's writes are recorded as (the operator at the machine, not a key or user). */
export const CLI_ACTOR: Actor = { type: 'system', id: 'cli', name: 'Admin CLI' };
/** The service's own writes at first start. */
export const SETUP_ACTOR: Actor = { type: 'system', id: 'setup', name: 'First start' };

/** `{ field: { before, after } }`. */
export type Changes = Record<string, { before: unknown; after: unknown }>;

/** Events that may accompany another write of the same record in one request. */
const COMPANIONS = new Set([
  'contact.tag_added',
  'contact.tag_removed',
  'contact.status_changed',
  'deal.stage_changed',
  'deal.won',
  'deal.lost',
  'deal.contact_added',
  'task.assigned',
  'task.completed',
]);

/** Fields every record has that say nothing about the change itself. */
const BOOKKEEPING = new Set(['id', 'version', 'created_at', 'updated_at']);

/** What the action of an event is called in the audit log: its name's last part. */
const actionOf = (type: string) => {
  const action = type.slice(type.indexOf('.') + 1);
  return action === 'logged' ? 'created' : action;
};

const fields = (record: Record<string, unknown>, side: 'before' | 'after'): Changes =>
  Object.fromEntries(
    Object.entries(record)
      .filter(([k]) => !BOOKKEEPING.has(k))
      .map(([k, v]) => [k, side === 'after' ? { before: null, after: v } : { before: v, after: null }]),
  );

/**
 * The changed fields an event's data tells of: an update's `changes` with their `previous` values,
 * every field of a created (after) or deleted (before) record, and any `previous_<field>` beside
 * its `<field>` (a status or stage change).
 */
export function changesOfEvent(type: string, entityType: string, data: Record<string, unknown>): Changes {
  const record = data[entityType] as Record<string, unknown> | undefined;
  const action = actionOf(type);
  if (record && Array.isArray(data.changes) && data.previous && typeof data.previous === 'object') {
    const previous = data.previous as Record<string, unknown>;
    return Object.fromEntries(
      (data.changes as string[]).map((f) => [f, { before: previous[f] ?? null, after: record[f] ?? null }]),
    );
  }
  if (record && action === 'created') return fields(record, 'after');
  if (record && action === 'deleted') return fields(record, 'before');
  const out: Changes = {};
  for (const [key, before] of Object.entries(data)) {
    if (!key.startsWith('previous_')) continue;
    const field = key.slice('previous_'.length);
    out[field] = { before, after: data[field] ?? record?.[field] ?? null };
  }
  return out;
}

/** The actor as the log stores it: never more than who it is. */
const storedActor = (actor: Actor | null) =>
  actor ? { type: actor.type, id: actor.id, name: actor.name } : { type: 'system', id: 'system', name: 'System' };

/** The audit columns of an event's entry, as `recordEvents` sends them with each row. */
export function auditRowOfEvent(e: NewEvent, origin: RequestOrigin = currentOrigin()) {
  return {
    audit_id: newId('aud'),
    audit_actor: storedActor(e.actor),
    audit_via: origin.via,
    audit_request_id: origin.requestId,
    audit_ip: origin.ip,
    audit_action: actionOf(e.type),
    audit_changes: changesOfEvent(e.type, e.entityType, e.data as Record<string, unknown>),
    audit_companion: COMPANIONS.has(e.type),
  };
}

/**
 * The entry of one event, as a common table expression of the event's own statement. A companion
 * is left out when the same request has already written an entry for its record.
 */
export function auditOfEventSql(e: NewEvent, eventId: string): Prisma.Sql {
  const a = auditRowOfEvent(e);
  const skip = a.audit_companion && a.audit_request_id !== null;
  return Prisma.sql`audit AS (
      INSERT INTO audit_entries (id, workspace_id, actor, via, request_id, ip, resource, record_id, action, changes,
        event_id)
      SELECT ${a.audit_id}, ${e.workspaceId}, ${JSON.stringify(a.audit_actor)}::jsonb, ${a.audit_via},
        ${a.audit_request_id}, ${a.audit_ip}, ${e.entityType}, ${e.entityId}, ${a.audit_action},
        ${JSON.stringify(a.audit_changes)}::jsonb, ${eventId}
      WHERE NOT ${skip} OR NOT EXISTS (
        SELECT 1 FROM audit_entries WHERE workspace_id = ${e.workspaceId} AND record_id = ${e.entityId}
          AND request_id = ${a.audit_request_id}))`;
}

/** A write that records no event: its entry, in the caller's transaction. */
export interface AuditWrite {
  workspaceId: string;
  actor: Actor | null;
  resource: string;
  recordId: string;
  action: string;
  changes: Changes;
}

type AuditWriter = Pick<Prisma.TransactionClient, '$executeRaw'>;

export async function recordAudit(tx: AuditWriter, w: AuditWrite): Promise<void> {
  await auditStatement(tx, w);
}

/** The entry's statement, for a batch transaction (`$transaction([...])`) of the write. */
export function auditStatement<T>(
  db: { $executeRaw: (q: TemplateStringsArray, ...v: unknown[]) => T },
  w: AuditWrite,
): T {
  const origin = currentOrigin();
  return db.$executeRaw`
    INSERT INTO audit_entries (id, workspace_id, actor, via, request_id, ip, resource, record_id, action, changes)
    VALUES (${newId('aud')}, ${w.workspaceId}, ${JSON.stringify(storedActor(w.actor))}::jsonb, ${origin.via},
      ${origin.requestId}, ${origin.ip}, ${w.resource}, ${w.recordId}, ${w.action},
      ${JSON.stringify(w.changes)}::jsonb)`;
}

/** The changes between two versions of a record's fields; `secret` fields are named, never shown. */
export function diff(
  before: Record<string, unknown> | null,
  after: Record<string, unknown> | null,
  secret: readonly string[] = [],
): Changes {
  const out: Changes = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const k of keys) {
    if (BOOKKEEPING.has(k)) continue;
    const b = before?.[k] ?? null;
    const a = after?.[k] ?? null;
    if (JSON.stringify(b) === JSON.stringify(a)) continue;
    out[k] = secret.includes(k) ? { before: null, after: null } : { before: b, after: a };
  }
  return out;
}
