// The delivery queue as operators see it, read at metrics scrape time.
import type { Db } from '../db/client.ts';
import type { DeliveryQueueSample } from '../metrics.ts';

/**
 * One aggregate over pending rows (few, next to delivered and failed ones; the status index
 * finds them). Deliveries of inactive subscriptions are left out: no worker claims them, so
 * they would hold the age up until the subscription is resumed.
 */
export async function deliveryQueueSample(prisma: Db): Promise<DeliveryQueueSample> {
  const [row] = await prisma.$queryRaw<{ depth: number; oldest: number }[]>`
    SELECT count(*)::int AS depth, COALESCE(EXTRACT(EPOCH FROM now() - min(d.created_at)), 0)::float8 AS oldest
    FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
    WHERE d.status = 'pending' AND s.active`;
  return { depth: row.depth, oldestAgeSeconds: row.oldest };
}
