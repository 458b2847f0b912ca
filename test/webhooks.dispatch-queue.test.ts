// Events wait for the webhook fan-out in event_dispatch_queue: every statement that writes events
// queues them (a trigger), and the dispatcher deletes what it fanned out without rewriting the
// event row, whose indexes would otherwise all be written a second time per event.
import { describe, expect } from 'vitest';
import { CLAIM_SQL, dispatchEvents } from '../src/webhooks/dispatcher.ts';
import { it, withAppOptions } from './helpers/fixtures.ts';

// A schema of its own on PostgreSQL: no other file's dispatcher takes this file's events first.
const alone = withAppOptions({ isolated: true });

const queued = async (app: { db: { sql: { query: <R>(t: string, p?: unknown[]) => Promise<R[]> } } }, seqs: string[]) =>
  (
    await app.db.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM event_dispatch_queue WHERE seq = ANY($1::bigint[])',
      [seqs],
    )
  )[0].n;

describe('the dispatch queue', () => {
  it('holds each new event until it is fanned out, and fanning out leaves the event row as it was', async ({
    app,
    ws,
  }) => {
    const tag = Date.now().toString(36);
    // Queued by the statement that writes them: visible to that transaction before it commits.
    const written = await app.db.sql.transaction(async (query) => {
      const rows = await query<{ seq: string; ctid: string }>(
        `INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, data)
        SELECT 'evt_q_' || $2 || '_' || n, $1, 'contact.created', 'contact', 'con_q_' || $2 || '_' || n, 1, '{}'::jsonb
        FROM generate_series(1, 3) AS n RETURNING seq::text AS seq, ctid::text AS ctid`,
        [ws.id, tag],
      );
      const [{ n }] = await query<{ n: number }>(
        'SELECT count(*)::int AS n FROM event_dispatch_queue WHERE seq = ANY($1::bigint[])',
        [rows.map((r) => r.seq)],
      );
      expect(n).toBe(3);
      return rows;
    });
    const seqs = written.map((r) => r.seq);
    // This process's dispatcher, or another's on a shared database, takes them.
    for (let round = 0; round < 200 && (await queued(app, seqs)) > 0; round++) await dispatchEvents(app.db.prisma);
    expect(await queued(app, seqs)).toBe(0);
    const after = await app.db.sql.query<{ seq: string; ctid: string }>(
      'SELECT seq::text AS seq, ctid::text AS ctid FROM events WHERE seq = ANY($1::bigint[]) ORDER BY seq',
      [seqs],
    );
    expect(after).toEqual([...written].sort((a, b) => Number(BigInt(a.seq) - BigInt(b.seq))));
  });

  it('drops the entry of an event retention removed before it was fanned out', async ({ app }) => {
    const seq = String(9_000_000_000_000 + Math.floor(Math.random() * 1_000_000));
    await app.db.sql.query('INSERT INTO event_dispatch_queue (seq) VALUES ($1::bigint)', [seq]);
    for (let round = 0; round < 200 && (await queued(app, [seq])) > 0; round++) await dispatchEvents(app.db.prisma);
    expect(await queued(app, [seq])).toBe(0);
  });
});

describe('an event claimed for fan-out', () => {
  alone.runIf(process.env.DATABASE_URL)(
    'cannot be deleted until the fan-out commits, so its deliveries never point at nothing (PostgreSQL)',
    async ({ app, ws }) => {
      const id = `evt_claimed_${Date.now().toString(36)}`;
      await app.db.sql.query(
        `INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, data)
        VALUES ($1, $2, 'contact.created', 'contact', $1, 1, '{}'::jsonb)`,
        [id, ws.id],
      );
      let deleteError: unknown = null;
      await app.db.sql.transaction(async (query) => {
        const claimed = await query<{ id: string | null }>(CLAIM_SQL, [1000]);
        expect(claimed.map((c) => c.id)).toContain(id);
        // Retention (or a workspace's deletion) on another connection, meanwhile: it has to wait.
        await app.db.sql
          .transaction(async (other) => {
            await other("SET LOCAL lock_timeout = '300ms'");
            await other('DELETE FROM events WHERE id = $1', [id]);
          })
          .catch((err: unknown) => (deleteError = err));
      });
      expect(String((deleteError as Error | null)?.message)).toMatch(/lock timeout/);
      // Once the claim is over, the delete goes through.
      await app.db.sql.query('DELETE FROM events WHERE id = $1', [id]);
      for (let round = 0; round < 20; round++) await dispatchEvents(app.db.prisma);
      expect((await app.db.sql.query('SELECT 1 FROM event_dispatch_queue')).length).toBe(0);
    },
  );
});
