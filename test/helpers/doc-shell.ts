// Runs a shell block of the documentation as it stands, as an operator pastes it: bash with -e and
// pipefail, from the checkout, with the variables the page says to set. The block is the ```sh block
// right after the line `<!-- <test file> runs the block below as it stands. -->`, so the page names
// the test that keeps it true.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../../src/project-root.ts';

export function shellBlock(doc: string, testFile: string): string {
  const lines = fs.readFileSync(path.join(projectRoot, doc), 'utf8').split('\n');
  const marker = lines.indexOf(`<!-- ${testFile} runs the block below as it stands. -->`);
  if (marker === -1 || lines[marker + 1] !== '```sh') throw new Error(`${doc} has no block marked for ${testFile}`);
  const end = lines.findIndex((l, i) => i > marker + 1 && l === '```');
  return lines.slice(marker + 2, end).join('\n');
}

/**
 * Runs `script` in a process group of its own: whatever it left running (a server it started in the
 * background before a line failed) is killed with it at the end.
 */
export async function runShell(
  script: string,
  env: Record<string, string>,
  timeoutMs: number,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const proc = spawn('bash', ['-euo', 'pipefail', '-c', script], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => (stdout += d));
  proc.stderr.on('data', (d) => (stderr += d));
  const closed = new Promise((resolve) => proc.once('close', resolve));
  const timer = setTimeout(() => killGroup(proc.pid!), timeoutMs);
  // On its exit, not once its output closes: a server left behind holds that open.
  const code = await new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  clearTimeout(timer);
  killGroup(proc.pid!);
  await closed;
  return { code, stdout, stderr };
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group has ended.
  }
}
