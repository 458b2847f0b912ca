import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { parseLimit } from '../common/pagination.ts';

export const ContactType = builder.prismaObject('Contact', {
  fields: (t) => ({
    id: t.exposeID('id'),
    first_name: t.exposeString('firstName'),
    last_name: t.exposeString('lastName', { nullable: true }),
    email: t.exposeString('email'),
    phone: t.exposeString('phone', { nullable: true, description: 'E.164' }),
    company: t.exposeString('company', { nullable: true }),
    job_title: t.exposeString('jobTitle', { nullable: true }),
    status: t.exposeString('status', { description: 'active, inactive, lead, customer or churned' }),
    source: t.exposeString('source', { description: 'website, referral, social, paid_ads, manual, api or import' }),
    tags: t.exposeStringList('tags'),
    assigned_to: t.exposeString('assignedToId', { nullable: true, description: 'User id' }),
    assigned_user: t.relation('assignedTo', { nullable: true }),
    // Loaded with the contacts that ask for it (one query per page, not per contact).
    deals: t.relation('deals', {
      nullable: true,
      description: 'Deals whose primary contact this is, newest first. contactDeals also lists deals it is linked to in another role.',
      args: { limit: t.arg.int({ description: 'At most this many, 1 to 100 (default 25).' }) },
      // Needs deals:read, as GET /v1/contacts/:id/deals does (src/schema/read-access.ts).
      query: (args) => ({ take: parseLimit(args.limit), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    }),
    engagement_score: t.exposeInt('engagementScore'),
    custom_fields: t.field({ type: 'JSONObject', resolve: (c) => c.customFields as object }),
    address: t.field({ type: 'JSONObject', nullable: true, resolve: (c) => (c.address as object | null) ?? null }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const ContactPage = pageType('ContactPage', ContactType);
