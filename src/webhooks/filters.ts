// Subscription filters: `{ field: value | [values] }` matched against the event's record, e.g.
// `{ "pipeline_id": "pipe_1" }` or `{ "tags": ["vip"] }` (an array field must hold every value).
import { z } from 'zod';

const filterValue = z.union([z.string(), z.number(), z.boolean(), z.array(z.union([z.string(), z.number()])).max(50)]);
export const filtersSchema = z
  .record(z.string().regex(/^[a-z_]{1,64}$/, 'filter keys are record field names'), filterValue)
  .nullable();
export type Filters = z.infer<typeof filtersSchema>;

export function matchesFilters(filters: unknown, record: Record<string, unknown>): boolean {
  if (!filters || typeof filters !== 'object') return true;
  return Object.entries(filters as Record<string, unknown>).every(([key, wanted]) => {
    const actual = record[key];
    const wantedList = Array.isArray(wanted) ? wanted : [wanted];
    if (Array.isArray(actual)) return wantedList.every((w) => actual.includes(w));
    return wantedList.includes(actual as never);
  });
}
