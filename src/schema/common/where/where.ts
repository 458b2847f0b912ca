// The filter language as the list resolvers use it: a `where` argument checked and compiled once
// per request (custom field definitions read only when the filter names custom fields), and the
// query-string filters of the spec stated as the same conditions.
import { assertAllowed, type Resource } from '../../../auth/scopes.ts';
import type { Context } from '../../context.ts';
import { definitionsLoader } from '../../custom-field/custom-field.loader.ts';
import { compileWhere, namesCustomFields, type Condition } from './where.compile.ts';
import type { Operator, ResourceWhere } from './where.spec.ts';

/**
 * The conditions of a list's `where` argument; null when none was given. A filter reaching a
 * related record needs that record's read permission, as reading it would: a key that may not read
 * companies cannot learn a company's fields by filtering contacts on them either.
 */
export async function whereArg(ctx: Context, spec: ResourceWhere, where: unknown): Promise<Condition | null> {
  if (where === undefined || where === null) return null;
  const defs = namesCustomFields(where) ? await definitionsLoader(ctx).load(ctx.caller.accountId) : [];
  const condition = compileWhere(spec, where, defs);
  for (const resource of relatedResources(condition)) assertAllowed(ctx.caller, resource, 'read');
  return condition;
}

/** The resources the condition's relations reach. */
function relatedResources(c: Condition, found = new Set<Resource>()): Set<Resource> {
  if ('and' in c) for (const part of c.and) relatedResources(part, found);
  else if ('or' in c) for (const part of c.or) relatedResources(part, found);
  else if ('not' in c) relatedResources(c.not, found);
  else if ('relation' in c) found.add(c.relation.target().name as Resource);
  return found;
}

/**
 * A query-string filter (already checked by its zod schema) as conditions of the filter language:
 * one test per given parameter, all of which must hold.
 */
export function conditionsOf(spec: ResourceWhere, tests: [field: string, op: Operator, value: unknown][]): Condition {
  return {
    and: tests
      .filter(([, , value]) => value !== undefined)
      .map(([field, op, value]) => {
        const column = spec.fields[field];
        if (!column) throw new Error(`${spec.name} has no filter field ${field}`);
        return { test: { column }, op, value };
      }),
  };
}

/** Both conditions; the second left out when absent. */
export const allOf = (a: Condition, b: Condition | null): Condition => (b ? { and: [a, b] } : a);
