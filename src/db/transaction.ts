// The one way to run a transaction, and the one place that reads the database's refusals. The
// work runs in a Prisma interactive transaction; a refusal the caller named (a duplicate, a row
// referred to that is gone, a row written by key that no longer exists) becomes the caller's
// coded error, so resolvers say what a refusal means to them and never name a Prisma code.
import type { AppError } from '../errors.ts';
import type { Db } from './client.ts';
import { isForeignKeyViolation, isRecordNotFound, isUniqueViolation, uniqueColumns } from './errors.ts';
import type { Prisma } from './generated/client/client.ts';

/** What each refusal means to the caller; one it leaves out is rethrown as it came. */
export interface Refusals {
  /**
   * A unique constraint: the row exists already. Given the key's columns (`['workspace_id', 'email']`,
   * or its index name where the driver gives only that: db/errors.ts uniqueColumns),
   * so a table with several unique keys can tell which was taken; it may look the holder up (the
   * transaction is over by then).
   */
  uniqueViolation?: (columns: string[]) => AppError | Promise<AppError>;
  /** A foreign key: a row referred to is gone, or a row still refers to the one being deleted. */
  foreignKeyViolation?: () => AppError;
  /**
   * A write named a row by its key that does not exist (any more), or not as the write asked for it
   * (a conditional write's `version`); it may look the row up.
   */
  recordNotFound?: () => AppError | Promise<AppError>;
}

export function transaction<T>(
  db: Db,
  work: (tx: Prisma.TransactionClient) => Promise<T>,
  refusals: Refusals = {},
): Promise<T> {
  return withRefusals(refusals, () => db.$transaction(work));
}

/**
 * Work outside a transaction, such as a single statement that writes a row and its event
 * together, with its refusals read the same way.
 */
export async function withRefusals<T>(refusals: Refusals, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isUniqueViolation(err) && refusals.uniqueViolation) throw await refusals.uniqueViolation(uniqueColumns(err));
    const meaning =
      (isForeignKeyViolation(err) && refusals.foreignKeyViolation) ||
      (isRecordNotFound(err) && refusals.recordNotFound);
    throw meaning ? await meaning() : err;
  }
}
