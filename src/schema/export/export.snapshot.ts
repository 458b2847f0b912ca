// Reads a whole export in one REPEATABLE READ transaction, page by page: every page sees the
// database as it was when the first one was read, so an export never holds half of a batch that
// committed meanwhile, nor a record twice or not at all because it changed between pages.
import type { Db } from '../../db/client.ts';
import type { Context } from '../context.ts';
import type { ExportRecord, ExportSource, Position } from './export.sources.ts';

export const EXPORT_PAGE = 1000;

export interface SnapshotOptions {
  /** Longest the transaction may stay open, in milliseconds (EXPORT_MAX_SECONDS). */
  timeoutMs: number;
  pageSize?: number;
}

/**
 * Hands each page of records to `write`, which may wait (for a slow reader: that holds the
 * transaction open); resolves with the number of records once all were written. A `write` that
 * throws ends the transaction at once.
 */
export async function readSnapshot<W>(
  db: Db,
  ctx: Context,
  source: ExportSource<W>,
  where: W,
  write: (records: ExportRecord[]) => Promise<void>,
  opts: SnapshotOptions,
): Promise<number> {
  const take = opts.pageSize ?? EXPORT_PAGE;
  return db.$transaction(
    async (tx) => {
      type Page = { last: Position | null; full: boolean; records: ExportRecord[] };
      const read = async (from: Position | null): Promise<Page> => {
        const page = await source.positions(tx, where, from, take);
        const records = page.length
          ? await source.records(
              tx,
              page.map((p) => p.id),
              ctx,
            )
          : [];
        return { last: page.at(-1) ?? null, full: page.length === take, records };
      };
      let count = 0;
      let next: Promise<Page> | null = read(null);
      while (next) {
        const { last, full, records }: Page = await next;
        // The database reads the next page while this one is written. A failure of that read (the
        // transaction's time is up) is awaited below; until then it must not count as unhandled,
        // which would end the process.
        next = full ? read(last) : null;
        next?.catch(() => {});
        try {
          if (records.length) await write(records);
        } catch (err) {
          // The transaction ends with the error: let the read in flight finish first.
          await next?.catch(() => {});
          throw err;
        }
        count += records.length;
      }
      return count;
    },
    { isolationLevel: 'RepeatableRead', timeout: opts.timeoutMs, maxWait: 10_000 },
  );
}
