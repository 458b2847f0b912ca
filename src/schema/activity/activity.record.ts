// The snake_case record of an activity, as events and webhook payloads carry it. Apart from the
// GraphQL types so the event catalogue can use it without loading them.
import type { Activity } from '../../db/generated/client/client.ts';

/** The snake_case record events and webhook payloads carry: the REST response shape. */
export function activityRecord(a: Activity) {
  return {
    id: a.id,
    type: a.type,
    subject: a.subject,
    description: a.description,
    contact_id: a.contactId,
    deal_id: a.dealId,
    user_id: a.userId,
    duration: a.duration,
    outcome: a.outcome,
    occurred_at: a.occurredAt.toISOString(),
    attendees: a.attendees,
    created_at: a.createdAt.toISOString(),
  };
}
