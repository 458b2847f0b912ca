// Custom field values are checked against the workspace's definitions. Keys that are not
// defined (matched case-sensitively) are dropped and reported as warnings, never stored.
import type { ErrorDetails } from '../../errors.ts';
import { parseCalendarDate } from '../common/dates.ts';

export const CUSTOM_FIELD_TYPES = ['text', 'number', 'boolean', 'date', 'select'] as const;
export type CustomFieldType = (typeof CUSTOM_FIELD_TYPES)[number];

export interface CustomFieldDef {
  key: string;
  type: string;
  options: string[];
}

export interface CustomFieldResult {
  values: Record<string, unknown>;
  dropped: string[];
  errors: ErrorDetails;
}

function check(def: CustomFieldDef, value: unknown): string | null {
  switch (def.type) {
    case 'text':
      return typeof value === 'string' && value.length <= 10_000
        ? null
        : 'must be a string of at most 10000 characters';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value) ? null : 'must be a number';
    case 'boolean':
      return typeof value === 'boolean' ? null : 'must be true or false';
    case 'date':
      return typeof value === 'string' && parseCalendarDate(value) ? null : 'must be a date (YYYY-MM-DD) that exists';
    case 'select':
      return typeof value === 'string' && def.options.includes(value)
        ? null
        : `must be one of: ${def.options.join(', ')}`;
    default:
      return 'has an unknown type';
  }
}

/**
 * Applies `input` on top of `existing` values. A null value removes the key.
 */
export function applyCustomFields(
  defs: CustomFieldDef[],
  input: Record<string, unknown>,
  existing: Record<string, unknown> = {},
): CustomFieldResult {
  const byKey = new Map(defs.map((d) => [d.key, d]));
  const values: Record<string, unknown> = { ...existing };
  const dropped: string[] = [];
  const errors: ErrorDetails = {};
  for (const [key, value] of Object.entries(input)) {
    const def = byKey.get(key);
    if (!def) {
      dropped.push(key);
      continue;
    }
    if (value === null) {
      delete values[key];
      continue;
    }
    const problem = check(def, value);
    if (problem) errors[`custom_fields.${key}`] = [problem];
    else values[key] = value;
  }
  return { values, dropped, errors };
}

export function droppedWarning(dropped: string[]): string {
  return `Custom fields not defined in this workspace were ignored: ${dropped.join(', ')}`;
}
