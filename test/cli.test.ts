// The admin CLI, run as a user runs it, on a fresh embedded database.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createUser } from '../src/admin/workspaces.ts';
import { verifyPassword } from '../src/auth/passwords.ts';
import { openDatabase } from '../src/db/client.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-cli-'));
const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '', NODE_ENV: 'production' };

async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, ['dist/server/cli.js', ...args, '--json'], {
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
async function cliWithStdin(
  input: string,
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string }> {
  const running = run(process.execPath, ['dist/server/cli.js', ...args, '--json'], { env, timeout: 60_000 });
  running.child.stdin!.end(input);
  try {
    const { stdout, stderr } = await running;
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}
const json = (stdout: string) => {
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]);
};

let workspaceId: string;
beforeAll(async () => {
  const r = await cli('workspace', 'create', '--name', 'Acme', '--plan', 'professional');
  expect(r.code).toBe(0);
  workspaceId = json(r.stdout).id;
}, 120_000);
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

describe('admin CLI', () => {
  it('creates a workspace, a user, keys and a custom field, each as one JSON document', async () => {
    expect(workspaceId).toMatch(/^ws_/);
    const user = json(
      (await cli('user', 'create', '--workspace', workspaceId, '--name', 'Ada', '--email', 'ada@acme.test')).stdout,
    );
    expect(user).toMatchObject({ name: 'Ada', email: 'ada@acme.test', active: true });
    const key = json(
      (
        await cli(
          'key',
          'create',
          '--workspace',
          workspaceId,
          '--name',
          'int',
          '--scope',
          'custom',
          '--permissions',
          'contacts:read,deals:write',
          '--sandbox',
          '--expires-at',
          '2030-01-01T00:00:00Z',
        )
      ).stdout,
    );
    expect(key).toMatchObject({
      scope: 'custom',
      permissions: ['contacts:read', 'deals:write'],
      sandbox: true,
      expires_at: '2030-01-01T00:00:00.000Z',
    });
    expect(key.key).toMatch(/^crm_test_[0-9A-Za-z]{32}$/);
    const revoked = json((await cli('key', 'revoke', '--id', key.id)).stdout);
    expect(revoked).toMatchObject({ id: key.id, revoked: true });
    const field = json(
      (
        await cli(
          'custom-field',
          'create',
          '--workspace',
          workspaceId,
          '--key',
          'tier',
          '--type',
          'select',
          '--options',
          'gold,silver',
        )
      ).stdout,
    );
    expect(field).toMatchObject({ key: 'tier', type: 'select', options: ['gold', 'silver'] });
  }, 120_000);

  it('user set-password reads the password from stdin and stores only an argon2id hash', async () => {
    const setup = await openDatabase({ dataDir });
    await createUser(setup.prisma, { workspace: workspaceId, name: 'Pat', email: 'pat@acme.test' }).finally(() =>
      setup.close(),
    );
    const r = await cliWithStdin(
      'a long enough passphrase\nignored second line\n',
      'user',
      'set-password',
      '--email',
      'PAT@acme.test',
      '--password-stdin',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(json(r.stdout)).toMatchObject({
      email: 'pat@acme.test',
      users: [{ workspace_id: workspaceId }],
      sessions_ended: 0,
    });
    const db = await openDatabase({ dataDir });
    try {
      const user = await db.prisma.user.findFirstOrThrow({ where: { email: 'pat@acme.test' } });
      expect(user.passwordHash).toMatch(/^\$argon2id\$/);
      expect(await verifyPassword(user.passwordHash, 'a long enough passphrase')).toBe(true);
    } finally {
      await db.close();
    }
  }, 120_000);

  it('rejects bad input with a JSON error and a non-zero exit', async () => {
    const bad = await cli('key', 'create', '--workspace', workspaceId, '--name', 'x', '--scope', 'root');
    expect(bad.code).toBe(1);
    expect(json(bad.stdout).error.code).toBe('validation_error');
    const perm = await cli(
      'key',
      'create',
      '--workspace',
      workspaceId,
      '--name',
      'x',
      '--scope',
      'custom',
      '--permissions',
      'invoices:read',
    );
    expect(json(perm.stdout).error.details.permissions[0]).toMatch(/invoices:read/);
    const missing = await cli('user', 'create', '--workspace', 'ws_nope', '--name', 'x', '--email', 'x@y.z');
    expect(json(missing.stdout).error.code).toBe('not_found');
  }, 120_000);

  it('refuses clearly, changing nothing, while the server holds the embedded database', async () => {
    const holder = await openDatabase({ dataDir });
    try {
      const r = await cli('workspace', 'create', '--name', 'Blocked');
      expect(r.code).toBe(1);
      expect(json(r.stdout).error.code).toBe('database_busy');
      expect(r.stderr).toMatch(/server is running/);
      expect(await holder.prisma.workspace.count({ where: { name: 'Blocked' } })).toBe(0);
    } finally {
      await holder.close();
    }
  }, 120_000);
});
