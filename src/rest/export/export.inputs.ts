// What an export takes: the list's own filters (query string, or the filter language in a body)
// and the file's format. The API reference reads its parameters from here.
import { z } from 'zod';
import type { ResourceWhere } from '../../schema/common/where/where.spec.ts';
import { queryInput } from '../../schema/common/where/query-body.ts';
import { EXPORT_FORMATS } from './export.format.ts';

const format = z.enum(EXPORT_FORMATS).optional().meta({
  description: 'csv (one column per field, custom fields included) or jsonl (one record per line). Default: csv.',
});

/** `GET /v1/<resource>/export`: the list's query-string filters and the format. */
export function exportQuery(filter: z.ZodObject) {
  return filter.extend({ format });
}

/** `POST /v1/<resource>/export`: a filter in the filter language, the fields and the format. */
export function exportInput(spec: ResourceWhere) {
  return queryInput(spec).omit({ sort: true, limit: true, cursor: true }).extend({ format });
}
