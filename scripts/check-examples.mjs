// CI check of the client examples (examples/clients) against a live service: starts the built
// service on the embedded database in a temporary folder on a free port, takes the API key its
// first start prints, regenerates the clients' types from the running service, type-checks the
// examples (`tsc --noEmit`, their own TypeScript) and runs them. Exit 1 when any step fails.
// Needs `npm ci` in the project (it builds dist/) and in examples/clients.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const examples = path.join(root, 'examples/clients');
const START_TIMEOUT_MS = 60_000;

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** The service, started once; resolves with its first key when it answers /healthz. */
async function startService(port, dataDir) {
  const child = spawn(process.execPath, ['dist/server/main.js'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: '',
      REDIS_URL: '',
      PUBLIC_URL: '',
      LOG_LEVEL: 'warn',
      GRAPHQL_INTROSPECTION: 'true',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    const key = /crm_live_\w+/.exec(output)?.[0];
    if (key && (await answers(`http://127.0.0.1:${port}/healthz`))) return { child, key, exited };
    if (child.exitCode !== null) throw new Error(`the service exited (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not start within ${START_TIMEOUT_MS / 1000} s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function answers(url) {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}

function step(title, cmd, args, env) {
  console.log(`\n-- ${title}`);
  execFileSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-examples-'));
const port = await freePort();
const service = await startService(port, dataDir);
const env = { CRM_URL: `http://127.0.0.1:${port}`, CRM_KEY: service.key };
let failed = false;
try {
  step('types from the running service', process.execPath, [path.join(examples, 'generate-types.mjs')], env);
  step('type-check the examples', path.join(examples, 'node_modules/.bin/tsc'), ['-p', examples, '--noEmit']);
  for (const example of ['rest-client.ts', 'graphql-client.ts']) {
    step(`run ${example}`, path.join(root, 'node_modules/.bin/tsx'), [path.join(examples, example)], env);
  }
  console.log('\nclient examples: generated, type-checked and run against the service');
} catch (err) {
  failed = true;
  console.error(`\nclient examples failed: ${err.message.split('\n')[0]}`);
} finally {
  service.child.kill('SIGTERM');
  await service.exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
}
process.exitCode = failed ? 1 : 0;
