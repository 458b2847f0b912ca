// Keyset (cursor) pagination with multi-field sorting. A cursor holds the sort values and
// id of the last row of a page, so pages stay stable while rows are inserted. It also names the
// list it was issued for (`contacts`, `contact_notes:<contact id>`): a position in one list means
// nothing in another, so a cursor used on another list is refused rather than answered with a
// page that silently starts at the wrong place.
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

interface SortKey extends SortableField {
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
  const text = given && given.trim() ? given : spec.default;
  const keys: SortKey[] = [];
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
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

export function orderByOf(keys: SortKey[]): Record<string, unknown>[] {
  const order = keys.map((k) => ({ [k.field]: k.nullable ? { sort: k.desc ? 'desc' : 'asc', nulls: 'last' } : k.desc ? 'desc' : 'asc' }));
  // The id breaks ties so every row has exactly one place in the order.
  order.push({ id: keys[0].desc ? 'desc' : 'asc' });
  return order;
}

const cursorShape = z.object({ l: z.string(), s: z.string(), v: z.array(z.union([z.string(), z.number(), z.null()])), id: z.string() });
/** Cursors issued before cursors named their list carry no `l`. */
const unnamedShape = z.union([z.object({ s: z.string(), v: z.array(z.unknown()), id: z.string() }), z.string().regex(/^o:\d+$/)]);

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
    if (unnamedShape.safeParse(parsed).success) throw validationError({ cursor: ['was issued by an earlier version of the service; start again from the first page'] });
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
      return typeof v === 'number' ? (Number.isFinite(v) && DECIMAL.test(String(v)) ? v : undefined) : DECIMAL.test(v) ? Number(v) : undefined;
    case 'bigint':
      return typeof v === 'string' && /^\d{1,19}$/.test(v) && BigInt(v) <= INT8_MAX ? BigInt(v) : undefined;
    case 'string':
      return typeof v === 'string' && isDatabaseText(v) ? v : undefined;
  }
}

/** The cursor of the position after the row with these sort values and id, in `list`. */
export function cursorOf(list: string, keys: SortKey[], values: unknown[], id: string): string {
  const body = { l: list, s: signature(keys), v: values.map(encodeValue), id };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

export function encodeCursor(list: string, keys: SortKey[], row: Record<string, unknown>): string {
  return cursorOf(list, keys, keys.map((k) => row[k.field]), String(row.id));
}

/** The sort values and id a cursor of `list` carries, checked against the list, the sort order and the columns' types. */
export function decodeCursor(list: string, keys: SortKey[], cursor: string): { values: unknown[]; id: string } {
  const shaped = cursorShape.safeParse(openCursor(list, cursor));
  if (!shaped.success) throw notACursor();
  const parsed = shaped.data;
  if (parsed.s !== signature(keys) || parsed.v.length !== keys.length) {
    throw validationError({ cursor: ['was issued for a different sort order'] });
  }
  const values = keys.map((k, i) => decodeValue(parsed.v[i], k.type));
  if (values.includes(undefined) || !isDatabaseText(parsed.id)) throw notACursor();
  return { values, id: parsed.id };
}

/** The Prisma `where` selecting the rows after the cursor in the given order. */
export function afterCursor(list: string, keys: SortKey[], cursor: string | null | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  const { values, id } = decodeCursor(list, keys, cursor);
  const all = [...keys, { field: 'id', type: 'string' as const, desc: keys[0].desc }];
  values.push(id);
  const branches: Record<string, unknown>[] = [];
  for (let i = 0; i < all.length; i++) {
    const after = strictlyAfter(all[i], values[i]);
    if (!after) continue;
    const equalBefore = all.slice(0, i).map((k, j) => ({ [k.field]: values[j] === null ? null : values[j] }));
    branches.push({ AND: [...equalBefore, after] });
  }
  // The same condition as a range on the first key: the OR alone does not let PostgreSQL start
  // its index scan at the cursor, and a page 1,000 pages deep would read all the rows before it.
  const first = keys[0];
  if (first.nullable || values[0] === null) return { OR: branches };
  return { AND: [{ [first.field]: { [first.desc ? 'lte' : 'gte']: values[0] } }, { OR: branches }] };
}

// Nulls sort last in both directions, so after a null only other nulls (ordered by later keys) follow.
function strictlyAfter(key: SortKey, value: unknown): Record<string, unknown> | null {
  if (value === null) return null;
  const cmp = { [key.field]: { [key.desc ? 'lt' : 'gt']: value } };
  return key.nullable ? { OR: [cmp, { [key.field]: null }] } : cmp;
}

export interface PageQuery<T> {
  /** The list's name, with the id of the record it belongs to if any: `contact_notes:<id>`. */
  list: string;
  limit: number;
  keys: SortKey[];
  cursor?: string | null;
  where: Record<string, unknown>;
  fetch: (args: { where: Record<string, unknown>; orderBy: Record<string, unknown>[]; take: number }) => Promise<T[]>;
  count: (where: Record<string, unknown>) => Promise<number>;
}

export async function findPage<T extends { id: string }>(q: PageQuery<T>): Promise<Page<T>> {
  const after = afterCursor(q.list, q.keys, q.cursor);
  const rows = await q.fetch({ where: after ? { AND: [q.where, after] } : q.where, orderBy: orderByOf(q.keys), take: q.limit + 1 });
  const hasMore = rows.length > q.limit;
  const nodes = hasMore ? rows.slice(0, q.limit) : rows;
  return {
    nodes,
    limit: q.limit,
    hasMore,
    nextCursor: hasMore ? encodeCursor(q.list, q.keys, nodes[nodes.length - 1] as Record<string, unknown>) : null,
    total: () => q.count(q.where),
  };
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
