// `npm run db:migrate`: applies pending migrations to the configured database
// (DATABASE_URL, or the embedded PGlite under DATA_DIR), like `prisma migrate deploy`.
import { config } from '../src/config.ts';
import { DatabaseBusyError, openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';

try {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  try {
    const applied = await applyMigrations(db.adapter, { client: db.prisma });
    const where = db.kind === 'postgres' ? 'PostgreSQL' : `PGlite in ${config.dataDir}`;
    if (applied.length === 0) console.log(`${where}: already up to date.`);
    else console.log(`${where}: applied ${applied.length} migration(s):\n${applied.map((n) => `  ${n}`).join('\n')}`);
  } finally {
    await db.close();
  }
} catch (err) {
  console.error(err instanceof DatabaseBusyError ? err.message : err);
  process.exitCode = 1;
}
