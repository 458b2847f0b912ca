// The embedded database's directory, checked before PGlite touches it: PGlite given a directory
// it cannot write aborts deep inside its WebAssembly (or never returns), so a directory that is
// a file, read-only or full is refused first with one line saying which and why.
import fs from 'node:fs';
import path from 'node:path';
import { StartupError } from '../startup-error.ts';

/** Free space below which the embedded database is not started (a fresh one takes about 40 MB). */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

function unusable(dir: string, reason: string, cause?: unknown): StartupError {
  return new StartupError(`DATA_DIR ${dir} cannot hold the embedded database: ${reason}`, { cause });
}

function reasonOf(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  switch (e.code) {
    case 'ENOTDIR':
    case 'EEXIST':
      return 'a file stands where a directory is needed';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
    case 'EDQUOT':
      return 'no space left';
    default:
      return e.message;
  }
}

/** Makes `dbDir` (and its parents) and proves a file can be written, synced and removed there. */
export function prepareDataDir(dataDir: string, dbDir: string): void {
  try {
    fs.mkdirSync(dbDir, { recursive: true });
    if (!fs.statSync(dbDir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (err) {
    throw unusable(dataDir, reasonOf(err), err);
  }
  const { bavail, bsize } = fs.statfsSync(dbDir);
  if (bavail * bsize < MIN_FREE_BYTES) {
    throw unusable(
      dataDir,
      `only ${Math.floor((bavail * bsize) / 1024 / 1024)} MB free, at least ${MIN_FREE_BYTES / 1024 / 1024} MB needed`,
    );
  }
  const probe = path.join(dbDir, `.write-check-${process.pid}`);
  try {
    const fd = fs.openSync(probe, 'w');
    try {
      fs.writeSync(fd, Buffer.alloc(64 * 1024));
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.unlinkSync(probe);
  } catch (err) {
    fs.rmSync(probe, { force: true });
    throw unusable(dataDir, reasonOf(err), err);
  }
}
