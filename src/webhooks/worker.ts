// The delivery worker: fans out new events, claims due deliveries, sends them, records the
// outcome. At-least-once: a claim is a lease (locked_until); a worker that dies mid-attempt
// only means the lease runs out and the delivery is attempted again, with the same event id.
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import type { WebhookSubscription } from '../db/generated/client/client.ts';
import { attemptDelivery, type DeliveryServices } from './deliver.ts';
import { dispatchEvents } from './dispatcher.ts';
import { DEFAULT_RETRY_POLICY, nextStep, shouldDisable, type RetryPolicy } from './retry.rules.ts';
import type { SendResult } from './sender.ts';

/** Extra lease beyond the receiver timeout, for recording the outcome. */
const LEASE_MARGIN_SECONDS = 10;

interface Claimed {
  id: string;
  subscription_id: string;
  event_id: string;
  attempts: number;
}

export interface WorkerOptions extends DeliveryServices {
  prisma: Db;
  logger: Logger;
  pollMs: number;
  batchSize?: number;
}

export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private readonly inFlight = new Set<Promise<unknown>>();

  constructor(private readonly opts: WorkerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops claiming, waits for attempts in flight (bounded), and gives unsent claims back. */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.race([Promise.allSettled([...this.inFlight]), new Promise((r) => setTimeout(r, graceMs))]);
  }

  /** One pass: dispatch new events, then send every due delivery of one batch. Returns attempts made. */
  async runOnce(): Promise<number> {
    await dispatchEvents(this.opts.prisma);
    const claimed = await this.claim();
    if (claimed.length === 0) return 0;
    const [subs, events] = await Promise.all([
      this.opts.prisma.webhookSubscription.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.subscription_id))] } } }),
      this.opts.prisma.event.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.event_id))] } } }),
    ]);
    const subById = new Map(subs.map((s) => [s.id, s]));
    const eventById = new Map(events.map((e) => [e.id, e]));
    await Promise.all(
      claimed.map((c) => {
        const sub = subById.get(c.subscription_id);
        const event = eventById.get(c.event_id);
        if (!sub || !event) return this.opts.prisma.webhookDelivery.update({ where: { id: c.id }, data: { status: 'failed', error: 'event or subscription no longer exists', lockedUntil: null } });
        const work = this.attempt(c, sub, { id: event.id, type: event.type, workspaceId: event.workspaceId, createdAt: event.createdAt, data: event.data as Record<string, unknown> });
        this.inFlight.add(work);
        return work.finally(() => this.inFlight.delete(work));
      }),
    );
    return claimed.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let sent = 0;
      try {
        sent = await this.runOnce();
      } catch (err) {
        this.opts.logger.error({ err }, 'delivery worker pass failed');
      }
      if (sent === 0 && this.running) await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, this.opts.pollMs);
      });
    }
  }

  private claim(): Promise<Claimed[]> {
    const limit = this.opts.batchSize ?? 100;
    // The lease covers the longest allowed receiver timeout of the claimed rows' subscriptions.
    return this.opts.prisma.$queryRaw<Claimed[]>`
      WITH due AS (
        SELECT d.id FROM webhook_deliveries d
        JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND s.active AND d.next_attempt_at <= now()
          AND (d.locked_until IS NULL OR d.locked_until < now())
        ORDER BY d.next_attempt_at
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      )
      UPDATE webhook_deliveries w
      SET locked_until = now() + make_interval(secs => s.timeout_seconds + ${LEASE_MARGIN_SECONDS}),
          attempts = w.attempts + 1, last_attempt_at = now(), updated_at = now()
      FROM due, webhook_subscriptions s
      WHERE w.id = due.id AND s.id = w.subscription_id
      RETURNING w.id, w.subscription_id, w.event_id, w.attempts`;
  }

  private async attempt(claim: Claimed, sub: WebhookSubscription, event: Parameters<typeof attemptDelivery>[2]): Promise<void> {
    const { requestBody, result } = await attemptDelivery(this.opts, sub, event);
    await this.record(claim, sub, requestBody, result);
  }

  private async record(claim: Claimed, sub: WebhookSubscription, requestBody: string, result: SendResult): Promise<void> {
    const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
    const step = nextStep(policy, claim.attempts, { ok: result.ok, statusCode: result.statusCode, retryAfter: result.retryAfter });
    const now = new Date();
    await this.opts.prisma.$transaction(async (tx) => {
      await tx.webhookDelivery.update({
        where: { id: claim.id },
        data: {
          status: step.status,
          lockedUntil: null,
          requestBody,
          responseCode: result.statusCode,
          responseTimeMs: result.responseTimeMs,
          responseBody: result.responseBody,
          error: result.error,
          deliveredAt: step.status === 'delivered' ? now : undefined,
          nextAttemptAt: step.status === 'pending' ? new Date(now.getTime() + step.retryInSeconds * 1000) : null,
        },
      });
      if (result.ok) {
        if (sub.consecutiveFailures > 0) await tx.webhookSubscription.update({ where: { id: sub.id }, data: { consecutiveFailures: 0 } });
        return;
      }
      const updated = await tx.webhookSubscription.update({ where: { id: sub.id }, data: { consecutiveFailures: { increment: 1 } } });
      if (updated.active && shouldDisable(updated.consecutiveFailures, updated.autoDisableAfter)) {
        await tx.webhookSubscription.update({ where: { id: sub.id }, data: { active: false, disabledAt: now } });
        // Owner notification: no mail transport is configured in this service, so the log carries it.
        this.opts.logger.warn(
          { workspaceId: sub.workspaceId, subscriptionId: sub.id, url: sub.url, consecutiveFailures: updated.consecutiveFailures },
          'webhook subscription disabled after repeated delivery failures; reactivate it with PUT /v1/webhooks/:id {"active": true}',
        );
      }
    });
  }
}
