// Sorting as GraphQL enums: one per list, two values per sortable field (`created_at_asc`,
// `created_at_desc`), taken in order as a list. Their values are the REST spelling
// (`created_at`, `-created_at`), so both surfaces share parseSort.
import type { ArgBuilder, ArgumentRef, EnumRef, SchemaTypes } from '@pothos/core';
import { builder } from '../builder.ts';
import type { SortSpec } from './pagination.ts';

type SortEnum = EnumRef<SchemaTypes, string, string>;
const enums = new Map<string, SortEnum>();

export function sortEnum(name: string, spec: SortSpec): SortEnum {
  const existing = enums.get(name);
  if (existing) return existing;
  const values: Record<string, { value: string; description: string }> = {};
  for (const field of Object.keys(spec.fields)) {
    values[`${field}_asc`] = { value: field, description: `By ${field}, ascending` };
    values[`${field}_desc`] = { value: `-${field}`, description: `By ${field}, descending` };
  }
  const ref = builder.enumType(name, {
    description:
      'How a list is sorted: the first value decides, later ones break ties. ' + `Default: ${describe(spec.default)}.`,
    values,
  }) as unknown as SortEnum;
  enums.set(name, ref);
  return ref;
}

/** A REST sort (`-created_at,first_name`) as the sort enum's value names (`created_at_desc`, `first_name_asc`). */
export const sortEnumNames = (rest: string): string[] =>
  rest
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => (s.startsWith('-') ? `${s.slice(1)}_desc` : `${s}_asc`));

const describe = (rest: string) => sortEnumNames(rest).join(', ');

/** The `sort` argument of a list: `[<Name>!]`, in order; the list's default when omitted or empty. */
export function sortArg<Types extends SchemaTypes>(
  t: { arg: ArgBuilder<Types> },
  name: string,
  spec: SortSpec,
  description?: string,
): ArgumentRef<Types, string[] | null | undefined> {
  return t.arg({
    type: [sortEnum(name, spec)],
    required: false,
    description: description ?? `Sort order, first value first. Default ${describe(spec.default)}.`,
  }) as ArgumentRef<Types, string[] | null | undefined>;
}
