// Admin CLI: `npm run --silent cli -- <command> [options] --json` prints exactly one JSON document.
// On the embedded database it needs the server stopped (PGlite is single-process).
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
import { StartupError } from './startup-error.ts';

const USAGE = `Usage: npm run --silent cli -- <command> [options] [--json]
  workspace create --name N [--plan standard|professional|enterprise] [--currency USD]
  user create --workspace W --name N --email E
  user set-password --email E [--password-stdin]
             dashboard password of the person with this e-mail, in every workspace; typed at
             a prompt, or read from the first line of standard input with --password-stdin
  key create --workspace W --name N --scope full|read_only|custom [--permissions contacts:read,deals:write]
             [--sandbox] [--expires-at ISO] [--user U]
  key revoke --id K
  custom-field create --workspace W --key K --type text|number|boolean|date|select [--options a,b] [--label L]`;

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
  },
});

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
      // One password per person: a row of one workspace cannot get its own.
      if (values.workspace)
        throw new AppError(
          'validation_error',
          'A password belongs to the e-mail address in every workspace: set-password takes no --workspace',
        );
      return setUserPassword(p, {
        email: values.email ?? '',
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

function fail(code: string, message: string, details?: unknown): never {
  if (values.json)
    process.stdout.write(JSON.stringify({ error: { code, message, ...(details ? { details } : {}) } }) + '\n');
  process.stderr.write(`error: ${message}${details ? ' ' + JSON.stringify(details) : ''}\n`);
  process.exit(1);
}

if (values.help || positionals.length < 2) {
  process.stdout.write(USAGE + '\n');
  process.exit(values.help ? 0 : 1);
}

let db: Database | null = null;
try {
  db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, probe: true });
  await applyMigrations(db.adapter, { client: db.prisma });
  const result = await run(db, positionals.slice(0, 2).join(' '));
  process.stdout.write(values.json ? JSON.stringify(result) + '\n' : JSON.stringify(result, null, 2) + '\n');
  await db.close();
  process.exit(0);
} catch (err) {
  await db?.close().catch(() => {});
  if (err instanceof DatabaseBusyError) fail('database_busy', err.message);
  if (err instanceof StartupError) fail('cannot_start', err.message);
  if (err instanceof AppError) fail(err.code, err.message, err.details);
  fail('internal_error', err instanceof Error ? err.message : String(err));
}
