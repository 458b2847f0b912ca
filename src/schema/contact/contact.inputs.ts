// Contact request shapes: the same snake_case fields on REST bodies and GraphQL `input` objects.
import { z } from 'zod';
import { checkedPerRow, inputNamed } from '../common/graphql-names.ts';
import {
  csvList,
  customFieldValues,
  documentedAs,
  isoDateOrTime,
  name255,
  optionalText,
  tagList,
} from '../common/validation.ts';
import { CONTACT_SOURCES, CONTACT_STATUSES, MERGE_STRATEGIES } from '../../records/contact.ts';
import { externalId, externalIdFilter } from '../common/external-id.ts';

const email = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('must be a valid email address').max(255, 'must be at most 255 characters'))
  .meta({ format: 'email' });
export const phone = z
  .string()
  .trim()
  .regex(/^\+[1-9]\d{6,14}$/, 'must be an E.164 phone number such as +14155550123')
  .meta({ description: 'E.164 phone number, e.g. +14155550123' });
export const address = inputNamed(
  z
    .object({
      street: optionalText(255),
      city: optionalText(255),
      state: optionalText(255),
      zip: optionalText(32),
      country: optionalText(255),
    })
    .strip(),
  'AddressInput',
  'A postal address; every part is optional.',
);

const contactFields = {
  first_name: name255.min(1, 'is required'),
  last_name: name255.nullable().optional(),
  email,
  phone: phone.nullable().optional(),
  company: name255.nullable().optional(),
  job_title: name255.nullable().optional(),
  status: z.enum(CONTACT_STATUSES).optional(),
  source: z.enum(CONTACT_SOURCES).optional(),
  tags: tagList.optional(),
  assigned_to: z.string().nullable().optional(),
  company_id: z
    .string()
    .nullable()
    .optional()
    .meta({ description: 'A company of the workspace; `company` then holds its name. Null unlinks.' }),
  custom_fields: customFieldValues.optional(),
  address: address.nullable().optional(),
  external_id: externalId.nullable().optional(),
};

// z.object strips unknown and read-only keys (id, created_at, engagement_score, ...): never stored.
export const contactCreateInput = z.object(contactFields);
export const contactUpdateInput = z.object(contactFields).partial();
export type ContactCreateInput = z.output<typeof contactCreateInput>;
export type ContactUpdateInput = z.output<typeof contactUpdateInput>;

export const BULK_MAX = 100;
// Each row is checked on its own with contactCreateInput, so one bad row fails alone.
const bulkRow = checkedPerRow(
  z.unknown(),
  'ContactBulkRow',
  'One contact of a bulk create: the fields of ContactCreateInput, checked row by row ' +
    '(first_name and email are required there).',
  contactCreateInput,
);
documentedAs.set(bulkRow, contactCreateInput);
export const bulkInput = z.object({
  contacts: z
    .array(bulkRow)
    .min(1, 'must hold at least one contact')
    .max(BULK_MAX, `at most ${BULK_MAX} contacts per request`),
});

export const mergeInput = z.object({
  primary_id: z.string().min(1),
  secondary_id: z.string().min(1),
  merge_strategy: z.enum(MERGE_STRATEGIES).default('prefer_primary'),
});

export const contactFilter = z
  .object({
    status: z.enum(CONTACT_STATUSES).optional(),
    source: z.enum(CONTACT_SOURCES).optional(),
    assigned_to: z.string().optional(),
    tags: csvList.optional(),
    company: z.string().max(255).optional(),
    created_after: isoDateOrTime.optional(),
    created_before: isoDateOrTime.optional(),
    updated_after: isoDateOrTime.optional(),
    external_id: externalIdFilter.optional(),
  })
  .strip();

export const noteInput = z.object({
  content: z.string().trim().min(1, 'is required').max(100_000, 'must be at most 100000 characters'),
});

export const searchInput = z.object({
  q: z.string().trim().min(1, 'is required').max(500, 'must be at most 500 characters'),
});
