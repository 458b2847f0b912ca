// The delivery worker, a schedule: fans out new events, claims due deliveries, sends them,
// records the outcome. At-least-once: a claim is a lease (locked_until); a worker that dies
// mid-attempt only means the lease runs out and the delivery is attempted again, with the same
// event id. Sends run concurrently up to a limit, so one slow receiver holds one slot, not the
// worker. Database work is batched: one statement claims many deliveries and reads what sending
// them needs, one statement records many outcomes, and fan-out runs in a loop of its own. The
// statements themselves are the queue's (queue.ts).
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import type { DeliveryOutcome, Metrics } from '../metrics.ts';
import { attemptDelivery, deliveryBody, UnreadableSecretError } from './deliver.ts';
import type { DeliveryServices, EncodedBody } from './deliver.ts';
import { dispatchEvents } from './dispatcher.ts';
import type { EventForDelivery } from './payload.ts';
import {
  claimDue,
  deferClaim,
  failUnrecordable,
  LEASE_MARGIN_SECONDS,
  recordOutcomes,
  releaseClaims,
  type Claimed,
  type ClaimedDelivery,
  type ClaimedSubscription,
  type Outcome,
} from './queue.ts';
import { DEFAULT_RETRY_POLICY, type NextStep, type RetryPolicy } from './retry.rules.ts';
import type { SendResult } from './sender.ts';
import { createOwnerNotifier, type OwnerNotifier } from './notify.ts';
import type { OutboundLimits } from './outbound-limits.ts';
import { EVENTS_CHANNEL, type Listen } from '../db/notifications.ts';

/** Outcomes wait at most this long to be written together. */
const FLUSH_MS = 20;

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
  /** Outbound caps per workspace and destination host; deliveries beyond them wait. */
  limits?: OutboundLimits;
  /** The database's LISTEN: new events then wake the fan-out at once instead of at the next poll. */
  listen?: Listen;
}

const OUTCOME: Record<NextStep['status'], DeliveryOutcome> = {
  delivered: 'delivered',
  pending: 'retrying',
  failed: 'failed',
};

const notSent = (error: string): SendResult => ({
  ok: false,
  statusCode: null,
  responseTimeMs: 0,
  responseBody: null,
  retryAfter: null,
  error,
});

