// Backups of the embedded database, with the compiled service and CLI run as an operator runs them:
// a copy of a running server taken while it writes, restored into a fresh directory and served
// there with the same contacts, API key and webhook secret; the backup channel, which garbage,
// silence and vanished clients cannot harm; the restore drill of docs/operations.md; a copy of a
// stopped directory; and what a restore refuses, each refusal leaving the target as it was.
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { client, type Client } from './helpers/app.ts';
import { runShell, shellBlock } from './helpers/doc-shell.ts';
import { freePort, runEntry, stopProcess, waitForHttp, type Child } from './helpers/processes.ts';
import { receiver, until, type Receiver } from './helpers/receiver.ts';
import { serviceEnv } from './helpers/service-process.ts';

vi.setConfig({ testTimeout: 180_000 });

/** Every process here: the embedded database, its encryption key in DATA_DIR/encryption.key (the default). */
const ENV = { ...serviceEnv, DATABASE_URL: '', REDIS_URL: '', ENCRYPTION_KEY: '' };

const children: Child[] = [];
const dirs: string[] = [];
let hooks: Receiver;
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  await hooks?.close();
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-backup-'));
  dirs.push(dir);
  return dir;
}

async function startService(dataDir: string): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  const child = runEntry('src/main.ts', { ...ENV, DATA_DIR: dataDir, PORT: String(port) });
  children.push(child);
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, child, 120_000);
  return { child, base };
}

const run = promisify(execFile);

/** The CLI with --json: its exit code, its one JSON document and what it wrote on stderr. */
async function cli(
  env: Record<string, string>,
  ...args: string[]
): Promise<{ code: number; json: any; stderr: string }> {
  let out: { stdout: string; stderr: string; code: number };
  try {
    const r = await run(process.execPath, ['dist/server/cli.js', ...args, '--json'], {
      env: { ...process.env, ...ENV, ...env },
      timeout: 120_000,
    });
    out = { ...r, code: 0 };
  } catch (err) {
    out = err as { stdout: string; stderr: string; code: number };
  }
  const lines = out.stdout.trim().split('\n');
  expect(lines, out.stderr).toHaveLength(1);
  return { code: out.code, json: JSON.parse(lines[0]), stderr: out.stderr };
}

/** Every row of a list, page by page. */
async function all(api: Client, list: string): Promise<any[]> {
  const rows: any[] = [];
  let cursor: string | null = null;
  do {
    const after = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const page = `${list}${list.includes('?') ? '&' : '?'}limit=100${after}`;
    const r = await api('GET', page);
    expect(r.status, r.text).toBe(200);
    rows.push(...r.body.data);
    cursor = r.body.meta.has_more ? r.body.meta.next_cursor : null;
  } while (cursor);
  return rows;
}

interface Write {
  start: number;
  end: number;
  status: number;
  id: string;
}

/** A pause between one client's writes: shorter than any backup, it keeps them within the key's rate limit. */
const PACE_MS = 10;

/** `n` clients creating contacts one after another, each shortly after its last answer came. */
function writers(api: Client, n: number): { writes: Write[]; stop: () => Promise<void> } {
  const writes: Write[] = [];
  let going = true;
  const loop = async (w: number) => {
    for (let i = 0; going; i++) {
      const start = performance.now();
      const r = await api('POST', '/v1/contacts', { first_name: `W${w}-${i}`, email: `w${w}-${i}@backup.example` });
      writes.push({ start, end: performance.now(), status: r.status, id: r.body?.data?.id });
      await new Promise((resolve) => setTimeout(resolve, PACE_MS));
    }
  };
  const loops = Array.from({ length: n }, (_, w) => loop(w));
  return {
    writes,
    stop: async () => {
      going = false;
      await Promise.all(loops);
    },
  };
}

