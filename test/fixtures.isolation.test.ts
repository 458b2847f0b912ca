// A worker runs many test files in one module graph (isolate: false). vitest's `test.override` at a
// file's top level replaces the options of the shared fixtures, so every later file of the worker
// would start its app with them (a strict webhook URL policy, an isolated schema, another bus).
// Files take their own copy instead: `withAppOptions(...)`.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../src/project-root.ts';
import { test, withAppOptions } from './helpers/fixtures.ts';

function testFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    return e.isDirectory() ? testFiles(full) : e.name.endsWith('.ts') ? [full] : [];
  });
}

describe('test fixtures', () => {
  it('no file overrides the shared fixtures at its top level', () => {
    const offenders = testFiles(path.join(projectRoot, 'test')).filter((file) =>
      /^test\.override\(/m.test(fs.readFileSync(file, 'utf8')),
    );
    expect(offenders.map((f) => path.relative(projectRoot, f))).toEqual([]);
  });
});

// A copy with other options, taken at the top level as a file would: the shared fixtures keep theirs.
withAppOptions({ isolated: true, trustProxy: '1' });
test("a file's own options leave the shared fixtures as they were", ({ appOptions }) => {
  expect(appOptions).toEqual({});
});
