// The checkout's root directory, for files the service reads at run time (REST operations,
// migrations, the dashboard's build). Found by walking up from this module, so it is the same
// whether the code runs from src/ (tests, tsx) or from the compiled bundle in dist/server.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, 'package.json')) && fs.existsSync(path.join(dir, 'prisma'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`No project root (package.json beside prisma/) above ${from}`);
  }
}

export const projectRoot = findRoot(path.dirname(fileURLToPath(import.meta.url)));