/** Sends `bytes` on the backup channel; resolves with what came back once the connection closed. */
function talk(socket: string, bytes: string | Buffer, hangUpAfter?: number): Promise<string> {
  return new Promise((resolve) => {
    const s = net.createConnection(socket, () => s.write(bytes));
    let got = Buffer.alloc(0);
    s.on('data', (chunk) => {
      got = Buffer.concat([got, chunk]);
      if (hangUpAfter && got.length >= hangUpAfter) s.destroy();
    });
    s.on('error', () => {}); // the server may close while garbage is still being written
    s.on('close', () => resolve(got.toString('latin1')));
  });
}

const closed = (s: net.Socket) => new Promise<void>((resolve) => s.once('close', () => resolve()));

const hasDatabase = (dataDir: string) => fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'));

/** The contacts of an embedded database, opened directly (no process may hold it). */
async function contactIds(dataDir: string): Promise<string[]> {
  const db = await openDatabase({ dataDir });
  try {
    return (await db.prisma.contact.findMany({ select: { id: true }, orderBy: { id: 'asc' } })).map((c) => c.id);
  } finally {
    await db.close();
  }
}

const source = { dataDir: '', base: '', child: null as unknown as Child, key: '', socket: '' };
let api: Client;
let hook: { id: string; secret: string };
/** A backup taken while the source served writes, and the directory it was restored into. */
let runningBackup: string;
let restoredDir: string;

beforeAll(async () => {
  hooks = await receiver();
  source.dataDir = tempDir();
  // An enterprise workspace, made before the first start: its rate limit leaves room for the writers.
  const ws = await cli(
    { DATA_DIR: source.dataDir },
    'workspace',
    'create',
    '--name',
    'Backups',
    '--plan',
    'enterprise',
  );
  expect(ws.code, ws.stderr).toBe(0);
  const key = await cli(
    { DATA_DIR: source.dataDir },
    'key',
    'create',
    '--workspace',
    ws.json.id,
    '--name',
    'b',
    '--scope',
    'full',
  );
  expect(key.code, key.stderr).toBe(0);
  source.key = key.json.key;
  Object.assign(source, await startService(source.dataDir));
  source.socket = path.join(source.dataDir, 'control', 'backup.sock');
  api = client(source.base, source.key);
  const created = await api('POST', '/v1/webhooks', { url: hooks.url, events: ['deal.won'] });
  expect(created.status, created.text).toBe(201);
  hook = { id: created.body.data.id, secret: created.body.data.secret };
}, 180_000);

