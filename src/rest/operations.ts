// Loads the REST operations once at start: parsed and validated against the schema, so a
// route whose operation no longer fits the schema stops the service instead of failing later.
import fs from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../project-root.ts';
import { parse, separateOperations, validate, type DocumentNode, type GraphQLSchema } from 'graphql';

const DIR = path.join(projectRoot, 'src/rest/operations');

export function loadOperations(schema: GraphQLSchema): Map<string, DocumentNode> {
  const source = fs
    .readdirSync(DIR)
    .filter((f) => f.endsWith('.graphql'))
    .sort()
    .map((f) => fs.readFileSync(path.join(DIR, f), 'utf8'))
    .join('\n');
  const operations = new Map<string, DocumentNode>();
  for (const [name, document] of Object.entries(separateOperations(parse(source)))) {
    const errors = validate(schema, document);
    if (errors.length) throw new Error(`REST operation ${name} is invalid: ${errors.map((e) => e.message).join('; ')}`);
    operations.set(name, document);
  }
  return operations;
}
