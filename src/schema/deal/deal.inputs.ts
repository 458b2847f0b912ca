// Deal request shapes: the same snake_case fields on REST bodies and GraphQL `input` objects.
import { z } from 'zod';
import { customFieldValues, isoDate, isoDateOrTime, name255, optionalText, tagList } from '../common/validation.ts';
import { DEAL_STATUSES } from '../../records/deal.ts';
import { externalId, externalIdFilter } from '../common/external-id.ts';

export type DealStatus = (typeof DEAL_STATUSES)[number];

/** Decimal(18, 4) holds up to 14 integer digits. */
const MAX_VALUE = 99_999_999_999_999;

const id = z.string().min(1, 'is required');
// A JSON number only: "1000" is a validation error, not a number (product decision).
const value = z
  .number('must be a JSON number')
  .min(0, 'must be 0 or more')
  .max(MAX_VALUE, `must be at most ${MAX_VALUE}`);
const currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be an ISO 4217 code such as USD')
  .transform((c) => c.toUpperCase());
const probability = z
  .number()
  .int('must be a whole number')
  .min(0, 'must be from 0 to 100')
  .max(100, 'must be from 0 to 100');
const dealFields = {
  title: name255.min(1, 'is required'),
  pipeline_id: id,
  stage_id: id.optional(),
  value: value.nullable().optional(),
  currency: currency.optional(),
  probability: probability.nullable().optional(),
  owner_id: z.string().nullable().optional(),
  contact_id: z.string().nullable().optional(),
  company_id: z.string().nullable().optional().meta({ description: 'A company of the workspace; null unlinks' }),
  expected_close_date: isoDate.nullable().optional(),
  custom_fields: customFieldValues.optional(),
  tags: tagList.optional(),
  external_id: externalId.nullable().optional(),
};

// z.object strips unknown and read-only keys (id, stage_name, created_at, ...): never stored.
// A new deal is always open; status and its reasons change through updates.
export const dealCreateInput = z.object(dealFields);
export const dealUpdateInput = z
  .object({
    ...dealFields,
    status: z.enum(DEAL_STATUSES),
    won_reason: optionalText(1000),
    lost_reason: optionalText(1000),
    competitor: optionalText(255),
  })
  .partial();
export type DealCreateInput = z.output<typeof dealCreateInput>;
export type DealUpdateInput = z.output<typeof dealUpdateInput>;

export const moveStageInput = z.object({ stage_id: id, note: optionalText(10_000) });

export const dealContactInput = z.object({
  contact_id: id,
  role: name255.min(1, 'must not be empty').nullable().optional(),
});

/** A number from GraphQL, or its text from a query string. */
const numeric = z.union([
  z.number(),
  z
    .string()
    .trim()
    .regex(/^-?\d+(\.\d+)?$/, 'must be a number')
    .transform(Number),
]);

export const dealFilter = z
  .object({
    pipeline_id: z.string().optional(),
    stage_id: z.string().optional(),
    owner_id: z.string().optional(),
    contact_id: z.string().optional(),
    status: z.enum(DEAL_STATUSES).optional(),
    min_value: numeric.optional(),
    max_value: numeric.optional(),
    expected_close_after: isoDateOrTime.optional(),
    expected_close_before: isoDateOrTime.optional(),
    external_id: externalIdFilter.optional(),
  })
  .strip();
