// Starts a server script (the service's dist/server/main.js or a baseline) in a process of its own, waits
// until it answers, and samples its resident memory while it runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export interface ServerProcess {
  base: string;
  /**
   * CPU time the process has used so far (user + system), in ms:
   * per request it is steadier than req/s on a busy machine.
   */
  cpuMs(): number;
  /** Most resident memory seen so far, in MB. */
  rssMaxMb(): number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

function rssMb(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

const TICK_MS = 10; // USER_HZ is 100 on Linux

function cpuMsOf(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return NaN;
  }
}

/**
 * The node flags `npm start` gives the service (such as its heap limit), read from package.json
 * so that the benchmark measures the service as it is started.
 */
export function startFlags(): string[] {
  const start = (JSON.parse(fs.readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start;
  const command = start
    .split('&&')
    .map((s) => s.trim())
    .find((s) => s.endsWith('dist/server/main.js'));
  return command ? command.split(/\s+/).slice(1, -1) : [];
}

/** `nodeArgs`: extra flags for node, such as `--cpu-prof` (see `--profile` in run.ts). */
export async function startServer(
  script: string,
  env: Record<string, string>,
  nodeArgs: string[] = [],
): Promise<ServerProcess> {
  const port = await freePort();
  // Node itself runs the script (tsx as a loader for TypeScript), so the child's pid is the server's.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeArgs, ...loader, script], {
    env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr = (stderr + d).slice(-4000)));
  let exited = false;
  child.on('exit', () => (exited = true));
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (exited) throw new Error(`${script} exited before answering:\n${stderr}`);
    if (i > 600) throw new Error(`${script} did not answer within 60 s:\n${stderr}`);
    const ok = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  let max = rssMb(child.pid!);
  const sampler = setInterval(() => (max = Math.max(max, rssMb(child.pid!))), 250);
  return {
    base,
    cpuMs: () => cpuMsOf(child.pid!),
    rssMaxMb: () => Math.max(max, rssMb(child.pid!)),
    stop: async () => {
      clearInterval(sampler);
      if (exited) return;
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
