// An activity on the wire: its types and outcomes, and the snake_case record events and webhook
// payloads carry. Below the GraphQL schema, so the event catalogue can use it without loading it.
import type { Activity } from '../db/generated/client/client.ts';

export const ACTIVITY_TYPES = ['call', 'email', 'meeting', 'note', 'sms'] as const;
export const ACTIVITY_OUTCOMES = ['connected', 'voicemail', 'no_answer', 'busy', 'scheduled', 'completed'] as const;

/** The snake_case record events and webhook payloads carry: the REST response shape. */
export function activityRecord(a: Activity) {
  return {
    id: a.id,
    type: a.type,
    subject: a.subject,
    description: a.description,
    contact_id: a.contactId,
    deal_id: a.dealId,
    company_id: a.companyId,
    user_id: a.userId,
    duration: a.duration,
    outcome: a.outcome,
    occurred_at: a.occurredAt.toISOString(),
    attendees: a.attendees,
    external_id: a.externalId,
    version: a.version,
    created_at: a.createdAt.toISOString(),
  };
}
