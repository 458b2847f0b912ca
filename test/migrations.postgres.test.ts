// Migrations on a PostgreSQL that another caller is migrating: the schema engine gives up on its
// advisory lock after 10 s, and a start then waits its turn rather than failing.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/client.ts';
import { applyMigrations, pendingMigrations } from '../src/db/migrate.ts';

const url = process.env.DATABASE_URL;

describe.runIf(url)('migrations on PostgreSQL', () => {
  it('wait for another caller holding the migration lock longer than the engine would', async () => {
    const schema = `crm_turn_${process.pid}_${Date.now().toString(36)}`;
    const holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query(`CREATE SCHEMA ${schema}`);
    // The engine's own lock key, held as another instance's migration would hold it.
    await holder.query('SELECT pg_advisory_lock(72707369)');
    const db = await openDatabase({ databaseUrl: url!, schema, poolSize: 2 });
    try {
      const released = new Promise<void>((done) =>
        setTimeout(() => void holder.query('SELECT pg_advisory_unlock(72707369)').then(() => done()), 12_000),
      );
      const applied = await applyMigrations(db.adapter);
      await released;
      expect(applied.length).toBeGreaterThan(5);
      expect(await pendingMigrations(db.prisma)).toEqual([]);
    } finally {
      await db.close();
      await holder.query(`DROP SCHEMA ${schema} CASCADE`);
      await holder.end();
    }
  }, 60_000);
});
