// `npm run cli -- restore --in FILE [--data-dir DIR] [--force]`: a backup file becomes the embedded
// database of DATA_DIR (or DIR). Nothing there changes until the copy has been checked whole,
// loaded beside it (DIR/pglite.restoring) and found to open with this installation's encryption key;
// then it takes the database's place with a rename. A database already there is kept, moved aside
// (`--force`), never deleted. DIR's lock is held throughout, so no server starts on it meanwhile,
// and a server holding it makes the restore refuse.
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { prepareDataDir } from '../db/data-dir.ts';
import { lockDirectory } from '../db/dir-lock.ts';
import { FINGERPRINT_SETTING } from '../webhooks/key-check.ts';
import { existingSecretBox, type SecretBox } from '../webhooks/secret-box.ts';
import { BackupError } from './backup-error.ts';
import { readBackup, type BackupHeader } from './file-format.ts';

const gunzip = promisify(zlib.gunzip);

export interface RestoreResult {
  data_dir: string;
  backup_created_at: string;
  migrations: number;
  /** Where the database that was there went (`--force`): delete it once the restored one is trusted. */
  previous_database: string | null;
}

export async function restore(opts: {
  file: string;
  dataDir: string;
  encryptionKey: string | null;
  force?: boolean;
}): Promise<RestoreResult> {
  const { header, payload } = await readBackup(path.resolve(opts.file));
  const dataDir = path.resolve(opts.dataDir);
  const dbDir = path.join(dataDir, 'pglite');
  prepareDataDir(dataDir, dbDir);
  const unlock = lockDirectory(dbDir, dataDir);
  try {
    const present = fs.readdirSync(dbDir).filter((name) => !name.startsWith('.write-check-'));
    if (present.length > 0 && !opts.force) {
      throw new BackupError(
        'not_empty',
        `${dataDir} already holds a database: restore into an empty directory, or give --force ` +
          'to move that one aside (pglite.before-restore-…) and restore',
      );
    }
    // Left by a restore cut short; the lock makes it this process's to remove.
    const staging = path.join(dataDir, 'pglite.restoring');
    fs.rmSync(staging, { recursive: true, force: true });
    try {
      await load(staging, header, payload, existingSecretBox(opts.encryptionKey, dataDir), dataDir);
      const previous = present.length > 0 ? path.join(dataDir, `pglite.before-restore-${stamp()}`) : null;
      putInPlace(staging, dbDir, previous);
      return {
        data_dir: dataDir,
        backup_created_at: header.created_at,
        migrations: header.migrations.length,
        previous_database: previous,
      };
    } catch (err) {
      fs.rmSync(staging, { recursive: true, force: true });
      throw err;
    }
  } finally {
    unlock();
  }
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

async function load(
  staging: string,
  header: BackupHeader,
  payload: Buffer,
  key: SecretBox | null,
  dataDir: string,
): Promise<void> {
  let pglite: PGlite;
  try {
    const tar = await gunzip(payload);
    pglite = await PGlite.create({ dataDir: staging, loadDataDir: new Blob([tar]) });
  } catch (err) {
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new BackupError(
      'backup_damaged',
      `The backup (PostgreSQL ${header.postgres_version}) cannot be loaded by this version's embedded ` +
        `database: ${reason}`,
      { cause: err },
    );
  }
  try {
    await checkEncryptionKey(pglite, key, dataDir);
  } finally {
    await pglite.close();
  }
}

/**
 * The service refuses to start with a key other than the one its webhook secrets are encrypted with
 * (webhooks/key-check.ts); a restore says so now, before it replaces anything.
 */
async function checkEncryptionKey(pglite: PGlite, key: SecretBox | null, dataDir: string): Promise<void> {
  const first = async <R>(table: string, sql: string, params: unknown[] = []): Promise<R | null> => {
    const found = await pglite.query<{ found: boolean }>('SELECT to_regclass($1) IS NOT NULL AS found', [table]);
    return found.rows[0].found ? ((await pglite.query<R>(sql, params)).rows[0] ?? null) : null;
  };
  const recorded = await first<{ value: string }>('settings', 'SELECT value FROM settings WHERE name = $1', [
    FINGERPRINT_SETTING,
  ]);
  const sealed = await first<{ secret_encrypted: string }>(
    'webhook_subscriptions',
    'SELECT secret_encrypted FROM webhook_subscriptions LIMIT 1',
  );
  // A database no service has started on yet: nothing is encrypted, any key will do.
  if (!recorded && !sealed) return;
  const theirs = recorded ? `the key of fingerprint ${recorded.value.slice(0, 12)}…` : 'a key';
  const remedy =
    `set ENCRYPTION_KEY to the key the backed-up service used, or copy that service's ` +
    `DATA_DIR/encryption.key into ${dataDir}, then restore again`;
  if (!key) {
    throw new BackupError(
      'encryption_key_missing',
      `The backup's webhook secrets are encrypted with ${theirs} and no key is set here: ${remedy}`,
    );
  }
  if (recorded ? recorded.value !== key.fingerprint() : !key.canOpen(sealed!.secret_encrypted)) {
    throw new BackupError(
      'encryption_key_mismatch',
      `The backup's webhook secrets are encrypted with ${theirs}, not with this one ` +
        `(fingerprint ${key.fingerprint().slice(0, 12)}…): ${remedy}`,
    );
  }
}

/** The loaded copy takes the database's place; should that fail, the database that was there goes back. */
function putInPlace(staging: string, dbDir: string, previous: string | null): void {
  if (!previous) {
    fs.rmSync(dbDir, { recursive: true, force: true }); // empty, or a write check a crash left
    fs.renameSync(staging, dbDir);
    return;
  }
  fs.renameSync(dbDir, previous);
  try {
    fs.renameSync(staging, dbDir);
  } catch (err) {
    fs.renameSync(previous, dbDir);
    throw err;
  }
}
