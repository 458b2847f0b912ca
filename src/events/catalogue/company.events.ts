// Company events. `data.company` is the company after the change (before it, for a deletion).
import { z } from 'zod';
import type { Company } from '../../db/generated/client/client.ts';
import { companyRecord } from '../../records/company.ts';
import { MERGE_STRATEGIES } from '../../records/contact.ts';
import { defineEvent } from './define.ts';
import { changedFields, CompanyRecordSchema, previousValues } from './records.ts';
import { sampleCompany } from './samples.ts';

type CompanyField = keyof ReturnType<typeof companyRecord>;

const companyOnly = z.object({ company: CompanyRecordSchema });

export const companyCreated = defineEvent({
  name: 'company.created',
  entityType: 'company',
  description: 'A company was created.',
  data: companyOnly,
  build: (company: Company) => ({ company: companyRecord(company) }),
  sampleInput: () => sampleCompany(),
});

export const companyUpdated = defineEvent({
  name: 'company.updated',
  entityType: 'company',
  description: 'Fields of a company changed; `changes` names them and `previous` holds their values before.',
  data: z.object({
    company: CompanyRecordSchema,
    changes: changedFields(CompanyRecordSchema),
    previous: previousValues(CompanyRecordSchema),
  }),
  build: ({ company, before, changes }: { company: Company; before: Company; changes: CompanyField[] }) => {
    const was = companyRecord(before);
    return {
      company: companyRecord(company),
      changes,
      previous: Object.fromEntries(changes.map((f) => [f, was[f] ?? null])),
    };
  },
  sampleInput: () => ({
    company: sampleCompany({ industry: 'Software', version: 2 }),
    before: sampleCompany(),
    changes: ['industry'] as CompanyField[],
  }),
});

export const companyDeleted = defineEvent({
  name: 'company.deleted',
  entityType: 'company',
  description: 'A company was deleted; `data.company` is the company as it was. Its contacts and deals stay, unlinked.',
  data: companyOnly,
  build: (company: Company) => ({ company: companyRecord(company) }),
  sampleInput: () => sampleCompany(),
});

export const companyMerged = defineEvent({
  name: 'company.merged',
  entityType: 'company',
  description:
    'A company was merged into another: `company` is the primary after the merge, `merged_company` the ' +
    'secondary as it was before it was deleted; its contacts and deals now belong to the primary.',
  data: z.object({
    company: CompanyRecordSchema,
    merged_company: CompanyRecordSchema.describe('The secondary company as it was; it no longer exists'),
    merge_strategy: z.enum(MERGE_STRATEGIES),
    moved_contacts: z.int().describe('Contacts moved from the secondary to the primary'),
    moved_deals: z.int().describe('Deals moved from the secondary to the primary'),
  }),
  build: (input: {
    company: Company;
    merged: Company;
    strategy: (typeof MERGE_STRATEGIES)[number];
    movedContacts: number;
    movedDeals: number;
  }) => ({
    company: companyRecord(input.company),
    merged_company: companyRecord(input.merged),
    merge_strategy: input.strategy,
    moved_contacts: input.movedContacts,
    moved_deals: input.movedDeals,
  }),
  sampleInput: () => ({
    company: sampleCompany({ tags: ['sample', 'imported'], version: 2 }),
    merged: sampleCompany({ id: 'com_sample_duplicate', domain: 'example.org', tags: ['imported'] }),
    strategy: 'prefer_primary' as const,
    movedContacts: 1,
    movedDeals: 0,
  }),
});
