// Child-process tests run the service as `npm start` does, compiled (dist/server): built here
// once per run when a source changed, before any test file could start a process from it.
import { execFileSync } from 'node:child_process';

export default function setup() {
  execFileSync(process.execPath, ['scripts/build-server.mjs', '--if-stale'], { stdio: 'inherit' });
}
