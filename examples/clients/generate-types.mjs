// Generates the clients' types from a running service: the REST paths from its OpenAPI document
// (openapi-typescript), the GraphQL documents from its schema (graphql-codegen).
// Run: CRM_URL=http://127.0.0.1:3000 CRM_KEY=crm_live_... npm run types
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';

const here = path.dirname(fileURLToPath(import.meta.url));
const url = process.env.CRM_URL ?? 'http://127.0.0.1:3000';

// A file part (`format: binary`, the import's `file`) is a Blob, as FormData takes it, not a string:
// openapi-typescript's own recipe for uploads.
const BLOB = ts.factory.createTypeReferenceNode(ts.factory.createIdentifier('Blob'));
const ast = await openapiTS(new URL('/v1/openapi.json', url), {
  transform: (schema) => (schema.format === 'binary' ? BLOB : undefined),
});
fs.mkdirSync(path.join(here, 'generated'), { recursive: true });
fs.writeFileSync(path.join(here, 'generated/rest-api.ts'), astToString(ast));

execFileSync(path.join(here, 'node_modules', '.bin', 'graphql-codegen'), ['--config', 'codegen.ts'], {
  cwd: here,
  stdio: 'inherit',
});
