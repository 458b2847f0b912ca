// A PostgreSQL server of the test's own (initdb in a temp dir, a free port), so a test may stop
// and restart it without touching the machine's shared server. PostgreSQL refuses to run as
// root: as root the server runs as the `postgres` system user.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './processes.ts';

export interface PrivatePostgres {
  /** URL of a database on this server (created by createDatabase). */
  url(database: string): string;
  createDatabase(name: string): Promise<string>;
  /** Fast shutdown (clients are disconnected), as an operator's restart does. */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops for good and removes the data directory. */
  destroy(): Promise<void>;
}

function binDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions.map((v) => path.join(root, v, 'bin')).find((d) => fs.existsSync(path.join(d, 'initdb')));
  if (!found) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql');
  return found;
}

/** Runs a PostgreSQL binary as an unprivileged user when the tests run as root. */
function asServerUser(bin: string, args: string[]): [string, string[]] {
  if (process.getuid?.() !== 0) return [bin, args];
  return ['setpriv', ['--reuid=postgres', '--regid=postgres', '--init-groups', bin, ...args]];
}

async function waitUntilAccepting(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const end = Date.now() + 30_000;
  while (Date.now() < end) {
    if (server.exitCode !== null) throw new Error(`PostgreSQL exited: ${log()}`);
    const c = new pg.Client({ connectionString: url });
    try {
      await c.connect();
      await c.end();
      return;
    } catch {
      await c.end().catch(() => {});
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`PostgreSQL did not start: ${log()}`);
}

export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = binDir();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-pg-'));
  const dataDir = path.join(dir, 'data');
  if (process.getuid?.() === 0) execFileSync('chown', ['postgres:postgres', dir]);
  execFileSync(
    ...asServerUser(path.join(bin, 'initdb'), [
      '-D',
      dataDir,
      '-A',
      'trust',
      '-U',
      'postgres',
      '-E',
      'UTF8',
      '--no-sync',
    ]),
    { stdio: 'pipe' },
  );
  const port = await freePort();
  const url = (database: string) => `postgresql://postgres@127.0.0.1:${port}/${database}`;
  let server: ChildProcess | null = null;
  let log = '';

  async function start() {
    const [cmd, args] = asServerUser(path.join(bin, 'postgres'), [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-k',
      dir,
      '-c',
      'listen_addresses=127.0.0.1',
      // Durability is not under test; a lost machine loses the temp dir anyway.
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=200',
    ]);
    const proc = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    proc.stdout!.on('data', (d) => (log += d));
    proc.stderr!.on('data', (d) => (log = (log + d).slice(-20_000)));
    server = proc;
    await waitUntilAccepting(url('postgres'), proc, () => log);
  }

  async function stop() {
    const proc = server;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    proc.kill('SIGINT');
    await exited;
    server = null;
  }

  await start();
  return {
    url,
    async createDatabase(name) {
      const admin = new pg.Client({ connectionString: url('postgres') });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${name}`);
      await admin.end();
      return url(name);
    },
    stop,
    start,
    async destroy() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
