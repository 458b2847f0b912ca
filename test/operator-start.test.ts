// Operators' bad days, with the compiled service run as `npm start`, `npm run worker` and the CLI
// run it: a start that cannot go on exits non-zero at once with one clear line and creates
// nothing; a lock left by a dead process (or copied with the directory) is taken over at once.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort, freshStore, runEntry, waitForHttp, type Child } from './helpers/processes.ts';

const EXIT_WITHIN_MS = 15_000;
// A fresh embedded database takes a while to create on a busy machine; the bounds that matter are EXIT_WITHIN_MS.
vi.setConfig({ testTimeout: 120_000 });
const children: Child[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-start-'));
  dirs.push(dir);
  return dir;
}

function start(entry: 'src/main.ts' | 'src/worker.ts', env: Record<string, string>): Child {
  const child = runEntry(entry, env);
  children.push(child);
  return child;
}

/** Waits for the exit (failing after the bound) and returns its code and the one line it printed. */
async function failedStart(child: Child): Promise<{ code: number | null; line: string; msg: string }> {
  const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), EXIT_WITHIN_MS).unref());
  const outcome = await Promise.race([child.exited, timer]);
  if (outcome === 'timeout') {
    child.proc.kill('SIGKILL');
    throw new Error(`still running after ${EXIT_WITHIN_MS} ms: ${child.output().slice(-1500)}`);
  }
  const lines = child.output().trim().split('\n').filter(Boolean);
  expect(lines, child.output()).toHaveLength(1);
  const line = lines[0];
  expect(line, 'no stack trace').not.toMatch(/\bat .*:\d+:\d+|"stack"/);
  return { code: outcome, line, msg: (JSON.parse(line) as { msg: string }).msg };
}

function holdPort(): Promise<{ port: number; close: () => void }> {
  return new Promise((resolve) => {
    const s = net
      .createServer()
      .listen(0, '127.0.0.1', () => resolve({ port: (s.address() as net.AddressInfo).port, close: () => s.close() }));
  });
}

const embedded = (dataDir: string) => ({ DATA_DIR: dataDir, DATABASE_URL: '' });

describe('a port that cannot be had', () => {
  it('npm start exits 1 at once with one line, before creating a workspace, a key or a database', async () => {
    const store = await freshStore();
    const held = await holdPort();
    try {
      const r = await failedStart(start('src/main.ts', { ...store.env, PORT: String(held.port) }));
      expect(r.code).toBe(1);
      expect(r.msg).toMatch(new RegExp(`127\\.0\\.0\\.1:${held.port} \\(PORT\\).*already in use`));
      expect(r.line).not.toMatch(/crm_live_|Created workspace/);
      expect(fs.readdirSync(store.env.DATA_DIR)).toEqual([]);
    } finally {
      held.close();
      await store.drop();
    }
  });

  it('with TLS, a taken HTTP_REDIRECT_PORT is refused the same way', async () => {
    const dir = tempDir();
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-days',
        '1',
        '-keyout',
        `${dir}/key.pem`,
        '-out',
        `${dir}/cert.pem`,
      ],
      { stdio: 'ignore' },
    );
    const held = await holdPort();
    try {
      const r = await failedStart(
        start('src/main.ts', {
          ...embedded(tempDir()),
          PORT: String(await freePort()),
          TLS_CERT_FILE: `${dir}/cert.pem`,
          TLS_KEY_FILE: `${dir}/key.pem`,
          HTTP_REDIRECT_PORT: String(held.port),
        }),
      );
      expect(r.code).toBe(1);
      expect(r.msg).toMatch(/\(HTTP_REDIRECT_PORT\).*already in use/);
    } finally {
      held.close();
    }
  });

  it('TLS files that cannot be read, or are not a certificate and key, end the start with one line', async () => {
    const dir = tempDir();
    fs.writeFileSync(`${dir}/junk.pem`, 'not a certificate');
    for (const [cert, key, expected] of [
      [`${dir}/missing.pem`, `${dir}/missing.pem`, /Cannot read TLS_CERT_FILE .*missing\.pem/],
      [`${dir}/junk.pem`, `${dir}/junk.pem`, /TLS_CERT_FILE and TLS_KEY_FILE are not a certificate/],
    ] as const) {
      const r = await failedStart(
        start('src/main.ts', {
          ...embedded(tempDir()),
          PORT: String(await freePort()),
          TLS_CERT_FILE: cert,
          TLS_KEY_FILE: key,
        }),
      );
      expect(r.code).toBe(1);
      expect(r.msg).toMatch(expected);
    }
  });
});

describe('a setting with a bad value', () => {
  it('ends the start of the service and the worker with one line naming it, before anything is opened', async () => {
    for (const entry of ['src/main.ts', 'src/worker.ts'] as const) {
      const dataDir = tempDir();
      const child = start(entry, { ...embedded(dataDir), PORT: 'abc', WEBHOOK_WORKER_POLL_MS: '-5' });
      const timer = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), EXIT_WITHIN_MS).unref());
      expect(await Promise.race([child.exited, timer]), entry).toBe(1);
      const lines = child.output().trim().split('\n').filter(Boolean);
      expect(lines, child.output()).toHaveLength(1);
      expect(lines[0]).toMatch(/^Invalid configuration: (PORT|WEBHOOK_WORKER_POLL_MS) must be/);
      expect(lines[0], 'no stack trace').not.toMatch(/\bat .*:\d+:\d+/);
      expect(fs.readdirSync(dataDir)).toEqual([]);
    }
  });
});

