// A Redis server of the test's own on a free port, so a test may take it down (or count on no
// one else's keys) without touching the machine's shared Redis.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './processes.ts';

export interface PrivateRedis {
  url: string;
  /** SIGKILL: Redis gone without warning. */
  kill(): Promise<void>;
  start(): Promise<void>;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  let server: ChildProcess | null = null;

  async function start() {
    const proc = spawn(
      'redis-server',
      ['--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' },
    );
    server = proc;
    const end = Date.now() + 15_000;
    for (;;) {
      const probe = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
      probe.on('error', () => {});
      const ok = await probe
        .connect()
        .then(() => probe.ping())
        .then(
          () => true,
          () => false,
        );
      probe.disconnect();
      if (ok) return;
      if (proc.exitCode !== null || Date.now() > end) throw new Error('redis-server did not start');
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  await start();
  return {
    url,
    start,
    async kill() {
      const proc = server;
      if (!proc || proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGKILL');
      await exited;
      server = null;
    },
  };
}
