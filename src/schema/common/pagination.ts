// Keyset (cursor) pagination with multi-field sorting. A cursor holds the sort values and
// id of the last row of a page, so pages stay stable while rows are inserted. It also names the
// list it was issued for (`contacts`, `contact_notes:<contact id>`): a position in one list means
// nothing in another, so a cursor used on another list is refused rather than answered with a
// page that silently starts at the wrong place.
// Every keyset list pages here: most state their order and keyset to Prisma; a list ordered by
// an expression Prisma cannot state (tasks by urgency) states the same keyset in SQL
// (pagination.sql.ts), so cursors, ties and nulls behave alike on every list.
import { z } from 'zod';
import { validationError } from '../../errors.ts';
import { parseIsoInstant } from './dates.ts';
import { isDatabaseText } from './storable.ts';

export type SortType = 'date' | 'string' | 'number' | 'int' | 'bigint';

export interface SortableField {
  /** Prisma field name. */
  field: string;
  type: SortType;
  nullable?: boolean;
}

export interface SortSpec {
  /** API name -> column. */
  fields: Record<string, SortableField>;
  /** Used when no sort is given, e.g. `-created_at`. */
  default: string;
}

export interface SortKey extends SortableField {
  desc: boolean;
}

export interface Page<T> {
  nodes: T[];
  limit: number;
  hasMore: boolean;
  nextCursor: string | null;
  /** Counted only when a client asks for it. */
  total: () => Promise<number>;
}

export const MAX_LIMIT = 100;
export const DEFAULT_LIMIT = 25;

export function parseLimit(limit: number | null | undefined): number {
  if (limit === null || limit === undefined) return DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw validationError({ limit: [`must be an integer from 1 to ${MAX_LIMIT}`] });
  }
  return limit;
}

/** Sort keys from `-created_at,first_name` (REST) or the values of a sort enum list (GraphQL). */
export function parseSort(sort: string | readonly string[] | null | undefined, spec: SortSpec): SortKey[] {
  const given = Array.isArray(sort) ? sort.join(',') : (sort as string | null | undefined);
  const text = given?.trim() ? given : spec.default;
  const keys: SortKey[] = [];
  for (const part of text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const desc = part.startsWith('-');
    const name = desc ? part.slice(1) : part;
    const field = spec.fields[name];
    if (!field) {
      throw validationError({ sort: [`cannot sort by "${name}"; allowed: ${Object.keys(spec.fields).join(', ')}`] });
    }
    if (!keys.some((k) => k.field === field.field)) keys.push({ ...field, desc });
  }
  if (keys.length === 0) return parseSort(spec.default, spec);
  return keys;
}

const cursorShape = z.object({
  l: z.string(),
  s: z.string(),
  v: z.array(z.union([z.string(), z.number(), z.null()])),
  id: z.string(),
});
/** Cursors issued before cursors named their list carry no `l`. */
const unnamedShape = z.union([
  z.object({ s: z.string(), v: z.array(z.unknown()), id: z.string() }),
  z.string().regex(/^o:\d+$/),
]);

const notACursor = () => validationError({ cursor: ['is not a cursor returned by this endpoint'] });

/** A cursor's JSON, with the list it names checked: another list's cursor, or one naming none, is a 400. */
function openCursor(list: string, cursor: string): unknown {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text; // offset cursors of earlier versions were `o:<n>`
  }
  const named = z.object({ l: z.string() }).safeParse(parsed);
  if (!named.success) {
    if (unnamedShape.safeParse(parsed).success)
      throw validationError({
        cursor: ['was issued by an earlier version of the service; start again from the first page'],
      });
    throw notACursor();
  }
  if (named.data.l !== list) throw validationError({ cursor: ['was issued for a different list'] });
  return parsed;
}

function signature(keys: SortKey[]): string {
  return keys.map((k) => (k.desc ? '-' : '') + k.field).join(',');
}

function encodeValue(v: unknown): string | number | null {
  if (v === null || v === undefined) return null;
  if (v instanceof Date) return v.toISOString();
  if (typeof v === 'number') return v;
  return String(v); // bigint and decimal travel as strings
}

