import { builder } from '../builder.ts';
import { ContactSource, ContactStatus } from '../common/enums.ts';
import { pageType } from '../common/page.ts';
import { parseLimit } from '../common/pagination.ts';
import { storedEnum } from '../common/stored-enum.ts';
import { addressOf, type Address } from '../../records/contact.ts';
import { EXTERNAL_ID_ANSWER } from '../common/external-id.ts';
import { versionDescription } from '../common/versions.ts';

export const AddressType = builder.objectRef<Address>('Address').implement({
  description: 'A postal address. Each part is null when it was not given.',
  fields: (t) => ({
    street: t.exposeString('street', { nullable: true }),
    city: t.exposeString('city', { nullable: true }),
    state: t.exposeString('state', { nullable: true, description: 'State, province or region' }),
    zip: t.exposeString('zip', { nullable: true, description: 'Postal code' }),
    country: t.exposeString('country', { nullable: true }),
  }),
});

export const ContactType = builder.prismaObject('Contact', {
  description: 'A person the business deals with, unique by email within the workspace.',
  fields: (t) => ({
    id: t.exposeID('id'),
    first_name: t.exposeString('firstName'),
    last_name: t.exposeString('lastName', { nullable: true, description: 'Null when not given' }),
    email: t.exposeString('email', { description: 'Lower case; unique in the workspace' }),
    phone: t.exposeString('phone', { nullable: true, description: 'E.164, e.g. +14155550123; null when not given' }),
    company: t.exposeString('company', { nullable: true, description: 'Null when not given' }),
    job_title: t.exposeString('jobTitle', { nullable: true, description: 'Null when not given' }),
    status: t.expose('status', { type: storedEnum(ContactStatus) }),
    source: t.expose('source', { type: storedEnum(ContactSource) }),
    tags: t.exposeStringList('tags', { description: 'Distinct labels; empty when none' }),
    assigned_to: t.exposeString('assignedToId', {
      nullable: true,
      description: 'Id of the user the contact is assigned to; null when unassigned',
    }),
    assigned_user: t.relation('assignedTo', {
      nullable: true,
      description: 'The user the contact is assigned to; null when unassigned',
    }),
    // Loaded with the contacts that ask for it (one query per page, not per contact).
    deals: t.relation('deals', {
      nullable: true,
      description:
        'Deals whose primary contact this is, newest first; null when the key may not read deals. ' +
        'contactDeals also lists deals it is linked to in another role.',
      args: { limit: t.arg.int({ description: 'At most this many, 1 to 100 (default 25).' }) },
      // Needs deals:read, as GET /v1/contacts/:id/deals does (src/schema/read-access.ts).
      query: (args) => ({ take: parseLimit(args.limit), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    }),
    engagement_score: t.exposeInt('engagementScore', {
      description: 'Engagement score: 0 for a new contact; a merge keeps the higher of the two',
    }),
    custom_fields: t.field({ type: 'CustomFieldValues', resolve: (c) => c.customFields as object }),
    address: t.field({
      type: AddressType,
      nullable: true,
      description: 'Null when none was given',
      resolve: (c) => addressOf(c.address),
    }),
    external_id: t.exposeString('externalId', { nullable: true, description: EXTERNAL_ID_ANSWER }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const ContactPage = pageType('ContactPage', ContactType);
