// The event log keeps EVENT_RETENTION_DAYS of events (90 by default), and the audit log as long:
// older ones are deleted by
// this job, at start and every hour after, a few thousand rows a statement so no transaction
// holds the log for long. Several instances may run it at once: each statement takes rows the
// others have not locked (SKIP LOCKED). Deliveries of a deleted event keep their log entries
// (event_id turns null); record_sequences keep counting, so sequence numbers never repeat.
import type { SqlClient } from '../db/sql.ts';
import type { JobLogger } from './task-scheduler.ts';

const CHUNK = 5_000;
const EVERY_MS = 60 * 60_000;

export interface RetentionDeps {
  sql: SqlClient;
  logger: Pick<JobLogger, 'info' | 'error'>;
  /** Days of events kept; 0 keeps every event. */
  retentionDays: number;
  /** Called with the number of events each pass deleted (the metric). */
  onPruned?: (count: number) => void;
}

/** Deletes every row of `table` whose `at` column is older than `cutoff`; returns how many. */
async function pruneOlder(sql: SqlClient, table: 'events' | 'audit_entries', at: string, cutoff: Date) {
  let total = 0;
  for (;;) {
    // The oldest rows have the lowest seq: the seq index finds them without reading the rest.
    const [{ n }] = await sql.query<{ n: number }>(
      `WITH gone AS (
        DELETE FROM ${table} WHERE id IN (
          SELECT id FROM ${table} WHERE ${at} < $1 ORDER BY seq LIMIT ${CHUNK} FOR UPDATE SKIP LOCKED)
        RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
      [cutoff],
    );
    total += n;
    if (n < CHUNK) return total;
  }
}

/** Deletes every event older than `cutoff`; returns how many. */
export const pruneEvents = (sql: SqlClient, cutoff: Date) => pruneOlder(sql, 'events', 'created_at', cutoff);

/** The audit log keeps as long as the event log. */
export const pruneAuditLog = (sql: SqlClient, cutoff: Date) => pruneOlder(sql, 'audit_entries', 'occurred_at', cutoff);

/** Import jobs over before `cutoff` go too, with their failed rows: they are the history of the log's imports. */
export async function pruneImports(sql: SqlClient, cutoff: Date): Promise<number> {
  const [{ n }] = await sql.query<{ n: number }>(
    `WITH gone AS (DELETE FROM imports WHERE finished_at < $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
    [cutoff],
  );
  return n;
}

export interface EventRetention {
  /** Runs a pass now (tests); resolves to the number deleted. */
  runOnce(now?: Date): Promise<number>;
  stop(): Promise<void>;
}

export function startEventRetention(deps: RetentionDeps): EventRetention {
  let last: Promise<number> = Promise.resolve(0);
  const runOnce = (now = new Date()) => {
    if (deps.retentionDays <= 0) return Promise.resolve(0);
    const cutoff = new Date(now.getTime() - deps.retentionDays * 86_400_000);
    const next = last
      .catch(() => 0)
      .then(async () => {
        const events = await pruneEvents(deps.sql, cutoff);
        deps.onPruned?.(events);
        const audit = await pruneAuditLog(deps.sql, cutoff);
        const imports = await pruneImports(deps.sql, cutoff);
        if (events + audit + imports > 0)
          deps.logger.info(
            { deleted: events, audit_deleted: audit, imports_deleted: imports, before: cutoff.toISOString() },
            'event log pruned',
          );
        return events;
      });
    last = next.then(
      (n) => n,
      (err: unknown) => {
        deps.logger.error({ err }, 'event log pruning failed');
        return 0;
      },
    );
    return next;
  };
  if (deps.retentionDays <= 0) deps.logger.info({}, 'event log kept whole (EVENT_RETENTION_DAYS=0)');
  void runOnce();
  const timer = setInterval(() => void runOnce(), EVERY_MS).unref();
  return {
    runOnce,
    async stop() {
      clearInterval(timer);
      await last.catch(() => 0);
    },
  };
}
