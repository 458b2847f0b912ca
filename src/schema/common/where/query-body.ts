// The body of `POST /v1/<resource>/query`: a filter and the list's paging, as the query-string
// lists take them. The API reference reads its shape from here.
import { z } from 'zod';
import { MAX_LIMIT } from '../pagination.ts';
import { KIND_OPERATORS, type ResourceWhere } from './where.spec.ts';

function describeFields(spec: ResourceWhere): string {
  const fields = Object.entries(spec.fields).map(([name, f]) => `\`${name}\` (${KIND_OPERATORS[f.kind].join(', ')})`);
  if (spec.customFields) fields.push('`custom_fields.<key>` (by the field type)');
  for (const [name, r] of Object.entries(spec.relations))
    fields.push(`\`${name}.<field>\` (a field of the related ${r.target().name}${r.many ? ': any of them' : ''})`);
  return fields.join('; ');
}

export function queryInput(spec: ResourceWhere) {
  return z.object({
    where: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({
        description:
          'Field paths mapped to operator objects (`{ "status": { "in": ["lead", "customer"] } }`); a bare value ' +
          'means eq, null means is_null. `and` and `or` take lists of such objects, `not` one. ' +
          `Fields and their operators: ${describeFields(spec)}. ` +
          'Limits: 5 levels of nesting, 100 conditions, 1000 values per in / nin, 1000 characters per text value.',
      }),
    sort: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .meta({ description: "As the list's `sort` query parameter: `-created_at,first_name`, or a list of such keys" }),
    limit: z.number().int().min(1).max(MAX_LIMIT).optional(),
    cursor: z.string().optional().meta({ description: 'The next_cursor of the previous page of the same query' }),
    fields: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .meta({ description: "As the list's `fields` query parameter: only these fields (and id) in each record" }),
  });
}
