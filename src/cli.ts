// Admin CLI: `npm run --silent cli -- <command> [options] --json` prints exactly one JSON document.
// On the embedded database it needs the server stopped (PGlite is single-process), except `backup`,
// which the running server answers over its backup channel (backup/control-socket.ts).
import path from 'node:path';
import { parseArgs } from 'node:util';
import { config } from './config.ts';
import { DatabaseBusyError, openDatabase, type Database } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { AppError } from './errors.ts';
import {
  createApiKey,
  createCustomField,
  createUser,
  createWorkspace,
  revokeApiKey,
  setUserPassword,
} from './admin/workspaces.ts';
import { readPassword } from './admin/read-password.ts';
import { backup } from './backup/backup.ts';
import { BackupError } from './backup/backup-error.ts';
import { restore } from './backup/restore.ts';
import { StartupError } from './startup-error.ts';
import { withOrigin } from './events/origin.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [options] [--json]
  workspace create --name N [--plan standard|professional|enterprise] [--currency USD]
  user create --workspace W --name N --email E
  user set-password --email E [--workspace W] [--password-stdin]
             dashboard password of the person with this e-mail, in every workspace or in W only;
             typed at a prompt, or read from the first line of standard input with --password-stdin
  key create --workspace W --name N --scope full|read_only|custom [--permissions contacts:read,deals:write]
             [--sandbox] [--expires-at ISO] [--user U]
  key revoke --id K
  custom-field create --workspace W --key K --type text|number|boolean|date|select [--options a,b] [--label L]
  backup --out FILE [--force]
             the embedded database in one file (owner-only), taken from the running server or
             from the stopped directory; --force replaces an existing FILE
  restore --in FILE [--force]
             a backup into DATA_DIR, the server stopped; --force moves a database already there
             aside (DATA_DIR/pglite.before-restore-…) instead of refusing
  --data-dir D  the embedded database's directory for any command, instead of DATA_DIR`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  strict: true,
  options: {
    json: { type: 'boolean' },
    help: { type: 'boolean' },
    name: { type: 'string' },
    plan: { type: 'string' },
    currency: { type: 'string' },
    workspace: { type: 'string' },
    email: { type: 'string' },
    scope: { type: 'string' },
    permissions: { type: 'string' },
    sandbox: { type: 'boolean' },
    'expires-at': { type: 'string' },
    'password-stdin': { type: 'boolean' },
    user: { type: 'string' },
    id: { type: 'string' },
    key: { type: 'string' },
    type: { type: 'string' },
    options: { type: 'string' },
    label: { type: 'string' },
    out: { type: 'string' },
    in: { type: 'string' },
    force: { type: 'boolean' },
    'data-dir': { type: 'string' },
  },
});

const dataDir = values['data-dir'] ? path.resolve(values['data-dir']) : config.dataDir;

const list = (v: string | undefined) =>
  v
    ? v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : undefined;

async function run(db: Database, command: string): Promise<unknown> {
  const p = db.prisma;
  switch (command) {
    case 'workspace create':
      return createWorkspace(p, { name: values.name ?? '', plan: values.plan, currency: values.currency });
    case 'user create':
      return createUser(p, { workspace: values.workspace ?? '', name: values.name ?? '', email: values.email ?? '' });
    case 'user set-password':
      return setUserPassword(p, {
        email: values.email ?? '',
        workspace: values.workspace,
        password: await readPassword({ fromStdin: Boolean(values['password-stdin']) }),
      });
    case 'key create':
      return createApiKey(p, {
        workspace: values.workspace ?? '',
        name: values.name ?? '',
        scope: values.scope ?? '',
        permissions: list(values.permissions),
        sandbox: values.sandbox,
        expiresAt: values['expires-at'],
        userId: values.user,
      });
    case 'key revoke':
      return revokeApiKey(p, values.id ?? '');
    case 'custom-field create':
      return createCustomField(p, {
        workspace: values.workspace ?? '',
        key: values.key ?? '',
        type: values.type ?? '',
        options: list(values.options),
        label: values.label,
      });
    default:
      throw new AppError('validation_error', `Unknown command "${command}"\n${USAGE}`);
  }
}

/** backup and restore copy the embedded database's files: they neither migrate it nor run a command in it. */
function runFileCommand(command: string): Promise<unknown> {
  if (config.databaseUrl) {
    throw new BackupError(
      'use_pg_dump',
      'DATABASE_URL is set: back up PostgreSQL with pg_dump and restore with pg_restore (docs/operations.md)',
    );
  }
  if (positionals.length > 1)
    throw new AppError('validation_error', `Unknown command "${positionals.join(' ')}"\n${USAGE}`);
  if (command === 'backup') {
    if (!values.out) throw new AppError('validation_error', 'backup needs --out FILE');
    return backup({ dataDir, out: values.out, force: values.force });
  }
  if (!values.in) throw new AppError('validation_error', 'restore needs --in FILE');
  return restore({ file: values.in, dataDir, encryptionKey: config.encryptionKey, force: values.force });
}

function fail(code: string, message: string, details?: unknown): never {
  if (values.json)
    process.stdout.write(JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }) + '\n');
  process.stderr.write(`error: ${message}${details ? ' ' + JSON.stringify(details) : ''}\n`);
  process.exit(1);
}

const fileCommand = positionals[0] === 'backup' || positionals[0] === 'restore';
if (values.help || (positionals.length < 2 && !fileCommand)) {
  process.stdout.write(USAGE + '\n');
  process.exit(values.help ? 0 : 1);
}

let db: Database | null = null;
try {
  let result: unknown;
  if (fileCommand) result = await runFileCommand(positionals[0]);
  else {
    const open = await openDatabase({ databaseUrl: config.databaseUrl, dataDir, probe: true });
    db = open;
    await applyMigrations(open.adapter, { client: open.prisma });
    // Its writes are the admin CLI's in the audit log.
    result = await withOrigin({ via: 'cli', requestId: null, ip: null }, () =>
      run(open, positionals.slice(0, 2).join(' ')),
    );
    await open.close();
  }
  process.stdout.write(values.json ? JSON.stringify(result) + '\n' : JSON.stringify(result, null, 2) + '\n');
  process.exit(0);
} catch (err) {
  await db?.close().catch(() => {});
  if (err instanceof BackupError) fail(err.code, err.message);
  if (err instanceof DatabaseBusyError) fail('database_busy', err.message);
  if (err instanceof StartupError) fail('cannot_start', err.message);
  if (err instanceof AppError) fail(err.code, err.message, err.details);
  fail('internal_error', err instanceof Error ? err.message : String(err));
}
