// Follows the committed event log (the `events` outbox) and publishes each new event to the
// live bus once. Nothing is published before commit: the feed only sees committed rows.
//
// Order: `seq` comes from a sequence, taken at insert but visible at commit, so a transaction
// that took seq 12 may commit after the one that took 13. A number skipped over is a gap:
// still in flight, or rolled back and never to appear. Gaps are asked for again on every run
// for GAP_TTL_MS, then given up; each seq leaves the gap set when seen, so nothing is
// published twice.
//
// Several instances: on a shared (Redis) bus only the lease holder publishes, and a new
// holder resumes from the cursor the previous one saved. Without Redis each instance's feed
// publishes to its own in-memory bus, which serves only its own subscribers.
import type { SqlClient } from '../db/sql.ts';
import type { EventBus, PublishedEvent } from './bus.ts';

const BATCH = 200;
const GAP_TTL_MS = 60_000;
/**
 * Bounds memory if seq ever jumps far (a huge rolled-back import). The newest gaps are kept: a
 * late commit is one just behind the cursor, so the oldest numbers are given up first.
 */
const MAX_GAPS = 10_000;
const MIN_LEASE_MS = 5_000;

export interface FeedLogger {
  error(obj: object, msg: string): void;
}

export interface EventFeedDeps {
  /** Every event passes through here, a batch's thousand at once: read on the driver itself (db/sql.ts). */
  sql: SqlClient;
  bus: EventBus;
  /** Pause between runs; 0 runs only when runOnce is called (tests). */
  intervalMs: number;
  logger?: FeedLogger;
}

export interface EventFeed {
  /** Publishes what was committed since the last run; resolves to how many events it published. */
  runOnce(): Promise<number>;
  stop(): Promise<void>;
}

/** An events row as the feed (and a resumed subscription) reads it: seq also as text, the drivers differ on bigint. */
export interface EventRow {
  id: string;
  seq_text: string;
  type: string;
  workspace_id: string;
  entity_type: string;
  entity_id: string;
  sequence: number;
  data: Record<string, unknown>;
  created_at: Date;
}

/** The columns of an EventRow. */
export const EVENT_ROW_COLUMNS = `id, seq, seq::text AS seq_text, type, workspace_id, entity_type, entity_id, sequence,
  data, created_at`;

/** Gap numbers as runs of consecutive numbers, lowest first: `[[5, 9], [50, 99]]`. */
export function gapRanges(gaps: Map<bigint, number>): [bigint, bigint][] {
  const ranges: [bigint, bigint][] = [];
  for (const seq of [...gaps.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const last = ranges.at(-1);
    if (last && seq === last[1] + 1n) last[1] = seq;
    else ranges.push([seq, seq]);
  }
  return ranges;
}

export function toPublished(e: EventRow): PublishedEvent {
  return {
    id: e.id,
    event: e.type,
    timestamp: new Date(e.created_at).toISOString(),
    workspaceId: e.workspace_id,
    entityType: e.entity_type,
    entityId: e.entity_id,
    sequence: e.sequence,
    data: e.data,
  };
}

export function startEventFeed({ sql, bus, intervalMs, logger }: EventFeedDeps): EventFeed {
  // The lease must outlive a few runs, or a slow run would hand it to another instance.
  const leaseMs = Math.max(MIN_LEASE_MS, intervalMs * 3);
  /** Highest seq published; null while not the publisher (not started, or lease lost). */
  let cursor: bigint | null = null;
  /** Skipped seq → when it was first missed. */
  const gaps = new Map<bigint, number>();

  const head = async () =>
    BigInt((await sql.query<{ head: string }>('SELECT coalesce(max(seq), 0)::text AS head FROM events'))[0].head);

  /**
   * The next events after `since`, and any that turned up in the gaps (a batch's thousand
   * numbers rolled back, or committed after a later one): each part is one index range scan,
   * however many numbers the gaps hold. The gaps are read range by range (LATERAL): joined as a
   * whole, PostgreSQL walked the entire events table on every run while any gap was open.
   */
  const readAfter = (since: bigint, ranges: [bigint, bigint][]) =>
    sql.query<EventRow>(
      `(SELECT ${EVENT_ROW_COLUMNS} FROM events WHERE seq > $1::bigint ORDER BY events.seq LIMIT ${BATCH})
      UNION ALL
      (SELECT found.* FROM unnest($2::bigint[], $3::bigint[]) AS gap(low, high)
        CROSS JOIN LATERAL (SELECT ${EVENT_ROW_COLUMNS} FROM events WHERE events.seq BETWEEN gap.low AND gap.high
          ORDER BY events.seq LIMIT ${BATCH}) AS found
        ORDER BY found.seq LIMIT ${BATCH})
      ORDER BY seq LIMIT ${BATCH}`,
      [since.toString(), ranges.map((r) => r[0].toString()), ranges.map((r) => r[1].toString())],
    );

  function noteGaps(from: bigint, to: bigint, now: number) {
    const first = to - from > BigInt(MAX_GAPS) ? to - BigInt(MAX_GAPS) : from + 1n;
    for (let s = first; s < to; s++) gaps.set(s, now);
    // Map order is insertion order, and numbers are noted rising: the first keys are the oldest.
    for (const seq of gaps.keys()) {
      if (gaps.size <= MAX_GAPS) break;
      gaps.delete(seq);
    }
  }

  async function run(): Promise<number> {
    // An unreachable Redis counts as not holding: the bus already logs the outage.
    if (!(await bus.lease.hold(leaseMs).catch(() => false))) {
      cursor = null;
      return 0;
    }
    if (cursor === null) {
      // Starting (or taking over): never replay history, but do not skip what a previous holder left.
      // A saved cursor beyond this database's log is another database's (a Redis shared under the
      // same prefix, a restored backup): following it would skip every new event, so start at the head.
      const [saved, last] = await Promise.all([bus.lease.resumeFrom(), head()]);
      cursor = saved !== null && saved <= last ? saved : last;
      gaps.clear();
    }
    let published = 0;
    for (;;) {
      const rows = await readAfter(cursor, gapRanges(gaps));
      const now = Date.now();
      for (const row of rows) {
        const seq = BigInt(row.seq_text);
        gaps.delete(seq);
        if (seq > cursor) {
          noteGaps(cursor, seq, now);
          cursor = seq;
        }
        bus.publish(toPublished(row));
        published++;
      }
      if (rows.length < BATCH) break;
    }
    const expired = Date.now() - GAP_TTL_MS;
    for (const [seq, since] of gaps) if (since < expired) gaps.delete(seq);
    await bus.lease.saveCursor(cursor);
    return published;
  }

  // Runs never overlap: two at once would read the same rows and publish them twice.
  let last: Promise<unknown> = Promise.resolve();
  const runOnce = () => {
    const next = last.then(run);
    last = next.catch(() => {});
    return next;
  };

  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  const loop = () => {
    void runOnce()
      .catch((err: unknown) => logger?.error({ err }, 'event feed run failed'))
      .finally(() => {
        if (!stopped && intervalMs > 0) timer = setTimeout(loop, intervalMs);
      });
  };
  // The first run happens now, so the starting point is the log's head at start-up.
  loop();

  return {
    runOnce,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await last;
      if (cursor !== null) await bus.lease.release().catch(() => {});
    },
  };
}
