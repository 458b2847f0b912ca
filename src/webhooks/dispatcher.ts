// Fans events out of the outbox: one delivery row per event x matching active subscription.
// Rows are claimed with FOR UPDATE SKIP LOCKED, so several instances never fan out one event twice.
import type { Db } from '../db/client.ts';
import { newId } from '../ids.ts';
import { matchesFilters } from './filters.ts';
import { recordOf } from './payload.ts';

const BATCH = 500;

/** Returns how many events were dispatched. */
export async function dispatchEvents(prisma: Db): Promise<number> {
  return prisma.$transaction(async (tx) => {
    const events = await tx.$queryRaw<{ id: string; workspace_id: string; type: string; data: Record<string, unknown>; created_at: Date }[]>`
      SELECT id, workspace_id, type, data, created_at FROM events
      WHERE dispatched_at IS NULL ORDER BY seq LIMIT ${BATCH} FOR UPDATE SKIP LOCKED`;
    if (events.length === 0) return 0;
    const workspaceIds = [...new Set(events.map((e) => e.workspace_id))];
    const subs = await tx.webhookSubscription.findMany({
      where: { workspaceId: { in: workspaceIds }, active: true },
      select: { id: true, workspaceId: true, events: true, filters: true },
    });
    const now = new Date();
    const rows = events.flatMap((e) =>
      subs
        .filter((s) => s.workspaceId === e.workspace_id && s.events.includes(e.type))
        .filter((s) => matchesFilters(s.filters, recordOf({ id: e.id, type: e.type, workspaceId: e.workspace_id, createdAt: e.created_at, data: e.data })))
        .map((s) => ({ id: newId('dlv'), workspaceId: e.workspace_id, subscriptionId: s.id, eventId: e.id, event: e.type, nextAttemptAt: now })),
    );
    if (rows.length) await tx.webhookDelivery.createMany({ data: rows });
    await tx.event.updateMany({ where: { id: { in: events.map((e) => e.id) } }, data: { dispatchedAt: now } });
    return events.length;
  });
}
