import type { Activity } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';

export const ActivityType = builder.prismaObject('Activity', {
  description: 'Something that already happened: a call, email, meeting, note or SMS.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.exposeString('type', { description: 'call, email, meeting, note or sms' }),
    subject: t.exposeString('subject', { nullable: true }),
    description: t.exposeString('description', { nullable: true }),
    contact_id: t.exposeString('contactId', { nullable: true }),
    deal_id: t.exposeString('dealId', { nullable: true }),
    user_id: t.exposeString('userId', { nullable: true, description: 'The user of the key that logged it' }),
    duration: t.exposeInt('duration', { nullable: true, description: 'Minutes' }),
    outcome: t.exposeString('outcome', { nullable: true, description: 'connected, voicemail, no_answer, busy, scheduled or completed' }),
    occurred_at: t.expose('occurredAt', { type: 'DateTime' }),
    attendees: t.exposeStringList('attendees', { description: 'Contact ids' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const ActivityPage = pageType('ActivityPage', ActivityType);

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
