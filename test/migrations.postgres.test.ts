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

  it('leave no advisory lock behind on the connections the service goes on using', async () => {
    const schema = `crm_locks_${process.pid}_${Date.now().toString(36)}`;
    const name = `crm-locks-${process.pid}-${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const target = new URL(url!);
    target.searchParams.set('application_name', name);
    const db = await openDatabase({ databaseUrl: target.toString(), schema, poolSize: 2 });
    try {
      await applyMigrations(db.adapter);
      // The service's own connections are open and in use afterwards.
      await db.sql.query('SELECT 1');
      await db.prisma.workspace.count();
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND a.application_name = $1`,
        [name],
      );
      expect(rows[0].n).toBe(0);
    } finally {
      await db.close();
      await admin.query(`DROP SCHEMA ${schema} CASCADE`);
      await admin.end();
    }
  });
});
