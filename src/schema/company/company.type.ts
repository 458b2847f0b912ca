import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { parseLimit } from '../common/pagination.ts';
import { AddressType, ContactType } from '../contact/contact.type.ts';
import { DealType } from '../deal/deal.type.ts';
import { addressOf } from '../../records/contact.ts';

export const CompanyType = builder.prismaObject('Company', {
  description: 'An organisation the business deals with; its contacts and deals link to it by company_id.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    domain: t.exposeString('domain', {
      nullable: true,
      description: 'Lower case host name, e.g. example.com; unique in the workspace; null when not given',
    }),
    industry: t.exposeString('industry', { nullable: true, description: 'Null when not given' }),
    size: t.exposeInt('size', { nullable: true, description: 'Number of employees; null when not given' }),
    phone: t.exposeString('phone', { nullable: true, description: 'E.164, e.g. +14155550123; null when not given' }),
    address: t.field({
      type: AddressType,
      nullable: true,
      description: 'Null when none was given',
      resolve: (c) => addressOf(c.address),
    }),
    tags: t.exposeStringList('tags', { description: 'Distinct labels; empty when none' }),
    owner_id: t.exposeString('ownerId', {
      nullable: true,
      description: 'Id of the owning user; null when there is none',
    }),
    owner: t.relation('owner', { nullable: true, description: 'The owning user; null when there is none' }),
    custom_fields: t.field({ type: 'CustomFieldValues', resolve: (c) => c.customFields as object }),
    external_id: t.exposeString('externalId', {
      nullable: true,
      description: "The caller's own id for the company, unique in the workspace; null when not set",
    }),
    version: t.exposeInt('version', { description: 'Raised by every change of the company' }),
    // Loaded with the companies that ask for them (one query per page, not per company).
    contacts: t.relation('contacts', {
      nullable: true,
      description: 'Contacts linked to the company, newest first; null when the key may not read contacts',
      args: { limit: t.arg.int({ description: 'At most this many, 1 to 100 (default 25).' }) },
      query: (args) => ({ take: parseLimit(args.limit), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    }),
    deals: t.relation('deals', {
      nullable: true,
      description: 'Deals with the company, newest first; null when the key may not read deals',
      args: { limit: t.arg.int({ description: 'At most this many, 1 to 100 (default 25).' }) },
      query: (args) => ({ take: parseLimit(args.limit), orderBy: [{ createdAt: 'desc' }, { id: 'desc' }] }),
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const CompanyPage = pageType('CompanyPage', CompanyType);

// The links of contacts and deals to companies, defined here so the company is one module.
builder.prismaObjectFields(ContactType, (t) => ({
  company_id: t.exposeString('companyId', {
    nullable: true,
    description: 'Id of the linked company; null when none is linked',
  }),
  company_record: t.relation('companyRecord', {
    nullable: true,
    description:
      'The linked company (`company` holds its name); null when none is linked or the key may not read companies',
  }),
}));

builder.prismaObjectFields(DealType, (t) => ({
  company_id: t.exposeString('companyId', {
    nullable: true,
    description: 'Id of the company the deal is with; null when there is none',
  }),
  company: t.relation('company', {
    nullable: true,
    description: 'The company the deal is with; null when there is none or the key may not read companies',
  }),
}));
