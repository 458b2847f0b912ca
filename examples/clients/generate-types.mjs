// Generates the clients' types from a running service: the REST paths from its OpenAPI document
// (openapi-typescript), the GraphQL documents from its schema (graphql-codegen).
// Run: CRM_URL=http://127.0.0.1:3000 CRM_KEY=crm_live_... npm run types
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const url = process.env.CRM_URL ?? 'http://127.0.0.1:3000';
const bin = (name) => path.join(here, 'node_modules', '.bin', name);
const run = (cmd, args) => execFileSync(cmd, args, { cwd: here, stdio: 'inherit' });

run(bin('openapi-typescript'), [`${url}/v1/openapi.json`, '--output', 'generated/rest-api.ts']);
run(bin('graphql-codegen'), ['--config', 'codegen.ts']);
