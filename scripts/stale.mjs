// Whether an esbuild output must be rebuilt: its manifest records the inputs of the last build;
// it is stale when any of them, or any of `alsoWatched`, changed since (or is gone).
import fs from 'node:fs';
import path from 'node:path';

export function isStale(root, manifestFile, alsoWatched) {
  let manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestFile, 'utf8'));
  } catch {
    return true;
  }
  const builtAt = fs.statSync(manifestFile).mtimeMs;
  const watched = [...manifest.inputs.map((f) => path.join(root, f)), ...alsoWatched];
  return watched.some((f) => !fs.existsSync(f) || fs.statSync(f).mtimeMs > builtAt);
}

export function listFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? listFiles(path.join(dir, e.name)) : [path.join(dir, e.name)]));
}
