// The rules by which two contacts become one, on values alone: the service's merge and the
// dashboard's preview of it both follow them, whatever their records' field names.

export type MergeStrategy = 'prefer_primary' | 'prefer_secondary';

/** The per-record cap on tags (as in every contact body): a merge that would pass it is refused, not cut. */
export const MAX_TAGS = 50;

/** No value: null, missing, an empty string or an empty object (an address without parts). */
export const isBlank = (v: unknown): boolean =>
  v === null || v === undefined || v === '' || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** The preferred contact, whose non-empty values win, then the one that fills its blanks. */
export function mergeSides<T>(primary: T, secondary: T, strategy: MergeStrategy): [win: T, fill: T] {
  return strategy === 'prefer_secondary' ? [secondary, primary] : [primary, secondary];
}

/** The preferred value unless it is blank. */
export const mergedValue = <V>(win: V, fill: V): V => (isBlank(win) ? fill : win);

/** Both contacts' tags, the preferred side's first, each once. */
export const mergedTags = (win: readonly string[], fill: readonly string[]): string[] => [
  ...new Set([...win, ...fill]),
];

/** Both contacts' custom fields; the preferred side wins a key present in both. */
export const mergedCustomFields = (win: unknown, fill: unknown): Record<string, unknown> => ({
  ...(fill as Record<string, unknown>),
  ...(win as Record<string, unknown>),
});
