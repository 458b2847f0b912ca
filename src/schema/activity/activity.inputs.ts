// Activity request shapes: the same snake_case fields on REST bodies and GraphQL `input` objects.
import { z } from 'zod';
import { isoDateOrTime, name255, optionalText } from '../common/validation.ts';
import { ACTIVITY_OUTCOMES, ACTIVITY_TYPES } from '../../records/activity.ts';
import { externalId, externalIdFilter } from '../common/external-id.ts';

const MAX_DURATION_MINUTES = 10_080; // one week
const id = z.string().trim().min(1, 'must not be empty').max(255, 'must be at most 255 characters');

// z.object strips unknown and read-only keys (id, user_id, created_at, ...): never stored.
export const activityCreateInput = z.object({
  type: z.enum(ACTIVITY_TYPES),
  subject: name255.nullable().optional(),
  description: optionalText(10_000),
  contact_id: id.nullable().optional(),
  deal_id: id.nullable().optional(),
  company_id: id.nullable().optional(),
  duration: z
    .number()
    .int('must be a whole number of minutes')
    .min(0, 'must be 0 or more')
    .max(MAX_DURATION_MINUTES, `must be at most ${MAX_DURATION_MINUTES} minutes`)
    .nullable()
    .optional(),
  outcome: z.enum(ACTIVITY_OUTCOMES).nullable().optional(),
  occurred_at: isoDateOrTime.optional(),
  attendees: z
    .array(id)
    .max(100, 'at most 100 attendees')
    .transform((ids) => [...new Set(ids)])
    .optional(),
  external_id: externalId.nullable().optional(),
});
export type ActivityCreateInput = z.output<typeof activityCreateInput>;

export const activityFilter = z
  .object({
    type: z.enum(ACTIVITY_TYPES).optional(),
    contact_id: z.string().optional(),
    deal_id: z.string().optional(),
    company_id: z.string().optional(),
    user_id: z.string().optional(),
    date_from: isoDateOrTime.optional(),
    date_to: isoDateOrTime.optional(),
    external_id: externalIdFilter.optional(),
  })
  .strip();
