// A filter's conditions as SQL, for lists selected in SQL (tasks, ordered by urgency). The same
// meaning as where.prisma.ts: neq and nin keep records without a value, text matching ignores case
// except on folded columns. Resources listed here have no relations or custom fields.
import { Prisma } from '../../../db/generated/client/client.ts';
import type { Condition } from './where.compile.ts';

const sql = Prisma.sql;
const TRUE = sql`TRUE`;
const FALSE = sql`FALSE`;

const literal = (s: string) => s.replace(/[\\%_]/g, '\\$&');

export function toSqlWhere(c: Condition): Prisma.Sql {
  if ('and' in c) return c.and.length ? sql`(${Prisma.join(c.and.map(toSqlWhere), ' AND ')})` : TRUE;
  if ('or' in c) return c.or.length ? sql`(${Prisma.join(c.or.map(toSqlWhere), ' OR ')})` : FALSE;
  if ('not' in c) return sql`(NOT ${toSqlWhere(c.not)})`;
  if ('relation' in c || !('column' in c.test)) throw new Error('SQL filters take columns only');
  const { column, field, kind, folded, nullable } = c.test.column;
  const col = Prisma.raw(`"${column ?? field}"`);
  const v = c.value;
  const orMissing = (s: Prisma.Sql) => (nullable ? sql`(${s} OR ${col} IS NULL)` : s);
  if (kind === 'tags') {
    switch (c.op) {
      case 'contains':
        return sql`${col} @> ARRAY[${v}]::text[]`;
      case 'in':
        return sql`${col} && ${v}::text[]`;
      case 'nin':
        return sql`NOT (${col} && ${v}::text[])`;
      default:
        return v ? sql`cardinality(${col}) = 0` : sql`cardinality(${col}) > 0`;
    }
  }
  const like = (pattern: string) => (folded ? sql`${col} LIKE ${pattern}` : sql`${col} ILIKE ${pattern}`);
  const list = (values: unknown) => Prisma.join((values as unknown[]).map((x) => sql`${x}`));
  switch (c.op) {
    case 'eq':
      return sql`${col} = ${v}`;
    case 'neq':
      return orMissing(sql`${col} <> ${v}`);
    case 'in':
      return (v as unknown[]).length ? sql`${col} IN (${list(v)})` : FALSE;
    case 'nin':
      return (v as unknown[]).length ? orMissing(sql`${col} NOT IN (${list(v)})`) : TRUE;
    case 'contains':
      return like(`%${literal(v as string)}%`);
    case 'starts_with':
      return like(`${literal(v as string)}%`);
    case 'is_null':
      return v ? sql`${col} IS NULL` : sql`${col} IS NOT NULL`;
    case 'gt':
      return sql`${col} > ${v}`;
    case 'gte':
      return sql`${col} >= ${v}`;
    case 'lt':
      return sql`${col} < ${v}`;
    default:
      return sql`${col} <= ${v}`;
  }
}
