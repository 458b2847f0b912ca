// Runs the service's own entry points as child processes, as an operator would.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

export interface Child {
  proc: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * The compiled entry point (built by test/helpers/build-setup.ts), as `npm start` runs it.
 * `nodeArgs`: flags for node itself, such as the heap limits
 * of `npm start` (see startFlags in bench/server-process.ts).
 */
export function runEntry(
  entry: 'src/main.ts' | 'src/worker.ts',
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Child {
  let out = '';
  const compiled = entry.replace('src/', 'dist/server/').replace(/\.ts$/, '.js');
  const proc = spawn(process.execPath, [...nodeArgs, compiled], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout!.on('data', (d) => (out += d));
  proc.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  return { proc, output: () => out, exited };
}

/** A fresh place for a child service's data: a temp dir, and a PostgreSQL database when the run uses one. */
export async function freshStore(): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-proc-'));
  const url = process.env.DATABASE_URL;
  if (!url)
    return {
      env: { DATA_DIR: dataDir, DATABASE_URL: '' },
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  const name = `crm_proc_${process.pid}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const dbUrl = new URL(url);
  dbUrl.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: dbUrl.toString() },
    drop: async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function waitForHttp(url: string, child: Child, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      await fetch(url);
      return;
    } catch {
      if (child.proc.exitCode !== null) throw new Error(`process exited: ${child.output().slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }
  throw new Error(`no answer from ${url}: ${child.output().slice(-2000)}`);
}

/**
 * Starts the service (`src/main.ts`) on `port`, again and again until it answers at `path`: after
 * a SIGKILL, the embedded database's lock and the worker's leases outlive the killed process for a
 * moment. Every process started joins `children`, for the file's cleanup.
 */
export async function startServiceUntilUp(
  env: Record<string, string>,
  port: number,
  children: Child[],
  { path: probe = '/healthz', eachMs = 60_000, totalMs = 120_000 } = {},
): Promise<Child> {
  const end = Date.now() + totalMs;
  for (;;) {
    const child = runEntry('src/main.ts', { ...env, PORT: String(port) });
    children.push(child);
    try {
      await waitForHttp(`http://127.0.0.1:${port}${probe}`, child, eachMs);
      return child;
    } catch (err) {
      child.proc.kill('SIGKILL');
      if (Date.now() > end) throw err;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** Resident memory of a process now (VmRSS), in MB. */
export function rssMb(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Peak resident memory of a process (VmHWM), in MB, since it started or since resetPeakRss. */
export function peakRssMb(pid: number): number {
  return Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
}

/** Measures the peak from now on, over the memory held now (5 in clear_refs resets VmHWM). */
export function resetPeakRss(pid: number): void {
  fs.writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** SIGTERM, and SIGKILL if it has not exited within 5 s. */
export async function stopProcess(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  await Promise.race([child.exited, new Promise((r) => setTimeout(r, 5_000))]);
  child.proc.kill('SIGKILL');
}