describe('the embedded database lock', () => {
  it('a start right after a SIGKILL takes the lock over at once', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const first = start('src/main.ts', { ...embedded(dataDir), PORT: String(port) });
    await waitForHttp(`http://127.0.0.1:${port}/health`, first);
    first.proc.kill('SIGKILL');
    await first.exited;
    const second = start('src/main.ts', { ...embedded(dataDir), PORT: String(port) });
    await waitForHttp(`http://127.0.0.1:${port}/health`, second, EXIT_WITHIN_MS);
    expect(second.output()).not.toMatch(/in use/);
    second.proc.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('a copy of the directory made while the server runs starts; the original stays locked', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    const running = start('src/main.ts', { ...embedded(dataDir), PORT: String(port) });
    await waitForHttp(`http://127.0.0.1:${port}/health`, running);
    const copy = path.join(tempDir(), 'copy');
    // The server's backup socket is no file to copy (Node refuses it; GNU cp -a makes a dead one, which
    // the copy's server replaces).
    fs.cpSync(dataDir, copy, { recursive: true, filter: (from) => !fs.lstatSync(from).isSocket() });

    const copyPort = await freePort();
    const fromCopy = start('src/main.ts', { ...embedded(copy), PORT: String(copyPort) });
    await waitForHttp(`http://127.0.0.1:${copyPort}/health`, fromCopy, EXIT_WITHIN_MS);
    expect(fromCopy.output()).not.toMatch(/in use/);

    // The running server still holds its own directory: a second start there is refused at once.
    const second = await failedStart(start('src/main.ts', { ...embedded(dataDir), PORT: String(await freePort()) }));
    expect(second.code).toBe(1);
    expect(second.msg).toMatch(new RegExp(`in use by process ${running.proc.pid}`));
    for (const c of [running, fromCopy]) c.proc.kill('SIGTERM');
    expect(await Promise.all([running.exited, fromCopy.exited])).toEqual([0, 0]);
  });
});

describe('a DATA_DIR that cannot hold a database', () => {
  const cases: [string, () => string, RegExp][] = [
    [
      'a file',
      () => {
        const file = path.join(tempDir(), 'file');
        fs.writeFileSync(file, '');
        return file;
      },
      /DATA_DIR .* cannot hold the embedded database: a file stands where a directory is needed/,
    ],
    [
      'a directory under a file',
      () => {
        const file = path.join(tempDir(), 'file');
        fs.writeFileSync(file, '');
        return path.join(file, 'data');
      },
      /cannot hold the embedded database/,
    ],
    [
      'a file where the database directory goes',
      () => {
        const dir = tempDir();
        fs.writeFileSync(path.join(dir, 'pglite'), '');
        return dir;
      },
      /a file stands where a directory is needed/,
    ],
    [
      'a damaged database',
      () => {
        const dir = tempDir();
        fs.mkdirSync(path.join(dir, 'pglite'));
        fs.writeFileSync(path.join(dir, 'pglite', 'PG_VERSION'), 'garbage\n');
        return dir;
      },
      /The embedded database in .* cannot be opened/,
    ],
    ...(process.getuid?.() === 0
      ? []
      : [
          [
            'read-only',
            () => {
              const dir = tempDir();
              fs.chmodSync(dir, 0o555);
              return dir;
            },
            /permission denied/,
          ] as [string, () => string, RegExp],
        ]),
  ];

  it.each(cases)(
    '%s: npm start, the worker and the CLI exit 1 at once with one line',
    async (_name, make, expected) => {
      const dataDir = make();
      for (const entry of ['src/main.ts', 'src/worker.ts'] as const) {
        const r = await failedStart(start(entry, { ...embedded(dataDir), PORT: String(await freePort()) }));
        expect(r.code, entry).toBe(1);
        expect(r.msg, entry).toMatch(expected);
      }
      const cli = spawn(process.execPath, ['dist/server/cli.js', 'workspace', 'create', '--name', 'X', '--json'], {
        env: { ...process.env, ...embedded(dataDir) },
      });
      let out = '';
      cli.stdout.on('data', (d) => (out += d));
      const code = await new Promise<number | null>((r) => cli.once('exit', r));
      expect(code).toBe(1);
      expect(JSON.parse(out.trim()).error.message).toMatch(expected);
    },
  );
});

describe('PostgreSQL that cannot be used', () => {
  it.each([
    [
      'unreachable',
      'postgresql://postgres@127.0.0.1:1/crm',
      /Cannot use PostgreSQL at 127\.0\.0\.1:1\/crm \(DATABASE_URL\)/,
    ],
    ['not a URL', 'not a url', /DATABASE_URL is not a postgresql:\/\/ URL/],
    ['another scheme', 'mysql://root@127.0.0.1/crm', /DATABASE_URL is not a postgresql:\/\/ URL/],
  ])('%s: npm start and the worker exit 1 at once with one line', async (_name, url, expected) => {
    for (const entry of ['src/main.ts', 'src/worker.ts'] as const) {
      const r = await failedStart(
        start(entry, { DATA_DIR: tempDir(), DATABASE_URL: url, PORT: String(await freePort()) }),
      );
      expect(r.code, entry).toBe(1);
      expect(r.msg, entry).toMatch(expected);
    }
  });
});
