// The delivery worker: fans out new events, claims due deliveries, sends them, records the
// outcome. At-least-once: a claim is a lease (locked_until); a worker that dies mid-attempt
// only means the lease runs out and the delivery is attempted again, with the same event id.
// Sends run concurrently up to a limit, so one slow receiver holds one slot, not the worker;
// outcomes are written in batches, one statement for many deliveries.
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import type { WebhookSubscription } from '../db/generated/client/client.ts';
import type { DeliveryOutcome, Metrics } from '../metrics.ts';
import { attemptDelivery, type DeliveryServices } from './deliver.ts';
import { dispatchEvents } from './dispatcher.ts';
import type { EventForDelivery } from './payload.ts';
import { DEFAULT_RETRY_POLICY, nextStep, shouldDisable, type NextStep, type RetryPolicy } from './retry.rules.ts';
import type { SendResult } from './sender.ts';
import { createOwnerNotifier, type DisabledSubscription, type OwnerNotifier } from './notify.ts';

/** Extra lease beyond the receiver timeout, for recording the outcome. */
const LEASE_MARGIN_SECONDS = 10;
/** Outcomes wait at most this long to be written together. */
const FLUSH_MS = 20;

interface Claimed {
  id: string;
  subscription_id: string;
  event_id: string;
  attempts: number;
  /** last_attempt_at before this claim, put back if the claim is released unsent. */
  previous_attempt_at: Date | null;
}

interface Outcome {
  claim: Claimed;
  sub: WebhookSubscription;
  requestBody: string | null;
  result: SendResult;
}

export interface WorkerOptions extends DeliveryServices {
  prisma: Db;
  logger: Logger;
  pollMs: number;
  /** Called after a subscription was turned off; defaults to a log line. */
  notifyDisabled?: OwnerNotifier;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** Counts recorded outcomes, when the process exposes metrics. */
  metrics?: Metrics;
}

const OUTCOME: Record<NextStep['status'], DeliveryOutcome> = { delivered: 'delivered', pending: 'retrying', failed: 'failed' };

