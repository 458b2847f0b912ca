// Writes the API contract into contract/: the OpenAPI document as the service serves it (without
// PUBLIC_URL), the GraphQL schema, and one JSON Schema per webhook event type. Built from the code
// alone, without a database, and byte for byte the same on every run.
//
//   npm run contract              write the files
//   npm run contract -- --check   exit 1, with a summary of the differences, when the checked-in
//                                 files are not what the code generates (CI runs this)
import fs from 'node:fs';
import path from 'node:path';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { projectRoot } from '../src/project-root.ts';
import { buildOpenApi } from '../src/rest/openapi.ts';
import { loadOperations } from '../src/rest/operations.ts';
import { schema } from '../src/schema/index.ts';
import { eventSchemaFiles } from '../src/events/catalogue/envelopes.ts';

const DIR = path.join(projectRoot, 'contract');
const EVENTS_DIR = 'events';

const json = (value: unknown) => JSON.stringify(value, null, 2) + '\n';

/** Every contract file, by path relative to contract/. */
function generate(): Map<string, string> {
  const files = new Map<string, string>();
  files.set('openapi.json', json(buildOpenApi(schema, loadOperations(schema))));
  files.set('schema.graphql', printSchema(lexicographicSortSchema(schema)) + '\n');
  for (const [name, eventSchema] of Object.entries(eventSchemaFiles()).sort(([a], [b]) => a.localeCompare(b))) {
    files.set(`${EVENTS_DIR}/${name}`, json(eventSchema));
  }
  return files;
}

/** The files now in contract/ that this script owns (README and config files are not). */
function checkedIn(): Map<string, string> {
  const files = new Map<string, string>();
  const read = (rel: string) => files.set(rel, fs.readFileSync(path.join(DIR, rel), 'utf8'));
  for (const rel of ['openapi.json', 'schema.graphql']) if (fs.existsSync(path.join(DIR, rel))) read(rel);
  const events = path.join(DIR, EVENTS_DIR);
  if (fs.existsSync(events))
    for (const f of fs.readdirSync(events).filter((f) => f.endsWith('.json'))) read(`${EVENTS_DIR}/${f}`);
  return files;
}

/** A few lines on how two versions of a file differ: counts, then the first changed lines. */
function differences(before: string, after: string): string[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const count = (lines: string[]) => lines.reduce((m, l) => m.set(l, (m.get(l) ?? 0) + 1), new Map<string, number>());
  const [inA, inB] = [count(a), count(b)];
  const only = (x: Map<string, number>, y: Map<string, number>) =>
    [...x].reduce((n, [l, c]) => n + Math.max(0, c - (y.get(l) ?? 0)), 0);
  let first = 0;
  while (first < Math.min(a.length, b.length) && a[first] === b[first]) first++;
  const show = (lines: string[], sign: string) =>
    lines.slice(first, first + 3).map((l) => `      ${sign} ${l.length > 160 ? l.slice(0, 160) + '…' : l}`);
  return [
    `    ${only(inB, inA)} line(s) only in the generated file, ${only(inA, inB)} only in the checked-in one; ` +
      `first difference at line ${first + 1}:`,
    ...show(a, '-'),
    ...show(b, '+'),
  ];
}

function check(expected: Map<string, string>): boolean {
  const actual = checkedIn();
  const report: string[] = [];
  for (const [rel, text] of expected) {
    const now = actual.get(rel);
    if (now === undefined) report.push(`  contract/${rel}: missing`);
    else if (now !== text) report.push(`  contract/${rel}: differs`, ...differences(now, text));
  }
  for (const rel of actual.keys()) if (!expected.has(rel)) report.push(`  contract/${rel}: no longer generated`);
  if (report.length === 0) {
    console.log(`contract/ is up to date (${expected.size} files).`);
    return true;
  }
  console.error(
    [
      'The checked-in contract is not what the code generates:',
      ...report,
      'Run `npm run contract` and commit contract/.',
    ].join('\n'),
  );
  return false;
}

function write(files: Map<string, string>): void {
  for (const rel of checkedIn().keys()) if (!files.has(rel)) fs.rmSync(path.join(DIR, rel));
  for (const [rel, text] of files) {
    fs.mkdirSync(path.dirname(path.join(DIR, rel)), { recursive: true });
    fs.writeFileSync(path.join(DIR, rel), text);
  }
  console.log(`Wrote ${files.size} files to contract/.`);
}

const files = generate();
if (process.argv.includes('--check')) process.exitCode = check(files) ? 0 : 1;
else write(files);
