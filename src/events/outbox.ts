// The outbox write. Every change builds its events with the catalogue (./catalogue) and records
// them inside its own transaction, so an event exists exactly when its change was committed.
import { Prisma } from '../db/generated/client/client.ts';
import type { SqlQuery } from '../db/sql.ts';
import { newId } from '../ids.ts';
import type { BuiltEvent } from './catalogue/define.ts';
import { auditOfEventSql, auditRowOfEvent } from './audit.ts';

export { ACCEPTED_EVENTS, EMITTED_EVENTS, TIMELINE_ONLY_EVENTS, type EventName } from './names.ts';

/** Who made a change: an API key (optionally on behalf of a user) or the system. */
export interface Actor {
  type: 'api_key' | 'user' | 'system';
  id: string;
  name: string;
}

/** A built event (type, record and data, from a catalogue builder) and where it belongs. */
export interface NewEvent extends BuiltEvent {
  workspaceId: string;
  /** The contact whose timeline shows the event. */
  contactId?: string | null;
  actor: Actor | null;
}

type EventWriter = Pick<Prisma.TransactionClient, '$executeRaw'>;

/**
 * Records `e` in the caller's transaction: the row insertEventSql builds, as a statement of its
 * own. Both ways of writing an event go through that one builder, so the columns, the sequence,
 * the actor and the payload are set in one place.
 */
export async function recordEvent(tx: EventWriter, e: NewEvent): Promise<string> {
  const { id, sql } = insertEventSql(e);
  await tx.$executeRaw(sql);
  return id;
}

/**
 * The outbox row of `e` as one SQL statement. It takes the event's `sequence` from the record's
 * counter in record_sequences: the upsert locks the counter row until the transaction ends, so
 * the writers of one record wait for each other and their numbers follow commit order (no gap,
 * no repeat), on PGlite and PostgreSQL alike.
 *
 * `before` are common table expressions run first in the same statement (`contact AS (INSERT …)`),
 * for writes that put their change and its event in one statement: atomic without a transaction,
 * and one round trip to the database instead of several.
 */
export function insertEventSql(e: NewEvent, ...before: Prisma.Sql[]): { id: string; sql: Prisma.Sql } {
  const id = newId('evt');
  const actor = e.actor ? JSON.stringify(e.actor) : null;
  const first = before.length ? Prisma.sql`${Prisma.join(before, ', ')}, ` : Prisma.empty;
  return {
    id,
    sql: Prisma.sql`WITH ${first}next_sequence AS (
        INSERT INTO record_sequences (entity_type, entity_id, last) VALUES (${e.entityType}, ${e.entityId}, 1)
        ON CONFLICT (entity_type, entity_id) DO UPDATE SET last = record_sequences.last + 1
        RETURNING last),
      ${auditOfEventSql(e, id)}
      INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, contact_id, data, actor)
      SELECT ${id}, ${e.workspaceId}, ${e.type}, ${e.entityType}, ${e.entityId}, last, ${e.contactId ?? null},
        ${JSON.stringify(e.data)}::jsonb, ${actor}::jsonb
      FROM next_sequence`,
  };
}

/**
 * Records many events in one statement, for writes of many records at once (batches): the same
 * rows as recordEvent, in the order given. Each record's counter is raised once by its number of
 * events, and its events take the numbers in order, so sequences stay gapless and ordered. The
 * events travel as one JSON parameter, on the driver itself (db/sql.ts): they can be megabytes.
 */
export async function recordEvents(query: SqlQuery, events: NewEvent[]): Promise<string[]> {
  if (events.length === 0) return [];
  const rows = events.map((e, ord) => ({
    ord,
    id: newId('evt'),
    workspace_id: e.workspaceId,
    type: e.type,
    entity_type: e.entityType,
    entity_id: e.entityId,
    contact_id: e.contactId ?? null,
    data: e.data,
    actor: e.actor,
    ...auditRowOfEvent(e),
  }));
  await query(
    `WITH given AS (
      SELECT *, row_number() OVER (PARTITION BY entity_type, entity_id ORDER BY ord) AS nth,
        count(*) OVER (PARTITION BY entity_type, entity_id) AS n
      FROM jsonb_to_recordset($1::jsonb) AS x(ord int, id text, workspace_id text, type text,
        entity_type text, entity_id text, contact_id text, data jsonb, actor jsonb, audit_id text, audit_actor jsonb,
        audit_via text, audit_request_id text, audit_ip text, audit_action text, audit_changes jsonb,
        audit_companion boolean)),
    -- The audit log's entries (audit.ts): a companion event adds none where its record's write has one.
    audit AS (
      INSERT INTO audit_entries (id, workspace_id, actor, via, request_id, ip, resource, record_id, action, changes,
        event_id)
      SELECT g.audit_id, g.workspace_id, g.audit_actor, g.audit_via, g.audit_request_id, g.audit_ip, g.entity_type,
        g.entity_id, g.audit_action, g.audit_changes, g.id
      FROM given g
      WHERE NOT g.audit_companion OR g.audit_request_id IS NULL OR NOT (
        EXISTS (SELECT 1 FROM given o WHERE o.entity_type = g.entity_type AND o.entity_id = g.entity_id
          AND o.ord < g.ord AND NOT o.audit_companion)
        OR EXISTS (SELECT 1 FROM audit_entries a WHERE a.workspace_id = g.workspace_id
          AND a.record_id = g.entity_id AND a.request_id = g.audit_request_id))
      ORDER BY g.ord),
    counters AS (
      INSERT INTO record_sequences (entity_type, entity_id, last)
      SELECT DISTINCT entity_type, entity_id, n FROM given
      ON CONFLICT (entity_type, entity_id) DO UPDATE SET last = record_sequences.last + EXCLUDED.last
      RETURNING entity_type, entity_id, last)
    INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, contact_id, data, actor)
    SELECT g.id, g.workspace_id, g.type, g.entity_type, g.entity_id, (c.last - g.n + g.nth)::int, g.contact_id,
      g.data, g.actor
    FROM given g JOIN counters c USING (entity_type, entity_id)
    ORDER BY g.ord`,
    [JSON.stringify(rows)],
  );
  return rows.map((r) => r.id);
}
