// A filter's conditions as Prisma's `where`, for the lists Prisma selects.
// - neq and nin keep records that hold no value (SQL's `<>` alone would drop them): "not lead"
//   includes contacts without a status of lead, whatever else they hold.
// - contains / starts_with ignore case; on folded columns (emails, domains, stored lower case) the
//   value is lowered instead, so a prefix stays a LIKE an index can serve.
// - A relation to one record matches when that record matches (`is`); to many, when at least one
//   does (`some`); `not` over it means none does.
import { Prisma } from '../../../db/generated/client/client.ts';
import type { Condition, Target } from './where.compile.ts';

type Where = Record<string, unknown>;

/** %, _ and \ mean themselves in contains / starts_with. */
const literal = (s: string) => s.replace(/[\\%_]/g, '\\$&');

function columnTest(target: Extract<Target, { column: unknown }>, op: string, value: unknown): Where {
  const { field, kind, folded, nullable } = target.column;
  const orMissing = (w: Where): Where => (nullable ? { OR: [w, { [field]: null }] } : w);
  if (kind === 'tags') {
    switch (op) {
      case 'contains':
        // @> rather than = ANY: the GIN index on tags serves it.
        return { [field]: { hasEvery: [value] } };
      case 'in':
        return { [field]: { hasSome: value } };
      case 'nin':
        return { NOT: { [field]: { hasSome: value } } };
      default:
        return value ? { [field]: { isEmpty: true } } : { NOT: { [field]: { isEmpty: true } } };
    }
  }
  // A date column (expected_close_date) compares as a date; the value is YYYY-MM-DD.
  const v = kind === 'date' && typeof value === 'string' ? new Date(`${value}T00:00:00Z`) : value;
  const mode = folded ? undefined : 'insensitive';
  switch (op) {
    case 'eq':
      return { [field]: v };
    case 'neq':
      return orMissing({ [field]: { not: v } });
    case 'in':
      return { [field]: { in: v } };
    case 'nin':
      return orMissing({ [field]: { notIn: v } });
    case 'contains':
      return { [field]: { contains: literal(v as string), mode } };
    case 'starts_with':
      return { [field]: { startsWith: literal(v as string), mode } };
    case 'is_null':
      return v ? { [field]: null } : { [field]: { not: null } };
    default:
      return { [field]: { [op]: v } };
  }
}

function customTest(key: string, op: string, value: unknown): Where {
  const at = (filter: Where): Where => ({ customFields: { path: [key], ...filter } });
  const missing = at({ equals: Prisma.AnyNull });
  switch (op) {
    case 'eq':
      return at({ equals: value });
    case 'neq':
      return { OR: [{ NOT: at({ equals: value }) }, missing] };
    case 'in':
      return { OR: (value as unknown[]).map((v) => at({ equals: v })) };
    case 'nin':
      return { OR: [{ NOT: { OR: (value as unknown[]).map((v) => at({ equals: v })) } }, missing] };
    case 'contains':
      return at({ string_contains: literal(value as string), mode: 'insensitive' });
    case 'starts_with':
      return at({ string_starts_with: literal(value as string), mode: 'insensitive' });
    case 'is_null':
      return value ? missing : { NOT: missing };
    default:
      return at({ [op]: value });
  }
}

/**
 * Prisma's `where` for the conditions. `workspaceId` also bounds the related records a relation
 * condition reaches: they are the workspace's anyway, and saying so lets their indexes, which all
 * start with the workspace, serve the hop.
 */
export function toPrismaWhere(c: Condition, workspaceId: string): Where {
  const next = (inner: Condition) => toPrismaWhere(inner, workspaceId);
  if ('and' in c) return c.and.length === 1 ? next(c.and[0]) : { AND: c.and.map(next) };
  if ('or' in c) return { OR: c.or.map(next) };
  if ('not' in c) return { NOT: next(c.not) };
  if ('relation' in c)
    return { [c.relation.field]: { [c.relation.many ? 'some' : 'is']: { workspaceId, ...next(c.where) } } };
  return 'column' in c.test ? columnTest(c.test, c.op, c.value) : customTest(c.test.custom, c.op, c.value);
}
