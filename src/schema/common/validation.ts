// Input validation with zod, reported in the API's error vocabulary:
// 400 validation_error with `details` mapping each field to its messages.
import { z } from 'zod';
import { validationError, type ErrorDetails } from '../../errors.ts';
import { parseCalendarDate, parseCalendarDateTime } from './dates.ts';
import { scalarNamed } from './graphql-names.ts';

export function issuesToDetails(issues: readonly z.core.$ZodIssue[], prefix = ''): ErrorDetails {
  const details: ErrorDetails = {};
  for (const issue of issues) {
    const key = prefix + (issue.path.length ? issue.path.map(String).join('.') : '_');
    const missing = issue.code === 'invalid_type' && /received undefined/.test(issue.message);
    (details[key] ??= []).push(missing ? 'is required' : issue.message);
  }
  return details;
}

export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(issuesToDetails(result.error.issues));
  return result.data;
}

// Shared field rules (limits from the product decisions).
export const name255 = z.string().trim().max(255, 'must be at most 255 characters');
export const optionalText = (max: number) =>
  z.string().max(max, `must be at most ${max} characters`).nullable().optional();
export const tagList = z
  .array(z.string().trim().min(1, 'tags must not be empty').max(64, 'tags must be at most 64 characters'))
  .max(50, 'at most 50 tags')
  .transform((tags) => [...new Set(tags)]);
/** ISO 8601 date (YYYY-MM-DD) or date-time naming a real day and time, as a Date. */
export const isoDateOrTime = z
  .string()
  .transform(
    (s, ctx) =>
      parseCalendarDateTime(s) ??
      (ctx.addIssue({ code: 'custom', message: 'must be an ISO 8601 date or date-time that exists (years 0001-9999)' }),
      z.NEVER),
  )
  .meta({
    description: 'ISO 8601 date (YYYY-MM-DD) or date-time',
    anyOf: [
      { type: 'string', format: 'date' },
      { type: 'string', format: 'date-time' },
    ],
  });
/** A calendar date (YYYY-MM-DD) that exists, stored as UTC midnight. */
export const isoDate = z
  .string()
  .transform(
    (s, ctx) =>
      parseCalendarDate(s) ??
      (ctx.addIssue({ code: 'custom', message: 'must be a date (YYYY-MM-DD) that exists (years 0001-9999)' }), z.NEVER),
  )
  .meta({ format: 'date' });
/** Comma-separated list from a query string, or an array from GraphQL. */
export const csvList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(','))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .meta({ description: 'Comma-separated values' });

/** Custom field values by key; each is checked against its definition when written. */
export const customFieldValues = scalarNamed(z.record(z.string(), z.unknown()), 'CustomFieldValues');

/**
 * Parts of an input that another schema checks later, one by one (each bulk row fails on its own,
 * so the array itself takes anything). The API reference describes such a part with that schema.
 */
export const documentedAs = new WeakMap<z.core.$ZodType, z.ZodType>();
