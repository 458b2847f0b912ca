// What `backup` and `restore` refuse or fail with: a code for scripts (`--json` prints it) and one
// line for the operator saying what to do.

export type BackupErrorCode =
  | 'use_pg_dump'
  | 'no_database'
  | 'database_busy'
  | 'file_exists'
  | 'cannot_read'
  | 'not_a_backup'
  | 'backup_damaged'
  | 'backup_too_new'
  | 'not_empty'
  | 'encryption_key_missing'
  | 'encryption_key_mismatch'
  | 'backup_failed';

export class BackupError extends Error {
  readonly code: BackupErrorCode;

  constructor(code: BackupErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'BackupError';
    this.code = code;
  }
}
