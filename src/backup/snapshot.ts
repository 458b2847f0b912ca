// A consistent copy of an open embedded database, whoever has it open: the running server (asked
// over its control socket) or the CLI on a stopped directory.
//
// PGlite runs one statement at a time, but its dumpDataDir() only waits for the statement under way
// (its query lock), not for an open transaction: a copy taken between two statements of a
// transaction would hold that transaction's writes as not yet committed. Recovery would drop them,
// so even that copy is sound, but this one is taken under PGlite's transaction lock, the lock every
// query and every transaction of the service waits on (Prisma's interactive transactions and
// sql.ts's transactions are PGlite transactions): no transaction is open while it is taken, and
// requests wait for the few hundred milliseconds the copy takes.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { PGlite } from '@electric-sql/pglite';
import { encodeBackup, type BackupHeader } from './file-format.ts';

const gzip = promisify(zlib.gzip);

async function appliedMigrations(pglite: PGlite): Promise<string[]> {
  const table = await pglite.query<{ found: boolean }>("SELECT to_regclass('_prisma_migrations') IS NOT NULL AS found");
  if (!table.rows[0].found) return [];
  const rows = await pglite.query<{ migration_name: string }>(
    'SELECT migration_name FROM _prisma_migrations ' +
      'WHERE finished_at IS NOT NULL AND rolled_back_at IS NULL ORDER BY migration_name',
  );
  return rows.rows.map((r) => r.migration_name);
}

/** The backup file's bytes. Migrations only change while a process opens the database, never while it serves. */
export async function snapshot(pglite: PGlite): Promise<{ header: BackupHeader; parts: Buffer[] }> {
  const migrations = await appliedMigrations(pglite);
  const postgresVersion = (await pglite.query<{ server_version: string }>('SHOW server_version')).rows[0]
    .server_version;
  // Writes the changed pages to the data files, so the restored copy replays little or no WAL.
  await pglite.exec('CHECKPOINT');
  const dump = await dumpBetweenTransactions(pglite);
  // Compressed after the lock is released: requests wait for the copy only, not for gzip.
  const payload = await gzip(Buffer.from(await dump.arrayBuffer()));
  return encodeBackup({ postgresVersion, migrations }, payload);
}

/** PGlite's dump (a tar of its directory), taken when no transaction is open. */
export function dumpBetweenTransactions(pglite: PGlite): Promise<Blob> {
  return pglite._runExclusiveTransaction(async () => {
    // Nothing in the service opens a transaction outside the lock; should something ever do, no copy.
    if (pglite.isInTransaction()) throw new Error('a transaction is open outside PGlite transaction()');
    return pglite.dumpDataDir('none');
  });
}