export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Attempts under way, with the claim each one holds. */
  private readonly inFlight = new Map<Promise<void>, Claimed>();
  /** Claims given back by stop() while their attempt still ran: its outcome must not be recorded. */
  private readonly released = new Set<string>();
  private buffer: Outcome[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly concurrency: number;
  private readonly notifyDisabled: OwnerNotifier;

  constructor(private readonly opts: WorkerOptions) {
    this.concurrency = opts.concurrency ?? 64;
    this.notifyDisabled = opts.notifyDisabled ?? createOwnerNotifier({ prisma: opts.prisma, logger: opts.logger, smtpUrl: null, from: '' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops claiming, waits (bounded) for attempts in flight and records them; deliveries still
   * unsent after the wait are released so another worker can take them at once.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.keys()]), new Promise((r) => (timer = setTimeout(r, graceMs)))]);
    clearTimeout(timer);
    // Attempts that finished are in the buffer; the ones left hold claims nobody will record.
    const unsent = [...this.inFlight.values()];
    for (const claim of unsent) this.released.add(claim.id);
    await this.flush();
    if (unsent.length) await this.release(unsent);
  }

  /** One pass for tests and tools: dispatch, claim one batch, send it, record it. Returns attempts made. */
  async runOnce(batch = this.concurrency): Promise<number> {
    await dispatchEvents(this.opts.prisma);
    const launched = await this.claimAndLaunch(batch);
    await Promise.allSettled([...this.inFlight.keys()]);
    await this.flush();
    return launched;
  }

  private async run(): Promise<void> {
    let lastDispatch = 0;
    while (this.running) {
      let launched = 0;
      try {
        // New events are fanned out at most once per poll interval, or at once while the outbox is busy.
        if (Date.now() - lastDispatch >= this.opts.pollMs) {
          lastDispatch = (await dispatchEvents(this.opts.prisma)) > 0 ? 0 : Date.now();
        }
        // Claim in batches: refilling one slot at a time would cost a query per delivery.
        const free = this.concurrency - this.inFlight.size;
        if (free >= Math.max(1, Math.floor(this.concurrency / 4))) launched = await this.claimAndLaunch(free);
      } catch (err) {
        this.opts.logger.error({ err }, 'delivery worker pass failed');
      }
      if (launched === 0 && this.running) {
        await new Promise<void>((resolve) => {
          this.wake = resolve;
          setTimeout(resolve, this.opts.pollMs);
        });
      }
    }
  }

  private async claimAndLaunch(limit: number): Promise<number> {
    const claimed = await this.claim(limit);
    if (claimed.length === 0) return 0;
    const [subs, events] = await Promise.all([
      this.opts.prisma.webhookSubscription.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.subscription_id))] } } }),
      this.opts.prisma.event.findMany({ where: { id: { in: [...new Set(claimed.map((c) => c.event_id))] } } }),
    ]);
    const subById = new Map(subs.map((s) => [s.id, s]));
    const eventById = new Map(events.map((e) => [e.id, e]));
    for (const claim of claimed) {
      const sub = subById.get(claim.subscription_id);
      const event = eventById.get(claim.event_id);
      const work = this.attempt(claim, sub, event && { id: event.id, type: event.type, workspaceId: event.workspaceId, createdAt: event.createdAt, data: event.data as Record<string, unknown> });
      this.inFlight.set(work, claim);
      void work.finally(() => {
        this.inFlight.delete(work);
        this.wake?.();
      });
    }
    return claimed.length;
  }

  private claim(limit: number): Promise<Claimed[]> {
    // The lease covers the subscription's receiver timeout plus time to record the outcome.
    return this.opts.prisma.$queryRaw<Claimed[]>`
      WITH due AS (
        SELECT d.id, d.last_attempt_at AS previous_attempt_at FROM webhook_deliveries d
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
      RETURNING w.id, w.subscription_id, w.event_id, w.attempts, due.previous_attempt_at`;
  }

  /**
   * Gives claims back as if they had never been made: no lease, the attempt uncounted, so the
   * next worker sends them at once. A row another worker claimed since (our lease ran out)
   * has a different attempt count and is left alone.
   */
  private async release(claims: Claimed[]): Promise<void> {
    const rows = claims.map((c) => ({ id: c.id, attempts: c.attempts, previous_attempt_at: c.previous_attempt_at }));
    try {
      await this.opts.prisma.$executeRaw`
        UPDATE webhook_deliveries d
        SET locked_until = NULL, attempts = d.attempts - 1, last_attempt_at = v.previous_attempt_at, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id text, attempts int, previous_attempt_at timestamptz)
        WHERE d.id = v.id AND d.attempts = v.attempts AND d.status = 'pending'`;
      this.opts.logger.info({ deliveries: claims.length }, 'released webhook deliveries still in flight at shutdown');
    } catch (err) {
      // Their leases still run out, so another worker takes them then.
      this.opts.logger.error({ err }, 'releasing webhook deliveries failed');
    }
  }

  private async attempt(claim: Claimed, sub: WebhookSubscription | undefined, event: EventForDelivery | undefined): Promise<void> {
    let outcome: Outcome;
    if (!sub || !event) {
      // Deleted between claim and send: nothing can be sent, so the delivery ends as failed.
      const result: SendResult = { ok: false, statusCode: null, responseTimeMs: 0, responseBody: null, retryAfter: null, error: 'event or subscription no longer exists' };
      outcome = { claim, sub: sub ?? ({ id: claim.subscription_id, retryPolicy: { max_retries: 0, intervals_seconds: [] } } as unknown as WebhookSubscription), requestBody: null, result };
    } else {
      const { requestBody, result } = await attemptDelivery(this.opts, sub, event);
      outcome = { claim, sub, requestBody, result };
    }
    if (this.released.has(claim.id)) return;
    this.buffer.push(outcome);
    this.flushTimer ??= setTimeout(() => void this.flush(), FLUSH_MS);
  }

  /** Writes buffered outcomes; flushes run one after another. */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.buffer;
    this.buffer = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing.then(() => this.record(batch)).catch((err) => this.opts.logger.error({ err }, 'recording delivery outcomes failed'));
    return this.flushing;
  }

  private async record(batch: Outcome[]): Promise<void> {
    const now = Date.now();
    const rows = batch.map(({ claim, sub, requestBody, result }) => {
      const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
      const step = nextStep(policy, claim.attempts, { ok: result.ok, statusCode: result.statusCode, retryAfter: result.retryAfter });
      return {
        id: claim.id,
        status: step.status,
        request_body: requestBody,
        response_code: result.statusCode,
        response_time_ms: result.responseTimeMs,
        response_body: result.responseBody,
        error: result.error,
        delivered_at: step.status === 'delivered' ? new Date(now).toISOString() : null,
        next_attempt_at: step.status === 'pending' ? new Date(now + step.retryInSeconds * 1000).toISOString() : null,
      };
    });
    const bySub = new Map<string, { sub: WebhookSubscription; results: boolean[] }>();
    for (const o of batch) {
      if (!o.requestBody) continue;
      const entry = bySub.get(o.sub.id) ?? { sub: o.sub, results: [] };
      entry.results.push(o.result.ok);
      bySub.set(o.sub.id, entry);
    }
    const disabled: DisabledSubscription[] = [];
    await this.opts.prisma.$transaction(async (tx) => {
      await tx.$executeRaw`
        UPDATE webhook_deliveries d SET
          status = v.status, locked_until = NULL, request_body = COALESCE(v.request_body, d.request_body),
          response_code = v.response_code, response_time_ms = v.response_time_ms, response_body = v.response_body,
          error = v.error, delivered_at = COALESCE(v.delivered_at, d.delivered_at), next_attempt_at = v.next_attempt_at, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
          id text, status text, request_body text, response_code int, response_time_ms int, response_body text,
          error text, delivered_at timestamptz, next_attempt_at timestamptz)
        WHERE d.id = v.id`;
      for (const { sub, results } of bySub.values()) {
        const off = await this.countFailures(tx, sub, results, new Date(now));
        if (off) disabled.push(off);
      }
    });
    for (const row of rows) this.opts.metrics?.webhookDeliveries.inc({ outcome: OUTCOME[row.status] });
    // Notified after commit, so nobody hears of a change that was rolled back.
    for (const sub of disabled) {
      await this.notifyDisabled(sub).catch((err) => this.opts.logger.error({ err, subscriptionId: sub.id }, 'could not notify the owners of a disabled webhook'));
    }
  }

  /** Consecutive failures: reset by a success, counted on from the last one; past the threshold the subscription turns inactive. */
  private async countFailures(
    tx: Parameters<Parameters<Db['$transaction']>[0]>[0],
    sub: WebhookSubscription,
    results: boolean[],
    now: Date,
  ): Promise<DisabledSubscription | null> {
    const lastOk = results.lastIndexOf(true);
    const failuresAfter = results.length - 1 - lastOk;
    if (lastOk === -1 && failuresAfter === 0) return null;
    const updated = await tx.webhookSubscription.update({
      where: { id: sub.id },
      data: { consecutiveFailures: lastOk >= 0 ? failuresAfter : { increment: failuresAfter } },
    });
    if (!updated.active || !shouldDisable(updated.consecutiveFailures, updated.autoDisableAfter)) return null;
    await tx.webhookSubscription.update({ where: { id: sub.id }, data: { active: false, disabledAt: now } });
    return { id: sub.id, workspaceId: sub.workspaceId, url: sub.url, consecutiveFailures: updated.consecutiveFailures };
  }
}