describe('a running server', () => {
  it('is copied while it writes; restored elsewhere, the copy serves the same contacts, key and secret', async () => {
    const load = writers(api, 2);
    expect(await until(() => load.writes.length >= 20, 60_000)).toBe(true);
    runningBackup = path.join(tempDir(), 'running.backup');
    const began = performance.now();
    const made = await cli({ DATA_DIR: source.dataDir }, 'backup', '--out', runningBackup);
    const ended = performance.now();
    expect(await until(() => load.writes.some((w) => w.start > ended), 60_000)).toBe(true);
    await load.stop();

    expect(made.code, made.stderr).toBe(0);
    expect(made.json).toMatchObject({
      file: runningBackup,
      copied_by: 'server',
      bytes: fs.statSync(runningBackup).size,
    });
    expect(fs.statSync(runningBackup).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(runningBackup))).toEqual(['running.backup']); // no partial file left
    expect(load.writes.filter((w) => w.status !== 201)).toEqual([]);
    // Writes went on while the backup was taken (the writers pause PACE_MS, far less than a CLI run).
    expect(load.writes.some((w) => w.start < ended && w.end > began)).toBe(true);

    restoredDir = tempDir();
    // The key is not in the backup: the operator copies it (docs/operations.md).
    fs.copyFileSync(path.join(source.dataDir, 'encryption.key'), path.join(restoredDir, 'encryption.key'));
    const restored = await cli({ DATA_DIR: restoredDir }, 'restore', '--in', runningBackup);
    expect(restored.code, restored.stderr).toBe(0);
    expect(restored.json).toMatchObject({ data_dir: restoredDir, previous_database: null });
    expect(fs.readdirSync(restoredDir).sort()).toEqual(['encryption.key', 'pglite']);

    const copy = await startService(restoredDir);
    const copyApi = client(copy.base, source.key);
    const contacts = new Set((await all(copyApi, '/v1/contacts')).map((c) => c.id));
    const created = (await all(copyApi, '/v1/events?type=contact.created')).map((e) => e.record_id);
    const written = new Set(load.writes.map((w) => w.id));
    // Everything answered before the backup began is in it; nothing asked for after it ended is.
    expect(load.writes.filter((w) => w.end < began && !contacts.has(w.id))).toEqual([]);
    expect(load.writes.filter((w) => w.start > ended && contacts.has(w.id))).toEqual([]);
    expect([...contacts].filter((id) => !written.has(id))).toEqual([]);
    // Each contact came with its event, in one transaction: no copy holds one without the other.
    expect(created.sort()).toEqual([...contacts].sort());

    expect((await client(copy.base, `crm_live_${'x'.repeat(32)}`)('GET', '/v1/contacts')).status).toBe(401);
    const sent = await copyApi('POST', `/v1/webhooks/${hook.id}/test`);
    expect(sent.status, sent.text).toBe(200);
    const hit = hooks.hits.at(-1)!;
    expect(hit.headers['x-service-signature']).toBe(
      crypto.createHmac('sha256', hook.secret).update(hit.raw).digest('hex'),
    );
    await stopProcess(copy.child);
  });

  it('keeps its backup channel to its owner: a socket, not a port, in a directory only the owner can enter', () => {
    const socket = fs.lstatSync(source.socket);
    expect(socket.isSocket()).toBe(true);
    expect(socket.mode & 0o777).toBe(0o600);
    expect(socket.uid).toBe(process.getuid!());
    expect(fs.statSync(path.dirname(source.socket)).mode & 0o777).toBe(0o700);
  });

  // Needs root to act as another user; DATA_DIR itself is opened to everyone, so only the channel's own
  // directory and socket stand in the way.
  it.runIf(process.getuid!() === 0 && fs.existsSync('/usr/bin/setpriv'))(
    'cannot be reached by another user of the machine',
    async () => {
      fs.chmodSync(source.dataDir, 0o755);
      const connect =
        "require('net').createConnection(process.argv[1])" +
        ".on('connect', () => { console.log('connected'); process.exit(0); })" +
        ".on('error', (e) => { console.log(e.code); process.exit(0); })";
      const asNobody = ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '-e', connect];
      const { stdout } = await run('/usr/bin/setpriv', [...asNobody, source.socket], { timeout: 30_000 });
      expect(stdout.trim()).toBe('EACCES');
    },
  );

  it('answers anything but a backup request with ERR and closes the connection', async () => {
    const garbage: (string | Buffer)[] = [
      'DROP TABLE contacts;\n',
      'BACKUP 2\n',
      '\n',
      'GET / HTTP/1.1\r\nHost: localhost\r\n\r\n',
      Buffer.alloc(100_000, 'A'), // no line end at all
      crypto.randomBytes(100_000),
    ];
    for (const bytes of garbage) expect(await talk(source.socket, bytes)).toMatch(/^ERR /);
  });

  it('is not harmed by a client that sends nothing, stops reading, or goes away mid-answer', async () => {
    const silent = net.createConnection(source.socket).on('error', () => {});
    const silentClosed = closed(silent);
    const stalled = net.createConnection(source.socket, () => stalled.write('BACKUP 1\n')).on('error', () => {});
    stalled.pause();
    const cut = await talk(source.socket, 'BACKUP 1\n', 1);
    expect(cut).toMatch(/^C/);

    const file = path.join(tempDir(), 'meanwhile.backup');
    const made = await cli({ DATA_DIR: source.dataDir }, 'backup', '--out', file);
    expect(made.code, made.stderr).toBe(0);
    expect((await api('POST', '/v1/contacts', { first_name: 'Still', email: 'still@backup.example' })).status).toBe(
      201,
    );
    await silentClosed; // the server ends a connection that sends no request
    stalled.destroy();
    expect(source.child.proc.exitCode).toBeNull();
    expect((await fetch(`${source.base}/healthz`)).status).toBe(200);
  });

  it('passes the restore drill of docs/operations.md', async () => {
    const drill = shellBlock('docs/operations.md', 'test/backup.test.ts');
    const first = (await api('GET', '/v1/contacts?limit=3')).body.data[0].id;
    const r = await runShell(
      drill,
      {
        ...ENV,
        LOG_LEVEL: 'warn',
        DATA_DIR: source.dataDir,
        KEY: source.key,
        BACKUP: path.join(tempDir(), 'drill.backup'),
        DRILL_DIR: path.join(tempDir(), 'drill'),
        DRILL_PORT: String(await freePort()),
      },
      150_000,
    );
    expect(r.code, r.stderr + r.stdout).toBe(0);
    expect(r.stdout).toContain(first);
  });

  it('makes a restore into its directory refuse, changing nothing', async () => {
    const before = fs.readdirSync(source.dataDir).sort();
    const r = await cli({ DATA_DIR: source.dataDir }, 'restore', '--in', runningBackup, '--force');
    expect(r.code).toBe(1);
    expect(r.json.error.code).toBe('database_busy');
    expect(fs.readdirSync(source.dataDir).sort()).toEqual(before);
    expect((await fetch(`${source.base}/healthz`)).status).toBe(200);
  });
});

