// On PostgreSQL every test run gets a schema of its own (dropped at the end), so runs never
// see each other's data or an older migration history. On PGlite, one migrated database is
// dumped once and every test file starts from that dump: much faster than initdb + migrations.
import type { TestProject } from 'vitest/node';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    pgSchema: string | null;
    pgliteDump: string | null;
  }
}

export default async function setup(project: TestProject) {
  const url = process.env.DATABASE_URL;
  if (!url) {
    const db = await openDatabase({});
    await applyMigrations(db.adapter);
    const dump = await db.pglite!.dumpDataDir('none');
    await db.close();
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'crm-test-db-')), 'migrated.tar');
    fs.writeFileSync(file, Buffer.from(await dump.arrayBuffer()));
    project.provide('pgSchema', null);
    project.provide('pgliteDump', file);
    return () => fs.rmSync(path.dirname(file), { recursive: true, force: true });
  }
  project.provide('pgliteDump', null);
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
