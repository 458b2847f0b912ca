// Writes that never clobber: every record carries a version the database raises on each change
// (the raise_version trigger), and a write may name the version its caller last read
// (`expected_version`; REST's If-Match). The comparison runs inside the write's transaction, on
// the row locked until it commits, so of two writers holding the same version exactly one wins and
// the other is refused with 412, having written nothing.
import { Prisma } from '../../db/generated/client/client.ts';
import { AppError, validationError } from '../../errors.ts';

/** The tables whose rows carry a version. */
export type VersionedTable =
  | 'contacts'
  | 'companies'
  | 'deals'
  | 'tasks'
  | 'activities'
  | 'notes'
  | 'pipelines'
  | 'stages'
  | 'users'
  | 'webhook_subscriptions';

export const EXPECTED_VERSION_HELP =
  'The version the caller last read (the `version` field; REST sends it as If-Match). ' +
  'When the record is at another version nothing is written and the answer is precondition_failed (412) ' +
  'with current_version in details. Left out, the write applies to whatever version is current.';

export const versionDescription = 'Raised by one on every change, starting at 1; REST sends it as the ETag.';

/** The refusal of a write whose caller holds another version than the record's. */
/** Versions start at 1: a smaller one names no version a record ever had (a 400, as If-Match: "0" is). */
export function assertVersionValue(expected: number): void {
  if (expected < 1) throw validationError({ expected_version: ['must be a version: an integer of at least 1'] });
}

export function staleVersion(expected: number, current: number): AppError {
  return new AppError(
    'precondition_failed',
    `The record is at version ${current}, not ${expected}: it changed since it was read; read it again`,
    { current_version: current },
  );
}

/**
 * When the caller named a version: locks the row until the transaction ends and refuses the write
 * unless the row is at that version. A row that is not there (another workspace's, deleted) is
 * left to the write, which answers 404 as it does without a version. Must run inside the write's
 * transaction, before it reads the row it changes.
 */
export async function assertVersion(
  tx: Pick<Prisma.TransactionClient, '$queryRaw'>,
  table: VersionedTable,
  id: string,
  workspaceId: string,
  expected: number | null | undefined,
): Promise<void> {
  if (expected === null || expected === undefined) return;
  assertVersionValue(expected);
  const rows = await tx.$queryRaw<{ version: number }[]>(
    Prisma.sql`SELECT version FROM ${Prisma.raw(`"${table}"`)}
      WHERE id = ${id} AND workspace_id = ${workspaceId} FOR UPDATE`,
  );
  if (rows.length && rows[0].version !== expected) throw staleVersion(expected, rows[0].version);
}

/**
 * The same check for a row the write has already read under a lock that keeps it from changing
 * (its own FOR UPDATE, or its parent's, as stages are written under their pipeline's lock).
 */
export function assertLockedVersion(row: { version: number }, expected: number | null | undefined): void {
  if (expected !== null && expected !== undefined) assertVersionValue(expected);
  if (expected !== null && expected !== undefined && row.version !== expected)
    throw staleVersion(expected, row.version);
}

/**
 * The key of a conditional single-statement write (`UPDATE … WHERE id = $1 AND version = $2`):
 * with a version, a row that changed meanwhile is not found (Prisma's P2025) instead of overwritten.
 */
export function versionedKey(id: string, expected: number | null | undefined): { id: string; version?: number } {
  if (expected === null || expected === undefined) return { id };
  assertVersionValue(expected);
  return { id, version: expected };
}
