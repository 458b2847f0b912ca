// A backup file: a first line naming the format and its version, a second line of JSON describing
// the copy, then the copy itself: the embedded database's directory as PGlite dumps it (a tar),
// gzipped. The description carries the payload's length and SHA-256, so a file cut short or damaged
// in storage is told apart from a good one before anything is restored, and the migrations the copy
// has, so a copy made by a newer version of the service is refused instead of half understood.
import crypto from 'node:crypto';
import fs from 'node:fs/promises';
import { z } from 'zod';
import { migrationNames } from '../db/migrate.ts';
import { BackupError } from './backup-error.ts';

export const FORMAT_VERSION = 1;
const FIRST_LINE = /^CRM-BACKUP (\d{1,6})$/;
/** The two header lines are far shorter than this; a file with no second line by then is not one of ours. */
const MAX_HEAD_BYTES = 64 * 1024;

const headerSchema = z.object({
  created_at: z.string(),
  database: z.literal('pglite'),
  postgres_version: z.string(),
  migrations: z.array(z.string()),
  payload: z.object({
    encoding: z.literal('tar+gzip'),
    bytes: z.number().int().nonnegative(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
  }),
});

export type BackupHeader = z.infer<typeof headerSchema>;

const sha256 = (data: Buffer) => crypto.createHash('sha256').update(data).digest('hex');

/** The file's bytes: its two header lines, then the gzipped dump. */
export function encodeBackup(
  about: { postgresVersion: string; migrations: string[] },
  payload: Buffer,
): { header: BackupHeader; parts: Buffer[] } {
  const header: BackupHeader = {
    created_at: new Date().toISOString(),
    database: 'pglite',
    postgres_version: about.postgresVersion,
    migrations: about.migrations,
    payload: { encoding: 'tar+gzip', bytes: payload.length, sha256: sha256(payload) },
  };
  const head = Buffer.from(`CRM-BACKUP ${FORMAT_VERSION}\n${JSON.stringify(header)}\n`, 'utf8');
  return { header, parts: [head, payload] };
}

const damaged = (file: string, why: string) =>
  new BackupError('backup_damaged', `${file} is a damaged backup (${why}): use another copy`);

/**
 * Reads and checks a backup file whole: its format, its length, its checksum, and that this version
 * of the service knows every migration it has (older copies are migrated when the service starts).
 */
export async function readBackup(file: string): Promise<{ header: BackupHeader; payload: Buffer }> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (err) {
    throw new BackupError('cannot_read', `Cannot read ${file}: ${(err as Error).message}`, { cause: err });
  }
  try {
    const { size } = await handle.stat();
    const start = Buffer.alloc(Math.min(size, MAX_HEAD_BYTES));
    await handle.read(start, 0, start.length, 0);
    const firstEnd = start.indexOf(0x0a);
    const version = FIRST_LINE.exec(start.subarray(0, firstEnd === -1 ? 0 : firstEnd).toString('latin1'))?.[1];
    if (version === undefined) {
      throw new BackupError('not_a_backup', `${file} is not a backup of this service (made by \`backup --out\`)`);
    }
    if (Number(version) > FORMAT_VERSION) {
      throw new BackupError(
        'backup_too_new',
        `${file} is a backup in format ${version}, newer than this version of the service reads ` +
          `(${FORMAT_VERSION}): restore it with the version that made it or a newer one`,
      );
    }
    const headEnd = start.indexOf(0x0a, firstEnd + 1);
    if (headEnd === -1) {
      if (size < MAX_HEAD_BYTES) throw damaged(file, `truncated: ${size} bytes, it ends inside its description`);
      throw damaged(file, 'its description is unreadable');
    }
    let header: BackupHeader;
    try {
      header = headerSchema.parse(JSON.parse(start.subarray(firstEnd + 1, headEnd).toString('utf8')));
    } catch {
      throw damaged(file, 'its description is unreadable');
    }
    const expected = headEnd + 1 + header.payload.bytes;
    if (size < expected) throw damaged(file, `truncated: ${size} of ${expected} bytes`);
    if (size > expected) throw damaged(file, `${size - expected} bytes more than it describes`);
    const payload = (await handle.readFile()).subarray(headEnd + 1);
    if (payload.length !== header.payload.bytes || sha256(payload) !== header.payload.sha256) {
      throw damaged(file, 'its contents do not match their checksum');
    }
    const known = new Set(await migrationNames());
    const unknown = header.migrations.filter((name) => !known.has(name));
    if (unknown.length > 0) {
      throw new BackupError(
        'backup_too_new',
        `${file} was made by a newer version of the service: its database has migrations this version ` +
          `does not know (${unknown.join(', ')}). Upgrade the service, then restore`,
      );
    }
    return { header, payload };
  } finally {
    await handle.close();
  }
}
