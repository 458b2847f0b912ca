// `total` of lists that grow large (contacts, deals) from a cheap source. Counting every
// matching row on every page costs as much as the table is big, so a count stops after
// EXACT_UP_TO rows; a list above that is counted in full at most once per CACHE_MS on this
// instance for each workspace and filter, and the pages in between reuse that figure.
export const EXACT_UP_TO = 10_000;
const CACHE_MS = 60_000;
const MAX_ENTRIES = 10_000;

type Where = Record<string, unknown>;

/**
 * Order of a stopped count (Prisma counts a `take` in an ordered subquery): newest first, which
 * the (workspace, created_at, id) index and every filter's index end with, so it reads no more
 * index entries than it counts.
 */
export const COUNT_ORDER = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];
/** Counts the rows matching `where`, stopping after `take` rows when it is given. */
export type Counter = (where: Where, take?: number) => Promise<number>;

const large = new Map<string, { total: Promise<number>; at: number }>();

function remember(key: string, total: Promise<number>): Promise<number> {
  large.delete(key);
  if (large.size >= MAX_ENTRIES) large.delete(large.keys().next().value!);
  large.set(key, { total, at: Date.now() });
  // A failed count is not kept: the next page counts again.
  total.catch(() => large.delete(key));
  return total;
}

/** The `count` of a page query for the list named `list` (e.g. "contacts"). */
export function cheapTotal(list: string, count: Counter): (where: Where) => Promise<number> {
  return async (where) => {
    const key = `${list}:${JSON.stringify(where)}`;
    const known = large.get(key);
    if (known && Date.now() - known.at < CACHE_MS) return known.total;
    if (!known) {
      const upTo = await count(where, EXACT_UP_TO + 1);
      if (upTo <= EXACT_UP_TO) return upTo;
    }
    return remember(key, count(where));
  };
}
