import { builder } from '../builder.ts';
import { ActivityOutcome, ActivityType as ActivityKind } from '../common/enums.ts';
import { storedEnum } from '../common/stored-enum.ts';
import { pageType } from '../common/page.ts';
import { ContactType } from '../contact/contact.type.ts';
import { DealType } from '../deal/deal.type.ts';
import { CompanyType } from '../company/company.type.ts';
import { versionDescription } from '../common/versions.ts';
import { EXTERNAL_ID_ANSWER } from '../common/external-id.ts';

export const ActivityType = builder.prismaObject('Activity', {
  description: 'Something that already happened: a call, email, meeting, note or SMS.',
  fields: (t) => ({
    id: t.exposeID('id'),
    type: t.expose('type', { type: storedEnum(ActivityKind) }),
    subject: t.exposeString('subject', { nullable: true, description: 'Null when not given' }),
    description: t.exposeString('description', { nullable: true, description: 'Null when not given' }),
    contact_id: t.exposeString('contactId', {
      nullable: true,
      description: 'Id of the contact it was with; null when none',
    }),
    deal_id: t.exposeString('dealId', { nullable: true, description: 'Id of the deal it was about; null when none' }),
    company_id: t.exposeString('companyId', {
      nullable: true,
      description: 'Id of the company it was with; null when none (its contact may still work there)',
    }),
    user_id: t.exposeString('userId', {
      nullable: true,
      description: 'The user of the key that logged it; null when the key belongs to no user',
    }),
    duration: t.exposeInt('duration', { nullable: true, description: 'Minutes; null when not given' }),
    outcome: t.expose('outcome', {
      type: storedEnum(ActivityOutcome),
      nullable: true,
      description: 'Null when not given',
    }),
    occurred_at: t.expose('occurredAt', {
      type: 'DateTime',
      description: 'When it happened; when it was logged unless given',
    }),
    attendees: t.exposeStringList('attendees', { description: 'Contact ids; empty when none were given' }),
    external_id: t.exposeString('externalId', { nullable: true, description: EXTERNAL_ID_ANSWER }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    // Selected with the activities that ask for them; each needs the read permission of what it
    // returns, like GET /v1/contacts/:id/deals (src/schema/read-access.ts).
    contact: t.field({
      type: ContactType,
      nullable: true,
      description: 'The contact; null when there is none or the key may not read contacts',
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (a) => a.contact,
    }),
    deal: t.field({
      type: DealType,
      nullable: true,
      description: 'The deal; null when there is none or the key may not read deals',
      select: (_args, _ctx, nested) => ({ deal: nested(true) }),
      resolve: (a) => a.deal,
    }),
    company: t.field({
      type: CompanyType,
      nullable: true,
      description: 'The company; null when there is none or the key may not read companies',
      select: (_args, _ctx, nested) => ({ company: nested(true) }),
      resolve: (a) => a.company,
    }),
  }),
});

export const ActivityPage = pageType('ActivityPage', ActivityType);
