// Runs `prisma generate` (client + Pothos types). Generation is WASM-only; Prisma still looks for a
// schema-engine binary first and would try to download one, so point it at an existing file.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const env = {
  ...process.env,
  PRISMA_SCHEMA_ENGINE_BINARY:
    process.env.PRISMA_SCHEMA_ENGINE_BINARY || fileURLToPath(new URL('../package.json', import.meta.url)),
  PRISMA_HIDE_UPDATE_MESSAGE: '1',
};
const r = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('../node_modules/prisma/build/index.js', import.meta.url)), 'generate'],
  { cwd: root, env, stdio: 'inherit' },
);
process.exit(r.status ?? 1);
