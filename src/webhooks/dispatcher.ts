// Fans events out of the outbox: one delivery row per event x matching active subscription.
// Events waiting to be fanned out are rows of event_dispatch_queue (a trigger adds each new event);
// they are claimed with FOR UPDATE SKIP LOCKED, so several instances never fan out one event twice,
// and deleted in the transaction that writes the deliveries. The event row itself is only read.
// Plain SQL throughout: this runs for every event, and Prisma's query building for a
// 500-row createMany cost more CPU than sending the deliveries. Rows are named by arrays
// (= ANY), which the planner looks up by index even without statistics (embedded database).
import type { Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { matchesFilters } from './filters.ts';
import { subjectOf } from '../events/catalogue/index.ts';

const BATCH = 500;

interface OutboxEvent {
  id: string;
  workspace_id: string;
  type: string;
}

/** A claimed queue entry, and its event (null when retention has removed it meanwhile). */
interface Claimed {
  seq: string;
  id: string | null;
  workspace_id: string | null;
  type: string | null;
}

interface Subscriber {
  id: string;
  workspace_id: string;
  events: string[];
  filters: unknown;
}

/**
 * Claims the next `limit` queued events: the queue rows for this transaction alone (SKIP LOCKED),
 * the events with KEY SHARE, so that one deleted meanwhile (retention, a workspace's deletion)
 * waits for the fan-out to commit rather than leaving its deliveries pointing at nothing (a
 * foreign-key refusal that failed the whole run). An event already gone comes back as nulls.
 */
export const CLAIM_SQL = `
  WITH taken AS (
    SELECT seq FROM event_dispatch_queue ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED),
  found AS (
    SELECT e.seq, e.id, e.workspace_id, e.type FROM events e WHERE e.seq IN (SELECT seq FROM taken) FOR KEY SHARE)
  SELECT t.seq::text AS seq, f.id, f.workspace_id, f.type
  FROM taken t LEFT JOIN found f ON f.seq = t.seq ORDER BY t.seq`;

/** Returns how many events were dispatched. */
export async function dispatchEvents(prisma: Db): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const claimed = await tx.$queryRawUnsafe<Claimed[]>(CLAIM_SQL, BATCH);
    if (claimed.length === 0) return 0;
    const events = claimed.filter((c): c is Claimed & OutboxEvent => c.id !== null);
    const workspaceIds = [...new Set(events.map((e) => e.workspace_id))];
    // KEY SHARE: a subscription deleted meanwhile waits for this fan-out to commit, rather than
    // leaving its deliveries pointing at nothing (a foreign-key refusal that failed the whole run).
    const subs = await tx.$queryRaw<Subscriber[]>`
      SELECT id, workspace_id, events, filters FROM webhook_subscriptions
      WHERE active AND workspace_id = ANY(${workspaceIds}::text[]) FOR KEY SHARE`;
    const candidates = (e: OutboxEvent) =>
      subs.filter((s) => s.workspace_id === e.workspace_id && s.events.includes(e.type));
    // Event bodies are read only for the events a filtered subscription has to look into.
    const filtered = events.filter((e) => candidates(e).some((s) => s.filters));
    const data = new Map<string, Record<string, unknown>>();
    if (filtered.length) {
      const rows = await tx.$queryRaw<{ id: string; data: Record<string, unknown> }[]>`
        SELECT id, data FROM events WHERE id = ANY(${filtered.map((e) => e.id)}::text[])`;
      for (const r of rows) data.set(r.id, r.data);
    }
    const now = new Date();
    const deliveries = events.flatMap((e) =>
      candidates(e)
        .filter((s) => !s.filters || matchesFilters(s.filters, subjectOf(e.type, data.get(e.id) ?? {})))
        .map((s) => ({
          id: newId('dlv'),
          workspace_id: e.workspace_id,
          subscription_id: s.id,
          event_id: e.id,
          event: e.type,
        })),
    );
    await tx.$executeRaw`
      WITH fanned AS (
        INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, event_id, event, next_attempt_at, updated_at)
        SELECT v.id, v.workspace_id, v.subscription_id, v.event_id, v.event, ${now}, ${now}
        FROM jsonb_to_recordset(${JSON.stringify(deliveries)}::jsonb)
          AS v(id text, workspace_id text, subscription_id text, event_id text, event text)
      )
      DELETE FROM event_dispatch_queue WHERE seq = ANY(${claimed.map((c) => c.seq)}::bigint[])`;
    return claimed.length;
  });
}