describe('a stopped directory', () => {
  let stoppedBackup: string;

  beforeAll(async () => {
    await stopProcess(source.child);
    expect(source.child.proc.exitCode).toBe(0);
  }, 60_000);

  it('is backed up by the CLI itself; an existing file is replaced only with --force', async () => {
    expect(fs.existsSync(source.socket)).toBe(false); // the server removed its socket on the way out
    stoppedBackup = path.join(tempDir(), 'stopped.backup');
    const made = await cli({ DATA_DIR: source.dataDir }, 'backup', '--out', stoppedBackup);
    expect(made.code, made.stderr).toBe(0);
    expect(made.json.copied_by).toBe('cli');
    const bytes = fs.readFileSync(stoppedBackup);
    const again = await cli({ DATA_DIR: source.dataDir }, 'backup', '--out', stoppedBackup);
    expect(again.json.error.code).toBe('file_exists');
    expect(fs.readFileSync(stoppedBackup).equals(bytes)).toBe(true);
    expect((await cli({ DATA_DIR: source.dataDir }, 'backup', '--out', stoppedBackup, '--force')).code).toBe(0);

    const nothing = await cli({ DATA_DIR: tempDir() }, 'backup', '--out', path.join(tempDir(), 'x.backup'));
    expect(nothing.json.error.code).toBe('no_database');
  });

  it('is restored over a database only with --force, which moves that database aside', async () => {
    const refused = await cli({ DATA_DIR: restoredDir }, 'restore', '--in', stoppedBackup);
    expect(refused.json.error.code).toBe('not_empty');
    const previousIds = await contactIds(restoredDir);

    const forced = await cli({ DATA_DIR: restoredDir }, 'restore', '--in', stoppedBackup, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    const aside = forced.json.previous_database;
    expect(path.dirname(aside)).toBe(restoredDir);
    expect(path.basename(aside)).toMatch(/^pglite\.before-restore-/);
    expect(await contactIds(restoredDir)).toEqual(await contactIds(source.dataDir));
    // The database that was there is whole where it was moved.
    fs.renameSync(path.join(restoredDir, 'pglite'), path.join(restoredDir, 'restored'));
    fs.renameSync(aside, path.join(restoredDir, 'pglite'));
    expect(await contactIds(restoredDir)).toEqual(previousIds);
  });
});

describe('a restore refuses', () => {
  it('a file that is not a whole backup of a version it knows, changing nothing', async () => {
    const good = fs.readFileSync(runningBackup);
    const firstEnd = good.indexOf(0x0a);
    const headEnd = good.indexOf(0x0a, firstEnd + 1);
    const header = JSON.parse(good.subarray(firstEnd + 1, headEnd).toString('utf8'));
    const withHeader = (h: unknown) =>
      Buffer.concat([good.subarray(0, firstEnd + 1), Buffer.from(JSON.stringify(h)), good.subarray(headEnd)]);
    const flipped = Buffer.from(good);
    flipped[flipped.length - 100] ^= 0xff;
    const cases: [string, Buffer, string, RegExp][] = [
      ['a CSV file', Buffer.from('name,email\nAda,ada@example.com\n'), 'not_a_backup', /not a backup/],
      ['an empty file', Buffer.alloc(0), 'not_a_backup', /not a backup/],
      ['half a backup', good.subarray(0, good.length >> 1), 'backup_damaged', /truncated/],
      ['a backup cut in its header', good.subarray(0, firstEnd + 10), 'backup_damaged', /truncated/],
      ['a flipped byte', flipped, 'backup_damaged', /checksum/],
      [
        'a newer format',
        Buffer.concat([Buffer.from('CRM-BACKUP 2\n'), good.subarray(firstEnd + 1)]),
        'backup_too_new',
        /format 2/,
      ],
      [
        'a newer schema',
        withHeader({ ...header, migrations: [...header.migrations, '29991231000000_from_the_future'] }),
        'backup_too_new',
        /newer version.*29991231000000_from_the_future/,
      ],
    ];
    const files = tempDir();
    const before = fs.readdirSync(restoredDir).sort();
    const idsBefore = await contactIds(restoredDir);
    for (const [name, bytes, code, message] of cases) {
      const file = path.join(files, `${name}.backup`);
      fs.writeFileSync(file, bytes);
      const fresh = tempDir();
      const r = await cli({ DATA_DIR: fresh }, 'restore', '--in', file);
      expect([name, r.code, r.json.error.code]).toEqual([name, 1, code]);
      expect(r.json.error.message).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(hasDatabase(fresh)).toBe(false);
      const over = await cli({ DATA_DIR: restoredDir }, 'restore', '--in', file, '--force');
      expect(over.json.error.code).toBe(code);
    }
    expect(fs.readdirSync(restoredDir).sort()).toEqual(before);
    expect(await contactIds(restoredDir)).toEqual(idsBefore);
  });

  it('without the key the backup was made with, and restores with it given as ENCRYPTION_KEY', async () => {
    const missing = tempDir();
    const none = await cli({ DATA_DIR: missing }, 'restore', '--in', runningBackup);
    expect(none.json.error.code).toBe('encryption_key_missing');
    expect(none.json.error.message).toMatch(/ENCRYPTION_KEY.*encryption\.key/);
    expect(hasDatabase(missing)).toBe(false);
    expect(fs.existsSync(path.join(missing, 'encryption.key'))).toBe(false);

    const other = await cli({ DATA_DIR: missing, ENCRYPTION_KEY: 'not the key' }, 'restore', '--in', runningBackup);
    expect(other.json.error.code).toBe('encryption_key_mismatch');
    expect(hasDatabase(missing)).toBe(false);

    const key = fs.readFileSync(path.join(source.dataDir, 'encryption.key'), 'utf8').trim();
    // --data-dir names the directory instead of DATA_DIR.
    const elsewhere = path.join(tempDir(), 'not-this-one');
    const given = await cli(
      { DATA_DIR: elsewhere, ENCRYPTION_KEY: key },
      'restore',
      '--in',
      runningBackup,
      '--data-dir',
      missing,
    );
    expect(given.code, given.stderr).toBe(0);
    expect(hasDatabase(missing)).toBe(true);
    expect(fs.existsSync(elsewhere)).toBe(false);
  });

  it('on PostgreSQL, pointing to pg_dump and pg_restore in one line', async () => {
    const env = { DATABASE_URL: 'postgresql://crm@127.0.0.1:1/crm' };
    for (const args of [
      ['backup', '--out', path.join(tempDir(), 'x.backup')],
      ['restore', '--in', runningBackup],
    ]) {
      const r = await cli(env, ...args);
      expect(r.code).toBe(1);
      expect(r.json.error.code).toBe('use_pg_dump');
      expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/pg_dump.*pg_restore/)]);
    }
  });
});
