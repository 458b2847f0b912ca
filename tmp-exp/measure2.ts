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
for (let round = 0; round < 3; round++) {
  let t = Date.now(); let n = 0;
  await db.prisma.$transaction(async (tx) => {
    let after: { createdAt: Date; id: string } | null = null;
    for (;;) {
      const ids = await tx.contact.findMany({ select: { id: true, createdAt: true }, where: { workspaceId: ws, ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
      const [{ j }] = await tx.$queryRawUnsafe<any[]>("SELECT coalesce(json_agg(t), '[]')::text AS j FROM (SELECT id, first_name, last_name, email, phone, company, company_id, job_title, status, source, tags, assigned_to, engagement_score, custom_fields, address, external_id, version, created_at, updated_at FROM contacts WHERE id = ANY($1::text[]) ORDER BY created_at, id) t", ids.map((r) => r.id)); const rows = JSON.parse(j);
      n += rows.length; if (ids.length < 1000) break; const l = ids[ids.length - 1]; after = l;
    }
  }, { isolationLevel: 'RepeatableRead', timeout: 600000 });
  console.log('prisma ids + raw', n, Math.round(n / ((Date.now() - t) / 1000)), 'rows/s');
  t = Date.now(); n = 0;
  await db.prisma.$transaction(async (tx) => {
    let after: { createdAt: Date; id: string } | null = null;
    for (;;) {
      const ids = await tx.contact.findMany({ select: { id: true, createdAt: true }, where: { workspaceId: ws, ...(after ? { OR: [{ createdAt: { gt: after.createdAt } }, { createdAt: after.createdAt, id: { gt: after.id } }] } : {}) }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], take: 1000 });
      n += ids.length; if (ids.length < 1000) break; const l = ids[ids.length - 1]; after = l;
    }
  }, { isolationLevel: 'RepeatableRead', timeout: 600000 });
  console.log('prisma ids only', n, Math.round(n / ((Date.now() - t) / 1000)), 'rows/s');
  t = Date.now(); n = 0;
  await db.sql.transaction(async (q) => {
    await q('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    await q(`DECLARE c NO SCROLL CURSOR FOR SELECT id, first_name, last_name, email, phone, company, company_id, job_title, status, source, tags, assigned_to, engagement_score, custom_fields, address, external_id, version, created_at, updated_at FROM contacts WHERE workspace_id = $1 ORDER BY created_at, id`, [ws]);
    for (;;) {
      const rows = await q<any>('FETCH 1000 FROM c');
      n += rows.length; if (rows.length < 1000) break;
    }
  });
  console.log('sql cursor', n, Math.round(n / ((Date.now() - t) / 1000)), 'rows/s');
}
await db.close(); await admin.query('DROP SCHEMA expmeasure CASCADE'); await admin.end();