const INT4 = 2 ** 31;
const INT8_MAX = 2n ** 63n - 1n;
/** Decimal(18, 4), the widest numeric column a list sorts by. */
const DECIMAL = /^-?\d{1,14}(\.\d{1,4})?$/;

/**
 * A sort value from a cursor, as the column holds it; undefined when no row could have it (a
 * tampered cursor), which the caller answers with a 400 rather than letting the database fail.
 */
function decodeValue(v: string | number | null, type: SortType): unknown {
  if (v === null) return null;
  switch (type) {
    case 'date':
      return typeof v === 'string' ? (parseIsoInstant(v) ?? undefined) : undefined;
    case 'int':
      return Number.isInteger(v) && Math.abs(v as number) < INT4 ? v : undefined;
    case 'number':
      return typeof v === 'number'
        ? Number.isFinite(v) && DECIMAL.test(String(v))
          ? v
          : undefined
        : DECIMAL.test(v)
          ? Number(v)
          : undefined;
    case 'bigint':
      return typeof v === 'string' && /^\d{1,19}$/.test(v) && BigInt(v) <= INT8_MAX ? BigInt(v) : undefined;
    case 'string':
      return typeof v === 'string' && isDatabaseText(v) ? v : undefined;
  }
}

/** The cursor of the position after `row` (which holds each sort key under its field's name) in `list`. */
export function encodeCursor(list: string, keys: SortKey[], row: Record<string, unknown>): string {
  const body = { l: list, s: signature(keys), v: keys.map((k) => encodeValue(row[k.field])), id: String(row.id) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/**
 * The sort values and id a cursor of `list` carries, checked against the list, the sort order and the columns' types.
 */
function decodeCursor(list: string, keys: SortKey[], cursor: string): { values: unknown[]; id: string } {
  const shaped = cursorShape.safeParse(openCursor(list, cursor));
  if (!shaped.success) throw notACursor();
  const parsed = shaped.data;
  if (parsed.s !== signature(keys) || parsed.v.length !== keys.length) {
    throw validationError({ cursor: ['was issued for a different sort order'] });
  }
  // A null only where the column can hold one: `seq: null` would reach the database as a query it refuses.
  const values = keys.map((k, i) =>
    parsed.v[i] === null && !k.nullable ? undefined : decodeValue(parsed.v[i], k.type),
  );
  if (values.includes(undefined) || !isDatabaseText(parsed.id)) throw notACursor();
  return { values, id: parsed.id };
}

/**
 * How a store states a keyset: Prisma's `where` and `orderBy` objects, or SQL. A key is a sort
 * field or, last, the id that breaks ties.
 */
export interface KeysetForm<W, O> {
  /** The key holds `value` (null: holds none). */
  equal(key: SortKey, value: unknown): W;
  /** The key comes strictly after `value` in the key's direction. */
  beyond(key: SortKey, value: unknown): W;
  /** The key comes at or after `value`: the range an index scan can start from. */
  from(key: SortKey, value: unknown): W;
  isNull(key: SortKey): W;
  and(parts: W[]): W;
  or(parts: W[]): W;
  /** The keys in order, nulls last, then the id in the first key's direction. */
  orderBy(keys: SortKey[]): O;
}

const idKey = (keys: SortKey[]): SortKey => ({ field: 'id', type: 'string', desc: keys[0].desc });

/** The rows after the position (values, id): equal on the keys before some key, strictly after on it. */
function afterPosition<W, O>(form: KeysetForm<W, O>, keys: SortKey[], values: unknown[], id: string): W {
  const all = [...keys, idKey(keys)];
  const at = [...values, id];
  const branches: W[] = [];
  all.forEach((key, i) => {
    // Nulls sort last in both directions, so after a null only other nulls (ordered by later keys) follow.
    if (at[i] === null) return;
    const beyond = form.beyond(key, at[i]);
    const after = key.nullable ? form.or([beyond, form.isNull(key)]) : beyond;
    branches.push(form.and([...all.slice(0, i).map((k, j) => form.equal(k, at[j])), after]));
  });
  // The same condition as a range on the first key: the OR alone does not let PostgreSQL start
  // its index scan at the cursor, and a page 1,000 pages deep would read all the rows before it.
  const first = keys[0];
  if (first.nullable || values[0] === null) return form.or(branches);
  return form.and([form.from(first, values[0]), form.or(branches)]);
}

type PrismaWhere = Record<string, unknown>;
type PrismaOrder = Record<string, unknown>[];

const prismaKeyset: KeysetForm<PrismaWhere, PrismaOrder> = {
  equal: (k, value) => ({ [k.field]: value }),
  beyond: (k, value) => ({ [k.field]: { [k.desc ? 'lt' : 'gt']: value } }),
  from: (k, value) => ({ [k.field]: { [k.desc ? 'lte' : 'gte']: value } }),
  isNull: (k) => ({ [k.field]: null }),
  and: (parts) => ({ AND: parts }),
  or: (parts) => ({ OR: parts }),
  orderBy: (keys) => [
    ...keys.map((k) => {
      const sort = k.desc ? 'desc' : 'asc';
      return { [k.field]: k.nullable ? { sort, nulls: 'last' } : sort };
    }),
    // The id breaks ties so every row has exactly one place in the order.
    { id: keys[0].desc ? 'desc' : 'asc' },
  ],
};

/** What every list takes from its caller: page size, where to start, order. */
export interface ListArgs {
  limit?: number | null;
  cursor?: string | null;
  sort?: string | readonly string[] | null;
}

export interface PageQuery<T, W = PrismaWhere, O = PrismaOrder> {
  /** The list's name, with the id of the record it belongs to if any: `contact_notes:<id>`. */
  list: string;
  where: W;
  /** The rows in order; each holds its sort values under their fields' names, for the next cursor. */
  fetch: (args: { where: W; orderBy: O; take: number }) => Promise<T[]>;
  count: (where: W) => Promise<number>;
}

/** A page as `args` ask, in `form`: the one place a list's limit, sort and cursor are read. */
export async function keysetPage<T extends { id: string }, W, O>(
  form: KeysetForm<W, O>,
  args: ListArgs,
  spec: SortSpec,
  q: PageQuery<T, W, O>,
): Promise<Page<T>> {
  const limit = parseLimit(args.limit);
  const keys = parseSort(args.sort, spec);
  const cursor = args.cursor ? decodeCursor(q.list, keys, args.cursor) : null;
  const where = cursor ? form.and([q.where, afterPosition(form, keys, cursor.values, cursor.id)]) : q.where;
  const rows = await q.fetch({ where, orderBy: form.orderBy(keys), take: limit + 1 });
  return pageOf(q.list, keys, limit, rows, () => q.count(q.where));
}

/**
 * The page of `list` whose rows, in the list's order, are `rows`: up to `limit + 1` of them, the
 * one past the page only telling that another page follows. How every keyset page is answered,
 * also where the rows of many lists are read at once (a company's notes, for every company listed).
 */
export function pageOf<T extends { id: string }>(
  list: string,
  keys: SortKey[],
  limit: number,
  rows: T[],
  total: () => Promise<number>,
): Page<T> {
  const hasMore = rows.length > limit;
  const nodes = hasMore ? rows.slice(0, limit) : rows;
  const last = nodes[nodes.length - 1] as T & Record<string, unknown>;
  return { nodes, limit, hasMore, nextCursor: hasMore ? encodeCursor(list, keys, last) : null, total };
}

/** A page of a list whose order Prisma states. */
export function findPage<T extends { id: string }>(args: ListArgs, spec: SortSpec, q: PageQuery<T>): Promise<Page<T>> {
  return keysetPage(prismaKeyset, args, spec, q);
}

const offsetShape = z.object({ l: z.string(), o: z.number().int().min(0).max(999_999_999) });

/** Offset cursors for result sets ordered by relevance (search), where no stable key exists. */
export function offsetFromCursor(list: string, cursor: string | null | undefined): number {
  if (!cursor) return 0;
  const shaped = offsetShape.safeParse(openCursor(list, cursor));
  if (!shaped.success) throw notACursor();
  return shaped.data.o;
}

export function offsetCursor(list: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: list, o: offset })).toString('base64url');
}
