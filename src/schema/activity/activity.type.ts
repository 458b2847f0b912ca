import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { ContactType } from '../contact/contact.type.ts';
import { DealType } from '../deal/deal.type.ts';

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
    // Selected with the activities that ask for them; each needs the read permission of what it
    // returns, like GET /v1/contacts/:id/deals (src/schema/read-access.ts).
    contact: t.field({
      type: ContactType,
      nullable: true,
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (a) => a.contact,
    }),
    deal: t.field({
      type: DealType,
      nullable: true,
      select: (_args, _ctx, nested) => ({ deal: nested(true) }),
      resolve: (a) => a.deal,
    }),
  }),
});

export const ActivityPage = pageType('ActivityPage', ActivityType);
