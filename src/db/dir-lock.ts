// One process at a time on the embedded database's directory (PGlite does not guard its files).
// The lock file records who holds it: pid, that process's start time and host, and the device and
// inode of the directory. A lock is honoured only while that process is alive and holds this very
// directory, so a start after a crash (or a kill -9) takes the lock over at once, and so does a
// copy of the directory made while the server ran (its lock names the original's inode).
import fs from 'node:fs';
import os from 'node:os';
import { StartupError } from '../startup-error.ts';

interface Holder {
  pid: number;
  host: string;
  /** Start time of the process (Linux: clock ticks after boot, /proc/<pid>/stat); null where unknown. */
  started: string | null;
  dev: number;
  ino: number;
}

export class DatabaseBusyError extends StartupError {
  constructor(dir: string, holder?: Holder) {
    const by = holder
      ? ` by process ${holder.pid}${holder.host === os.hostname() ? '' : ` on host ${holder.host}`}`
      : '';
    super(
      `The embedded database in ${dir} is in use${by}: the server is running. ` +
        'Stop it, or use PostgreSQL (DATABASE_URL).',
    );
    this.name = 'DatabaseBusyError';
  }
}

function startTimeOf(pid: number): string | null {
  try {
    // Field 22 (starttime); the command name (field 2) may hold spaces, so count from its ')'.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readHolder(lockPath: string): { holder: Holder | null; ino: number } | null {
  try {
    const fd = fs.openSync(lockPath, 'r');
    try {
      const ino = fs.fstatSync(fd).ino;
      try {
        return { holder: JSON.parse(fs.readFileSync(fd, 'utf8')) as Holder, ino };
      } catch {
        return { holder: null, ino };
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

/** Whether the recorded holder is a live process that holds this directory. */
function holds(holder: Holder | null, dir: fs.Stats): boolean {
  // A file being written this instant, or left half-written by a crash: judged by its age below.
  if (!holder) return true;
  if (holder.dev !== dir.dev || holder.ino !== dir.ino) return false;
  if (holder.host !== os.hostname()) return true; // another machine's process cannot be checked from here
  if (!isAlive(holder.pid)) return false;
  return holder.started === null || holder.started === startTimeOf(holder.pid);
}

/** A lock file with no readable holder is a start cut short after creating it once it is this old. */
const UNREADABLE_GRACE_MS = 5_000;

/** Takes the lock on `dbDir`; returns its release. */
export function lockDirectory(dbDir: string, shownDir: string): () => void {
  const lockPath = `${dbDir}.lock`;
  const dir = fs.statSync(dbDir);
  const me: Holder = {
    pid: process.pid,
    host: os.hostname(),
    started: startTimeOf(process.pid),
    dev: dir.dev,
    ino: dir.ino,
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = fs.openSync(lockPath, 'wx');
      fs.writeSync(fd, JSON.stringify(me));
      fs.fsyncSync(fd);
      fs.closeSync(fd);
      return () => release(lockPath, me);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (fs.statSync(lockPath).isDirectory()) {
      // The lock directory of earlier versions (proper-lockfile), refreshed every 5 s while held.
      if (Date.now() - fs.statSync(lockPath).mtimeMs < 10_000) throw new DatabaseBusyError(shownDir);
      fs.rmSync(lockPath, { recursive: true, force: true });
      continue;
    }
    const found = readHolder(lockPath);
    if (!found) continue;
    const fresh = !found.holder && Date.now() - fs.statSync(lockPath).mtimeMs < UNREADABLE_GRACE_MS;
    if (fresh || (found.holder && holds(found.holder, dir)))
      throw new DatabaseBusyError(shownDir, found.holder ?? undefined);
    takeOver(lockPath, found.ino);
  }
  throw new DatabaseBusyError(shownDir);
}

/**
 * Moves a dead holder's lock file aside. Renaming is atomic, so of two starts taking over at once
 * one moves it; should the file moved be another one (a start that won in between), it goes back.
 */
function takeOver(lockPath: string, staleIno: number): void {
  const aside = `${lockPath}.stale-${process.pid}`;
  try {
    fs.renameSync(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (fs.statSync(aside).ino !== staleIno) {
    fs.renameSync(aside, lockPath);
    return;
  }
  fs.rmSync(aside, { force: true });
}

function release(lockPath: string, me: Holder): void {
  const found = readHolder(lockPath);
  if (found?.holder?.pid === me.pid && found.holder.started === me.started) fs.rmSync(lockPath, { force: true });
}