export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private wakeFanOut: (() => void) | null = null;
  /**
   * Set by a nudge, cleared when a fan-out pass starts: a nudge that comes while a pass runs (its
   * events may have committed after the pass read the queue) makes the next pass start at once
   * instead of being lost until the poll interval.
   */
  private fanOutDue = false;
  private unlisten: Promise<() => Promise<void>> | undefined;
  /**
   * False after a claim came back short: nothing more could be taken then (nothing due, or
   * every subscription with due deliveries at its share). Claiming again at once would cost a
   * query per finished attempt, so the next claim waits for a batch of finished attempts, new
   * deliveries or the poll interval.
   */
  private claimable = true;
  private finishedSinceClaim = 0;
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
    this.notifyDisabled =
      opts.notifyDisabled ?? createOwnerNotifier({ prisma: opts.prisma, logger: opts.logger, smtpUrl: null, from: '' });
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
    this.unlisten = this.opts
      .listen?.(EVENTS_CHANNEL, () => this.nudge(), this.opts.logger)
      .catch((err) => {
        this.opts.logger.warn({ err }, 'not listening for new events: fanning them out on every poll');
        return async () => {};
      });
  }

  /** New events were written: fan them out now. */
  nudge(): void {
    this.fanOutDue = true;
    this.wakeFanOut?.();
  }

  /**
   * Stops claiming, waits (bounded) for attempts in flight and records them; deliveries still
   * unsent after the wait are released so another worker can take them at once.
   */
  async stop(graceMs = 10_000): Promise<void> {
    this.running = false;
    await (await this.unlisten)?.();
    this.wake?.();
    this.wakeFanOut?.();
    await this.loop;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.inFlight.keys()]),
      new Promise((r) => (timer = setTimeout(r, graceMs))),
    ]);
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
    const fanOut = this.fanOutLoop();
    while (this.running) {
      let launched = 0;
      let tried = false;
      try {
        // Claim in batches: refilling one slot at a time would cost a query per delivery.
        const batch = Math.max(1, Math.floor(this.concurrency / 4));
        const free = this.concurrency - this.inFlight.size;
        if (free >= batch && (this.claimable || this.finishedSinceClaim >= batch)) {
          this.finishedSinceClaim = 0;
          // Fan-out during the claim sets it again: what it added may not have been seen.
          this.claimable = false;
          tried = true;
          launched = await this.claimAndLaunch(free);
          if (launched === free) this.claimable = true;
        }
      } catch (err) {
        this.opts.logger.error({ err }, 'delivery worker pass failed');
      }
      // Woken early by a finished attempt or by new deliveries. A fan-out that finished during the
      // claim set `claimable` again (its wake-up came before this pause): claim again at once.
      const again = tried && this.claimable;
      if (launched === 0 && this.running && !again && !(await this.pause((wake) => (this.wake = wake))))
        this.claimable = true;
    }
    await fanOut;
  }

  /**
   * Fans new events out beside the sending, so a busy outbox never holds up claims: again at
   * once while events keep coming, else after the poll interval.
   */
  private async fanOutLoop(): Promise<void> {
    while (this.running) {
      let dispatched = 0;
      this.fanOutDue = false;
      try {
        dispatched = await dispatchEvents(this.opts.prisma);
      } catch (err) {
        this.opts.logger.error({ err }, 'fanning out webhook events failed');
      }
      if (dispatched > 0) {
        this.claimable = true;
        this.wake?.();
      } else if (this.running && !this.fanOutDue) await this.pause((wake) => (this.wakeFanOut = wake));
    }
  }

  /** Waits for the poll interval, or less if the function handed over is called; true when woken. */
  private pause(register: (wake: () => void) => void): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), this.opts.pollMs);
      register(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }

  private async claimAndLaunch(limit: number): Promise<number> {
    const claimed = await this.claim(limit);
    // Subscriptions in the `event` format get the same body for one event: encode it once.
    const bodies = new Map<string, EncodedBody>();
    for (const { claim, sub, event } of claimed) {
      let body: EncodedBody | Error | undefined;
      if (event) {
        const key = sub.payloadFormat === 'record' ? null : `${event.id}\n${sub.contentType}`;
        try {
          body = (key && bodies.get(key)) || deliveryBody(sub, event);
          if (key) bodies.set(key, body);
        } catch (err) {
          // One event that cannot be encoded fails its own delivery, not the whole claimed batch.
          body = err as Error;
        }
      }
      // attempt() turns every failure into an outcome; the catch only guards the process, as a
      // rejection nobody awaits here would end it.
      const work = this.attempt(claim, sub, event, body).catch((err: unknown) =>
        this.opts.logger.error({ err, deliveryId: claim.id }, 'webhook delivery attempt failed'),
      );
      this.inFlight.set(work, claim);
      void work.finally(() => {
        this.inFlight.delete(work);
        this.finishedSinceClaim++;
        this.wake?.();
      });
    }
    return claimed.length;
  }

  private claim(limit: number): Promise<ClaimedDelivery[]> {
    // One subscription holds at most half the slots, so a receiver that hangs (or a backlog of
    // one workspace) leaves the other half to everyone else: subscriptions at their share are
    // left out, the others get at most what remains of theirs.
    const share = Math.max(1, Math.floor(this.concurrency / 2));
    const busy: Record<string, number> = {};
    for (const c of this.inFlight.values()) busy[c.subscription_id] = (busy[c.subscription_id] ?? 0) + 1;
    return claimDue(this.opts.prisma, limit, share, busy);
  }

  /** Gives unsent claims back at shutdown, so the next worker sends them at once. */
  private async release(claims: Claimed[]): Promise<void> {
    try {
      await releaseClaims(this.opts.prisma, claims);
      this.opts.logger.info({ deliveries: claims.length }, 'released webhook deliveries still in flight at shutdown');
    } catch (err) {
      // Their leases still run out, so another worker takes them then.
      this.opts.logger.error({ err }, 'releasing webhook deliveries failed');
    }
  }

  /** Never rejects: whatever goes wrong becomes this delivery's recorded outcome. */
  private async attempt(
    claim: Claimed,
    sub: ClaimedSubscription,
    event: EventForDelivery | null,
    body: EncodedBody | Error | undefined,
  ): Promise<void> {
    let outcome: Outcome;
    const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
    if (!event || !body) {
      // Deleted between fan-out and send: nothing can be sent, so the delivery ends as failed.
      outcome = {
        claim,
        sub: { ...sub, retryPolicy: { max_retries: 0, intervals_seconds: [] } },
        requestBody: null,
        result: notSent('event or subscription no longer exists'),
        attempted: false,
      };
    } else if (claim.lease_expired && claim.attempts > 1 + policy.max_retries) {
      // Every attempt this delivery was allowed has been claimed and none left an outcome (a
      // worker died each time, or its outcome could not be written): sending again could wedge
      // the same way forever, so the delivery ends here, as failed.
      const claimSeconds = sub.timeoutSeconds + LEASE_MARGIN_SECONDS;
      const error =
        `no outcome was recorded for the last attempt (the claim ran out after ${claimSeconds} s); ` +
        'no attempts left';
      outcome = { claim, sub, requestBody: null, result: notSent(error), attempted: true };
    } else if (body instanceof Error) {
      this.opts.logger.error(
        { err: body, deliveryId: claim.id, subscriptionId: sub.id },
        'webhook delivery body could not be built',
      );
      outcome = {
        claim,
        sub,
        requestBody: null,
        result: notSent('the delivery body could not be built'),
        attempted: true,
      };
    } else {
      try {
        const room = await this.opts.limits?.take('deliver', sub.workspaceId, sub.url);
        // Over a cap: the delivery waits until the cap has room, neither failed nor lost.
        if (room && !room.allowed) return await deferClaim(this.opts.prisma, claim, room.retryAfterSeconds);
        const { requestBody, result } = await attemptDelivery(this.opts, sub, event, body);
        outcome = { claim, sub, requestBody, result, attempted: true };
      } catch (err) {
        const unreadable = err instanceof UnreadableSecretError;
        this.opts.logger.error(
          { err, deliveryId: claim.id, subscriptionId: sub.id },
          unreadable ? err.message : 'webhook delivery attempt failed unexpectedly',
        );
        outcome = {
          claim,
          sub,
          requestBody: null,
          result: notSent(unreadable ? err.message : 'the attempt failed unexpectedly'),
          attempted: true,
        };
      }
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
    this.flushing = this.flushing
      .then(() => this.record(batch))
      .catch((err) => this.opts.logger.error({ err }, 'recording delivery outcomes failed'));
    return this.flushing;
  }

  /**
   * Records a batch in one write. Should that fail, each outcome is written alone, so one that
   * cannot be saved neither holds back nor repeats the others; one that still fails is
   * recorded as failed with the reason, never left pending to be sent again.
   */
  private async record(batch: Outcome[]): Promise<void> {
    try {
      await this.write(batch);
      return;
    } catch (err) {
      if (batch.length === 1) return this.recordUnsaveable(batch[0], err);
      this.opts.logger.warn(
        { err, outcomes: batch.length },
        'recording delivery outcomes together failed; recording them one by one',
      );
    }
    for (const outcome of batch) {
      try {
        await this.write([outcome]);
      } catch (err) {
        await this.recordUnsaveable(outcome, err);
      }
    }
  }

  private async recordUnsaveable(outcome: Outcome, cause: unknown): Promise<void> {
    const { claim } = outcome;
    this.opts.logger.error(
      { err: cause, deliveryId: claim.id, subscriptionId: claim.subscription_id },
      'a webhook delivery outcome could not be recorded; the delivery is marked failed',
    );
    try {
      await failUnrecordable(this.opts.prisma, outcome);
      this.opts.metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    } catch (err) {
      // The database is unreachable: the lease runs out and the attempt count bounds what follows.
      this.opts.logger.error({ err, deliveryId: claim.id }, 'marking a webhook delivery failed did not work either');
    }
  }

  private async write(batch: Outcome[]): Promise<void> {
    const { statuses, disabled } = await recordOutcomes(this.opts.prisma, batch);
    for (const status of statuses) this.opts.metrics?.webhookDeliveries.inc({ outcome: OUTCOME[status] });
    // Notified after commit, so nobody hears of a change that was rolled back.
    for (const sub of disabled) {
      await this.notifyDisabled(sub).catch((err) =>
        this.opts.logger.error({ err, subscriptionId: sub.id }, 'could not notify the owners of a disabled webhook'),
      );
    }
  }
}
