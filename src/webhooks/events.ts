// Domain event names and the outbox write. Every change calls recordEvent inside its
// own transaction, so an event exists exactly when its change was committed.
import type { Prisma } from '../db/generated/client/client.ts';
import { newId } from '../ids.ts';

/** Events the service emits. */
export const EMITTED_EVENTS = [
  'contact.created', 'contact.updated', 'contact.deleted', 'contact.merged',
  'contact.tag_added', 'contact.tag_removed', 'contact.status_changed',
  'deal.created', 'deal.updated', 'deal.stage_changed', 'deal.won', 'deal.lost', 'deal.deleted',
  'task.created', 'task.updated', 'task.completed', 'task.assigned', 'task.overdue', 'task.deleted',
  'activity.logged',
] as const;

/** Names from the specification that subscriptions may list although nothing emits them yet. */
export const ACCEPTED_EVENTS = [
  ...EMITTED_EVENTS,
  'invoice.created', 'invoice.paid', 'invoice.overdue', 'form.submitted',
  'payment.received', 'payment.failed', 'payment.refunded', 'subscription.created', 'subscription.canceled',
  'appointment.booked', 'appointment.rescheduled', 'appointment.canceled',
  'email.sent', 'email.opened', 'email.clicked', 'email.bounced', 'sms.sent', 'sms.received', 'call.completed',
] as const;

/** Written to the log for contact timelines only; never offered to subscribers. */
export const TIMELINE_ONLY_EVENTS = ['note.created', 'deal.contact_added', 'deal.contact_removed'] as const;

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
