// Every GraphQL document the dashboard sends, read from its source and validated against the
// schema: a field that became an object (and now needs a selection set), or one that is gone,
// fails here rather than in a browser.
import fs from 'node:fs';
import path from 'node:path';
import { parse, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { schema } from '../src/schema/index.ts';

const DIR = path.join(import.meta.dirname, '../src/dashboard');

const sources = fs
  .readdirSync(DIR, { recursive: true, encoding: 'utf8' })
  .filter((f) => /\.tsx?$/.test(f))
  .map((f) => ({ file: f, text: fs.readFileSync(path.join(DIR, f), 'utf8') }));

/** Top-level string and number constants of a source file, by name. */
function constantsOf(text: string): Map<string, string> {
  const found = new Map<string, string>();
  for (const m of text.matchAll(/(?:^|\n)(?:export )?const (\w+)\s*=\s*(?:'([^']*)'|`([^`$]*)`|(\d+));/g))
    found.set(m[1], m[2] ?? m[3] ?? m[4]);
  return found;
}

const everywhere = new Map(sources.flatMap(({ text }) => [...constantsOf(text)]));

/** The documents passed to gql() and subscribe(), with `${CONSTANT}` filled in (the file's own first). */
function documentsOf(file: string, text: string): string[] {
  const own = constantsOf(text);
  const docs: string[] = [];
  for (const m of text.matchAll(/\b(?:gql|subscribe)(?:<[^(]*?>)?\(\s*(?:'([^']*)'|`([^`]*)`)/g)) {
    const raw = m[1] ?? m[2];
    docs.push(
      raw.replace(/\$\{(\w+)\}/g, (_, name: string) => {
        const value = own.get(name) ?? everywhere.get(name);
        if (value === undefined) throw new Error(`${file}: cannot resolve \${${name}} in a GraphQL document`);
        return value;
      }),
    );
  }
  return docs;
}

describe('the dashboard GraphQL documents', () => {
  const documents = sources.flatMap(({ file, text }) => documentsOf(file, text).map((doc) => ({ file, doc })));

  it('are found in its source', () => {
    expect(documents.length).toBeGreaterThan(20);
    expect(documents.map((d) => d.doc).join('\n')).toMatch(/contactTimeline[\s\S]*actor \{/);
    // Subscriptions too, with or without a type argument.
    for (const live of ['contactChanged(id: $id)', 'companyChanged(id: $id)'])
      expect(documents.map((d) => d.doc).join('\n')).toContain(live);
  });

  it('are valid against the schema', () => {
    const invalid = documents
      .map(({ file, doc }) => ({ file, doc, errors: validate(schema, parse(doc)).map((e) => e.message) }))
      .filter((d) => d.errors.length);
    expect(invalid).toEqual([]);
  });
});
