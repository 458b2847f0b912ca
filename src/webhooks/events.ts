// Domain event names and the outbox write. Every change calls recordEvent inside its
// own transaction, so an event exists exactly when its change was committed.
import { Prisma } from '../db/generated/client/client.ts';
import { newId } from '../ids.ts';
import { EMITTED_EVENTS, TIMELINE_ONLY_EVENTS } from './event-names.ts';

export { ACCEPTED_EVENTS, EMITTED_EVENTS, TIMELINE_ONLY_EVENTS } from './event-names.ts';

export type EventName = (typeof EMITTED_EVENTS)[number] | (typeof TIMELINE_ONLY_EVENTS)[number];

/** Who made a change: an API key (optionally on behalf of a user) or the system. */
export interface Actor {
  type: 'api_key' | 'user' | 'system';
  id: string;
  name: string;
}

export interface NewEvent {
  workspaceId: string;
  type: EventName;
  entityType: 'contact' | 'deal' | 'task' | 'activity' | 'note';
  entityId: string;
  /** The contact whose timeline shows the event. */
  contactId?: string | null;
  data: Prisma.InputJsonObject;
  actor: Actor | null;
}

type EventWriter = Pick<Prisma.TransactionClient, 'event'>;

export async function recordEvent(tx: EventWriter, e: NewEvent): Promise<string> {
  const id = newId('evt');
  await tx.event.create({
    data: {
      id,
      workspaceId: e.workspaceId,
      type: e.type,
      entityType: e.entityType,
      entityId: e.entityId,
      contactId: e.contactId ?? null,
      data: e.data,
      actor: e.actor ? { ...e.actor } : undefined,
    },
  });
  return id;
}

/**
 * The outbox row of `e` as an INSERT statement, for writes that put their change and its event
 * in one SQL statement (`WITH change AS (…) INSERT INTO events …`): atomic without a
 * transaction, and one round trip to the database instead of four.
 */
export function insertEventSql(e: NewEvent): { id: string; sql: Prisma.Sql } {
  const id = newId('evt');
  const actor = e.actor ? JSON.stringify(e.actor) : null;
  return {
    id,
    sql: Prisma.sql`INSERT INTO events (id, workspace_id, type, entity_type, entity_id, contact_id, data, actor)
      VALUES (${id}, ${e.workspaceId}, ${e.type}, ${e.entityType}, ${e.entityId}, ${e.contactId ?? null}, ${JSON.stringify(e.data)}::jsonb, ${actor}::jsonb)`,
  };
}
