// Keyset (cursor) pagination with multi-field sorting. A cursor holds the sort values and
// id of the last row of a page, so pages stay stable while rows are inserted.
import { z } from 'zod';
import { validationError } from '../../errors.ts';
import { parseIsoInstant } from './dates.ts';
import { isStorable } from './storable.ts';

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

export function parseSort(sort: string | null | undefined, spec: SortSpec): SortKey[] {
  const text = sort && sort.trim() ? sort : spec.default;
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

const cursorShape = z.object({ s: z.string(), v: z.array(z.union([z.string(), z.number(), z.null()])), id: z.string() });

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
      return typeof v === 'string' && isStorable(v) ? v : undefined;
  }
}

export function encodeCursor(keys: SortKey[], row: Record<string, unknown>): string {
  const body = { s: signature(keys), v: keys.map((k) => encodeValue(row[k.field])), id: String(row.id) };
  return Buffer.from(JSON.stringify(body)).toString('base64url');
}

/** The sort values and id a cursor carries, checked against the sort order and the columns' types. */
export function decodeCursor(keys: SortKey[], cursor: string): { values: unknown[]; id: string } {
  let parsed: z.infer<typeof cursorShape>;
  try {
    parsed = cursorShape.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
  } catch {
    throw validationError({ cursor: ['is not a cursor returned by this endpoint'] });
  }
  if (parsed.s !== signature(keys) || parsed.v.length !== keys.length) {
    throw validationError({ cursor: ['was issued for a different sort order'] });
  }
  const values = keys.map((k, i) => decodeValue(parsed.v[i], k.type));
  if (values.includes(undefined) || !isStorable(parsed.id)) throw validationError({ cursor: ['is not a cursor returned by this endpoint'] });
  return { values, id: parsed.id };
}

/** The Prisma `where` selecting the rows after the cursor in the given order. */
export function afterCursor(keys: SortKey[], cursor: string | null | undefined): Record<string, unknown> | undefined {
  if (!cursor) return undefined;
  const { values, id } = decodeCursor(keys, cursor);
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
  limit: number;
  keys: SortKey[];
  cursor?: string | null;
  where: Record<string, unknown>;
  fetch: (args: { where: Record<string, unknown>; orderBy: Record<string, unknown>[]; take: number }) => Promise<T[]>;
  count: (where: Record<string, unknown>) => Promise<number>;
}

export async function findPage<T extends { id: string }>(q: PageQuery<T>): Promise<Page<T>> {
  const after = afterCursor(q.keys, q.cursor);
  const rows = await q.fetch({ where: after ? { AND: [q.where, after] } : q.where, orderBy: orderByOf(q.keys), take: q.limit + 1 });
  const hasMore = rows.length > q.limit;
  const nodes = hasMore ? rows.slice(0, q.limit) : rows;
  return {
    nodes,
    limit: q.limit,
    hasMore,
    nextCursor: hasMore ? encodeCursor(q.keys, nodes[nodes.length - 1] as Record<string, unknown>) : null,
    total: () => q.count(q.where),
  };
}

/** Offset cursors for result sets ordered by relevance (search), where no stable key exists. */
export function offsetFromCursor(cursor: string | null | undefined): number {
  if (!cursor) return 0;
  const m = /^o:(\d{1,9})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw validationError({ cursor: ['is not a cursor returned by this endpoint'] });
  return Number(m[1]);
}

export function offsetCursor(offset: number): string {
  return Buffer.from(`o:${offset}`).toString('base64url');
}
