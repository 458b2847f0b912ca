// The paginator's keyset in SQL, for a list ordered by an expression Prisma's orderBy cannot
// state (tasks by urgency: a CASE over the priority). Limits, sort keys, cursors and the keyset
// itself are the paginator's own (pagination.ts); only the words they are stated in differ.
import { Prisma } from '../../db/generated/client/client.ts';
import type { KeysetForm, SortKey } from './pagination.ts';

const sql = Prisma.sql;
const direction = (k: SortKey, asc: string, desc: string) => Prisma.raw(k.desc ? desc : asc);

/** The keyset over these expressions, one per sort field of the list; the id is the `id` column. */
export function sqlKeyset(columns: Record<string, Prisma.Sql>): KeysetForm<Prisma.Sql, Prisma.Sql> {
  const expr = (k: SortKey) => (k.field === 'id' ? sql`id` : columns[k.field]);
  return {
    equal: (k, value) => (value === null ? sql`${expr(k)} IS NULL` : sql`${expr(k)} = ${value}`),
    beyond: (k, value) => sql`${expr(k)} ${direction(k, '>', '<')} ${value}`,
    from: (k, value) => sql`${expr(k)} ${direction(k, '>=', '<=')} ${value}`,
    isNull: (k) => sql`${expr(k)} IS NULL`,
    and: (parts) => sql`(${Prisma.join(parts, ' AND ')})`,
    or: (parts) => (parts.length ? sql`(${Prisma.join(parts, ' OR ')})` : sql`FALSE`),
    orderBy: (keys) =>
      Prisma.join(
        [
          ...keys.map((k) => sql`${expr(k)} ${direction(k, 'ASC', 'DESC')} NULLS LAST`),
          sql`id ${direction(keys[0], 'ASC', 'DESC')}`,
        ],
        ', ',
      ),
  };
}
