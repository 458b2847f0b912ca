// `npm run cli -- backup --out FILE`: the embedded database in one file, copied by the running
// server (asked over its backup channel) or, when no process holds DATA_DIR, from the directory.
// The file appears whole or not at all: it is written under a temporary name beside FILE, readable
// by its owner only (it holds hashed API keys and encrypted webhook secrets), read back and
// checked like a restore checks it, synced, and only then renamed to FILE.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import { DatabaseBusyError, openDatabase, type Database } from '../db/client.ts';
import { askServerForBackup } from './ask-server.ts';
import { BackupError } from './backup-error.ts';
import { checkSocketPath, controlSocketPath } from './control-socket.ts';
import { readBackup } from './file-format.ts';
import { snapshot } from './snapshot.ts';

export interface BackupResult {
  file: string;
  bytes: number;
  created_at: string;
  migrations: number;
  /** Who made the copy: the server holding the directory, or this process on a stopped directory. */
  copied_by: 'server' | 'cli';
}

export async function backup(opts: { dataDir: string; out: string; force?: boolean }): Promise<BackupResult> {
  const out = path.resolve(opts.out);
  if (!opts.force && fs.existsSync(out)) {
    throw new BackupError('file_exists', `${out} exists: give another --out, or --force to replace it`);
  }
  try {
    fs.accessSync(path.dirname(out), fs.constants.W_OK);
  } catch (err) {
    throw new BackupError('backup_failed', `Cannot write ${out}: ${(err as Error).message}`);
  }
  if (!fs.existsSync(path.join(opts.dataDir, 'pglite', 'PG_VERSION'))) {
    throw new BackupError('no_database', `There is no embedded database in ${opts.dataDir} to back up`);
  }
  let db: Database;
  try {
    db = await openDatabase({ dataDir: opts.dataDir });
  } catch (err) {
    if (!(err instanceof DatabaseBusyError)) throw err;
    return writeWhole(
      out,
      askServerForBackup(socketOf(opts.dataDir, err), (why) => noAnswer(err, why)),
      'server',
    );
  }
  try {
    return await writeWhole(out, Readable.from((await snapshot(db.pglite!)).parts), 'cli');
  } finally {
    await db.close();
  }
}

function socketOf(dataDir: string, busy: DatabaseBusyError): string {
  const file = controlSocketPath(dataDir);
  try {
    checkSocketPath(file);
    return file;
  } catch (err) {
    throw new BackupError('database_busy', `${busy.message} It has no backup channel: ${(err as Error).message}`);
  }
}

const noAnswer = (busy: DatabaseBusyError, why: NodeJS.ErrnoException) =>
  new BackupError(
    'database_busy',
    `${busy.message} It does not answer on its backup channel (${why.code ?? why.message}): ` +
      'back up after it stops',
  );

async function writeWhole(
  out: string,
  source: AsyncIterable<Buffer>,
  copiedBy: BackupResult['copied_by'],
): Promise<BackupResult> {
  const dir = path.dirname(out);
  const partial = path.join(dir, `.${path.basename(out)}.${crypto.randomBytes(6).toString('hex')}.partial`);
  try {
    await pipeline(source, fs.createWriteStream(partial, { flags: 'wx', mode: 0o600, flush: true }));
    const { header } = await readBackup(partial).catch((err: unknown) => {
      const why = err instanceof Error ? err.message.replace(partial, 'the copy') : String(err);
      throw new BackupError('backup_failed', `The copy received is not whole, nothing was written: ${why}`);
    });
    fs.renameSync(partial, out);
    syncDirectory(dir);
    return {
      file: out,
      bytes: fs.statSync(out).size,
      created_at: header.created_at,
      migrations: header.migrations.length,
      copied_by: copiedBy,
    };
  } catch (err) {
    fs.rmSync(partial, { force: true });
    throw err;
  }
}

/** The rename itself survives a power cut only once the directory is synced. */
function syncDirectory(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
