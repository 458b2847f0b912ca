// Builds the dashboard bundle when its sources changed since the last build.
import { execFileSync } from 'node:child_process';

export default function setup() {
  execFileSync(process.execPath, ['scripts/build-dashboard.mjs', '--if-stale'], { stdio: 'inherit' });
}
