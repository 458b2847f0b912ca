// Every example of the pages below runs against a live service, in page order, and answers as the
// page says: an ```http block is a request line and a JSON body (200 unless the text after it says
// `answers \`NNN\``), a ```graphql block a query that answers without errors.
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { projectRoot } from '../src/project-root.ts';
import { gql } from './helpers/app.ts';
import { it, test } from './helpers/fixtures.ts';

const DOCS = [
  'docs/filtering.md',
  'docs/batches.md',
  'docs/events.md',
  'docs/exports.md',
  'docs/audit-log.md',
  'docs/imports.md',
];

interface Example {
  doc: string;
  line: number;
  lang: 'http' | 'graphql';
  code: string;
  status: number;
}

function examples(doc: string): Example[] {
  const lines = fs.readFileSync(path.join(projectRoot, doc), 'utf8').split('\n');
  const found: Example[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(http|graphql)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^```\s*$/.test(l));
    const after = lines.slice(end + 1, end + 4).join('\n');
    const said = /answers `(\d{3})`/.exec(after);
    found.push({
      doc,
      line: i + 1,
      lang: open[1] as Example['lang'],
      code: lines.slice(i + 1, end).join('\n'),
      status: said ? Number(said[1]) : 200,
    });
    i = end;
  }
  return found;
}

test.beforeAll(async ({ ws }) => {
  await ws.addCustomField('seats', 'number');
  await ws.addCustomField('plan', 'select', ['pro', 'team']);
  await ws.api('POST', '/v1/contacts', { first_name: 'Ada', email: 'ada@acme.example', status: 'lead' });
});

it.for(DOCS)('%s has examples to run', (doc) => {
  expect(examples(doc).filter((e) => e.lang === 'http').length).toBeGreaterThan(3);
});

const all = DOCS.flatMap(examples);
it.for(all.map((e) => [`${e.doc}:${e.line}`, e] as const))('%s', async ([, example], { app, ws }) => {
  if (example.lang === 'graphql') {
    const r = await gql(app.base, ws.key, example.code);
    expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    return;
  }
  const [requestLine, ...body] = example.code.split('\n');
  const [method, url] = requestLine.split(' ');
  const text = body.join('\n').trim();
  const r = await ws.api(method, url, text ? JSON.parse(text) : undefined);
  expect(r.status, JSON.stringify(r.body)).toBe(example.status);
});
