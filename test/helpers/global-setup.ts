// On PostgreSQL every test run gets a schema of its own (dropped at the end), so runs never
// see each other's data or an older migration history. PGlite runs need nothing here.
import type { TestProject } from 'vitest/node';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgSchema: string | null;
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    project.provide('pgSchema', null);
    return;
  }
  const schema = `crm_test_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  const db = await openDatabase({ databaseUrl: url, schema });
  await applyMigrations(db.adapter);
  await db.close();
  project.provide('pgSchema', schema);
  return async () => {
    await client.query(`DROP SCHEMA ${schema} CASCADE`);
    await client.end();
  };
}
