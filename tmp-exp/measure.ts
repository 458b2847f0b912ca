import { openDatabase } from '../src/db/client.ts';
import { applyMigrations } from '../src/db/migrate.ts';
import { seed } from '../bench/seed.ts';
const url = 'postgresql://postgres@127.0.0.1:5432/postgres';
import pg from 'pg';
const admin = new pg.Client({ connectionString: url }); await admin.connect();
await admin.query('DROP SCHEMA IF EXISTS expmeasure CASCADE; CREATE SCHEMA expmeasure');
const db = await openDatabase({ databaseUrl: url, schema: 'expmeasure' });
await applyMigrations(db.adapter);
const s = await seed(db, 50000, 2);
const ws = s.readWorkspace;
for (let round = 0; round < 2; round++) {
  let t = Date.now(); let n = 0;
  await db.prisma.$transaction(async (tx) => {
    let after: { createdAt: Date; id: string } | null = null;
    for (;;) {
      const rows = await tx.contact.findMany({ where: { workspaceId: ws, ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
      n += rows.length; if (rows.length < 1000) break; const l = rows[rows.length - 1]; after = { createdAt: l.createdAt, id: l.id };
    }
  }, { isolationLevel: 'RepeatableRead', timeout: 600000 });
  console.log('prisma', n, Math.round(n / ((Date.now() - t) / 1000)), 'rows/s');
  t = Date.now(); n = 0;
  await db.sql.transaction(async (q) => {
    await q('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    let after: [string, string] | null = null;
    for (;;) {
      const rows = await q<any>(`SELECT * FROM contacts WHERE workspace_id = $1 ${after ? 'AND (created_at, id) > ($2, $3)' : ''} ORDER BY created_at, id LIMIT 1000`, after ? [ws, ...after] : [ws]);
      n += rows.length; if (rows.length < 1000) break; const l = rows[rows.length - 1]; after = [l.created_at.toISOString(), l.id];
    }
  });
  console.log('sql', n, Math.round(n / ((Date.now() - t) / 1000)), 'rows/s');
}
await db.close(); await admin.query('DROP SCHEMA expmeasure CASCADE'); await admin.end();
