// An import survives its worker being killed: the service (API and in-process worker) is SIGKILLed
// twice while it imports, and started again each time; the job resumes after the last committed
// batch, and the counts are exact: every row once, every contact once, one contact.created each.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { client } from './helpers/app.ts';
import { freePort, freshStore, startServiceUntilUp, type Child } from './helpers/processes.ts';
import { until } from './helpers/receiver.ts';
import { openDatabase } from '../src/db/client.ts';

const ROWS = 30_000;
const KILLS = 2;

const children: Child[] = [];
const stores: { drop: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  for (const s of stores) await s.drop();
});

const common = {
  ENCRYPTION_KEY: 'import-crash-test-key',
  NODE_ENV: 'production',
  IMPORT_POLL_MS: '100',
  // A dead worker's job is taken again after this (PostgreSQL; PGlite resumes at start).
  IMPORT_LEASE_SECONDS: '2',
};

describe('an import whose worker is killed', () => {
  it('resumes after each restart and writes every row exactly once', async () => {
    const store = await freshStore();
    stores.push(store);
    const port = await freePort();
    let service = await startServiceUntilUp({ ...common, ...store.env }, port, children);
    const key = /crm_live_[0-9A-Za-z]{32}/.exec(service.output())![0];
    const base = `http://127.0.0.1:${port}`;
    const api = client(base, key);

    const tag = Date.now().toString(36);
    const lines = Array.from({ length: ROWS }, (_, i) => `Row${i},crash.${tag}.${i}@example.com`);
    const form = new FormData();
    form.append('resource', 'contacts');
    form.append('file', new Blob([`first_name,email\n${lines.join('\n')}\n`]), 'contacts.csv');
    const sent = await fetch(`${base}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(sent.status).toBe(202);
    const id = ((await sent.json()) as { data: { id: string } }).data.id;
    const job = async () => (await api('GET', `/v1/imports/${id}`)).body.data;

    let before = 0;
    for (let kill = 1; kill <= KILLS; kill++) {
      // Killed once it has committed rows since it (re)started, and before it is done.
      const read = await until(
        async () => {
          const j = await job().catch(() => null);
          return j && j.rows_read >= before + 1000 ? j : undefined;
        },
        120_000,
        10,
      );
      expect(read?.status, `kill ${kill}: ${JSON.stringify(read)}`).toBe('running');
      service.proc.kill('SIGKILL');
      await service.exited;
      service = await startServiceUntilUp({ ...common, ...store.env }, port, children);
      before = (await job()).rows_read;
      expect(before).toBeGreaterThanOrEqual(read!.rows_read);
    }

    const done = await until(
      async () => {
        const j = await job().catch(() => null);
        return j && (j.status === 'completed' || j.status === 'failed') ? j : undefined;
      },
      180_000,
      100,
    );
    expect(done, service.output()).toMatchObject({
      status: 'completed',
      rows_read: ROWS,
      rows_written: ROWS,
      rows_created: ROWS,
      rows_failed: 0,
    });
    service.proc.kill('SIGTERM');
    await service.exited;

    // Counted in the database itself: each row once, each with one event.
    const db = store.env.DATABASE_URL ? null : await openDatabase({ dataDir: store.env.DATA_DIR });
    const query = async (sql: string) => {
      if (db) return (await db.sql.query<{ n: number }>(sql))[0].n;
      const c = new pg.Client({ connectionString: store.env.DATABASE_URL });
      await c.connect();
      try {
        return (await c.query<{ n: number }>(sql)).rows[0].n;
      } finally {
        await c.end();
      }
    };
    try {
      expect(await query(`SELECT count(*)::int AS n FROM contacts WHERE email LIKE 'crash.${tag}.%'`)).toBe(ROWS);
      expect(
        await query(
          `SELECT count(*)::int AS n FROM events e JOIN contacts c ON c.id = e.entity_id
          WHERE e.type = 'contact.created' AND c.email LIKE 'crash.${tag}.%'`,
        ),
      ).toBe(ROWS);
      expect(await query(`SELECT count(*)::int AS n FROM events WHERE type = 'import.completed'`)).toBe(1);
      expect(await query(`SELECT count(*)::int AS n FROM import_chunks`)).toBe(0);
    } finally {
      await db?.close();
    }
  }, 400_000);
});
