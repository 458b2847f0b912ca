// The delivery worker: fans out new events, claims due deliveries, sends them, records the
// outcome. At-least-once: a claim is a lease (locked_until); a worker that dies mid-attempt
// only means the lease runs out and the delivery is attempted again, with the same event id.
// Sends run concurrently up to a limit, so one slow receiver holds one slot, not the worker.
// Database work is batched: one statement claims many deliveries and reads what sending them
// needs, one statement records many outcomes, and fan-out runs in a loop of its own.
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { Prisma, type WebhookSubscription } from '../db/generated/client/client.ts';
import type { DeliveryOutcome, Metrics } from '../metrics.ts';
import { attemptDelivery, deliveryBody, UnreadableSecretError, type DeliveryServices, type EncodedBody, type SubscriptionForDelivery } from './deliver.ts';
import { dispatchEvents } from './dispatcher.ts';
import type { EventForDelivery } from './payload.ts';
import { DEFAULT_RETRY_POLICY, nextStep, shouldDisable, type NextStep, type RetryPolicy } from './retry.rules.ts';
import type { SendResult } from './sender.ts';
import { createOwnerNotifier, type DisabledSubscription, type OwnerNotifier } from './notify.ts';
import { storableOrNull } from './stored-text.ts';
import { insertAttemptsFrom } from './attempt-log.ts';
import type { OutboundLimits } from './outbound-limits.ts';

/** Extra lease beyond the receiver timeout, for recording the outcome. */
const LEASE_MARGIN_SECONDS = 10;
/** Outcomes wait at most this long to be written together. */
const FLUSH_MS = 20;

interface Claimed {
  id: string;
  subscription_id: string;
  event_id: string | null;
  attempts: number;
  /** last_attempt_at before this claim, put back if the claim is released unsent. */
  previous_attempt_at: Date | null;
  /** The previous claim's lease ran out with no outcome recorded (a worker died, or its write failed). */
  lease_expired: boolean;
}

/** A claimed delivery with everything its attempt needs, read by the claim itself. */
interface ClaimedRow extends Claimed, Omit<SubscriptionForDelivery, 'id'>, Pick<WebhookSubscription, 'retryPolicy'> {
  workspace_id: string;
  event_type: string | null;
  event_workspace_id: string | null;
  event_created_at: Date | null;
  event_sequence: number | null;
  event_data: Record<string, unknown> | null;
}

/** What recording an outcome needs to know of the subscription. */
type OutcomeSubscription = Pick<WebhookSubscription, 'id' | 'workspaceId' | 'url' | 'retryPolicy'>;
type ClaimedSubscription = SubscriptionForDelivery & OutcomeSubscription;

interface Outcome {
  claim: Claimed;
  sub: OutcomeSubscription;
  requestBody: string | null;
  result: SendResult;
  /** An attempt was due and made (or lost): it counts toward the subscription's consecutive failures. */
  attempted: boolean;
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
  /** Outbound caps per workspace and destination host; deliveries beyond them wait. */
  limits?: OutboundLimits;
}

const OUTCOME: Record<NextStep['status'], DeliveryOutcome> = { delivered: 'delivered', pending: 'retrying', failed: 'failed' };

const notSent = (error: string): SendResult => ({ ok: false, statusCode: null, responseTimeMs: 0, responseBody: null, retryAfter: null, error });

export class DeliveryWorker {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private wakeFanOut: (() => void) | null = null;
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
    this.wakeFanOut?.();
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
    const fanOut = this.fanOutLoop();
    while (this.running) {
      let launched = 0;
      try {
        // Claim in batches: refilling one slot at a time would cost a query per delivery.
        const batch = Math.max(1, Math.floor(this.concurrency / 4));
        const free = this.concurrency - this.inFlight.size;
        if (free >= batch && (this.claimable || this.finishedSinceClaim >= batch)) {
          this.finishedSinceClaim = 0;
          // Fan-out during the claim sets it again: what it added may not have been seen.
          this.claimable = false;
          launched = await this.claimAndLaunch(free);
          if (launched === free) this.claimable = true;
        }
      } catch (err) {
        this.opts.logger.error({ err }, 'delivery worker pass failed');
      }
      // Woken early by a finished attempt or by new deliveries.
      if (launched === 0 && this.running && !(await this.pause((wake) => (this.wake = wake)))) this.claimable = true;
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
      try {
        dispatched = await dispatchEvents(this.opts.prisma);
      } catch (err) {
        this.opts.logger.error({ err }, 'fanning out webhook events failed');
      }
      if (dispatched > 0) {
        this.claimable = true;
        this.wake?.();
      } else if (this.running) await this.pause((wake) => (this.wakeFanOut = wake));
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
    const rows = await this.claim(limit);
    // Subscriptions in the `event` format get the same body for one event: encode it once.
    const bodies = new Map<string, EncodedBody>();
    for (const row of rows) {
      const claim: Claimed = {
        id: row.id, subscription_id: row.subscription_id, event_id: row.event_id, attempts: row.attempts,
        previous_attempt_at: row.previous_attempt_at, lease_expired: row.lease_expired,
      };
      const sub: ClaimedSubscription = {
        id: row.subscription_id, workspaceId: row.workspace_id, url: row.url, httpMethod: row.httpMethod, contentType: row.contentType,
        headers: row.headers, timeoutSeconds: row.timeoutSeconds, payloadFormat: row.payloadFormat, secretEncrypted: row.secretEncrypted, retryPolicy: row.retryPolicy,
      };
      const event: EventForDelivery | null = row.event_type
        ? { id: row.event_id!, type: row.event_type, sequence: row.event_sequence!, workspaceId: row.event_workspace_id!, createdAt: row.event_created_at!, data: row.event_data! }
        : null;
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
      const work = this.attempt(claim, sub, event, body).catch((err: unknown) => this.opts.logger.error({ err, deliveryId: claim.id }, 'webhook delivery attempt failed'));
      this.inFlight.set(work, claim);
      void work.finally(() => {
        this.inFlight.delete(work);
        this.finishedSinceClaim++;
        this.wake?.();
      });
    }
    return rows.length;
  }

  /**
   * One statement claims a batch and reads what sending it needs: the subscription's settings
   * and the event (null once the event is gone). The lease covers the subscription's receiver
   * timeout plus time to record the outcome.
   */
  private claim(limit: number): Promise<ClaimedRow[]> {
    // One subscription holds at most half the slots, so a receiver that hangs (or a backlog of
    // one workspace) leaves the other half to everyone else: subscriptions at their share are
    // left out, the others get at most what remains of theirs.
    const share = Math.max(1, Math.floor(this.concurrency / 2));
    const busy: Record<string, number> = {};
    for (const c of this.inFlight.values()) busy[c.subscription_id] = (busy[c.subscription_id] ?? 0) + 1;
    return this.opts.prisma.$queryRaw<ClaimedRow[]>`
      WITH open AS (
        SELECT s.id, ${share} - COALESCE((${JSON.stringify(busy)}::jsonb ->> s.id)::int, 0) AS room
        FROM webhook_subscriptions s WHERE s.active
      ), candidates AS (
        -- Rows are found through arrays (= ANY) rather than joins throughout: the embedded
        -- database has no autovacuum, so no statistics, and its planner would otherwise scan
        -- whole tables (or look up every due row's subscription) on each claim.
        SELECT d.id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
          AND (d.locked_until IS NULL OR d.locked_until < now())
          AND d.subscription_id = ANY(ARRAY(SELECT id FROM open WHERE room > 0))
        ORDER BY d.next_attempt_at
        LIMIT ${limit * 2}
        -- Locked here already, so workers claiming at the same time pick disjoint candidates
        -- instead of all but one coming back short.
        FOR UPDATE OF d SKIP LOCKED
      ), fair AS (
        SELECT c.id FROM (
          SELECT c.*, row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.next_attempt_at) AS n FROM candidates c
        ) c JOIN open o ON o.id = c.subscription_id WHERE c.n <= o.room
      ), due AS (
        SELECT d.id, d.last_attempt_at AS previous_attempt_at, d.locked_until IS NOT NULL AS lease_expired FROM webhook_deliveries d
        WHERE d.id = ANY(ARRAY(SELECT id FROM fair))
          -- Checked again now that the rows are locked; written so that no index serves it
          -- (the primary key is the one to use here).
          AND (d.status = 'pending') IS TRUE AND (d.locked_until IS NULL OR d.locked_until < now())
        ORDER BY d.next_attempt_at
        LIMIT ${limit}
        FOR UPDATE OF d SKIP LOCKED
      ), claimed AS (
        UPDATE webhook_deliveries w
        SET locked_until = now() + make_interval(secs => s.timeout_seconds + ${LEASE_MARGIN_SECONDS}),
            attempts = w.attempts + 1, last_attempt_at = now(), updated_at = now()
        FROM due, webhook_subscriptions s
        WHERE w.id = ANY(ARRAY(SELECT id FROM due)) AND w.id = due.id AND s.id = w.subscription_id
        RETURNING w.id, w.subscription_id, w.event_id, w.attempts, due.previous_attempt_at, due.lease_expired,
          s.workspace_id, s.url, s.http_method AS "httpMethod", s.content_type AS "contentType", s.headers,
          s.timeout_seconds AS "timeoutSeconds", s.payload_format AS "payloadFormat",
          s.secret_encrypted AS "secretEncrypted", s.retry_policy AS "retryPolicy"
      )
      SELECT c.*, e.type AS event_type, e.workspace_id AS event_workspace_id, e.created_at AS event_created_at, e.sequence AS event_sequence, e.data AS event_data
      FROM claimed c LEFT JOIN events e ON e.id = c.event_id`;
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

  /**
   * Puts a claim back unsent, due again when the cap that refused it has room: the attempt is
   * not counted, so a capped delivery waits but is neither failed nor lost.
   */
  private async defer(claim: Claimed, seconds: number): Promise<void> {
    await this.opts.prisma.$executeRaw`
      UPDATE webhook_deliveries
      SET locked_until = NULL, attempts = attempts - 1, last_attempt_at = ${claim.previous_attempt_at},
          next_attempt_at = now() + make_interval(secs => ${seconds}), updated_at = now()
      WHERE id = ${claim.id} AND attempts = ${claim.attempts} AND status = 'pending'`;
  }

  /** Never rejects: whatever goes wrong becomes this delivery's recorded outcome. */
  private async attempt(claim: Claimed, sub: ClaimedSubscription, event: EventForDelivery | null, body: EncodedBody | Error | undefined): Promise<void> {
    let outcome: Outcome;
    const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
    if (!event || !body) {
      // Deleted between fan-out and send: nothing can be sent, so the delivery ends as failed.
      outcome = { claim, sub: { ...sub, retryPolicy: { max_retries: 0, intervals_seconds: [] } }, requestBody: null, result: notSent('event or subscription no longer exists'), attempted: false };
    } else if (claim.lease_expired && claim.attempts > 1 + policy.max_retries) {
      // Every attempt this delivery was allowed has been claimed and none left an outcome (a
      // worker died each time, or its outcome could not be written): sending again could wedge
      // the same way forever, so the delivery ends here, as failed.
      const error = `no outcome was recorded for the last attempt (the claim ran out after ${sub.timeoutSeconds + LEASE_MARGIN_SECONDS} s); no attempts left`;
      outcome = { claim, sub, requestBody: null, result: notSent(error), attempted: true };
    } else if (body instanceof Error) {
      this.opts.logger.error({ err: body, deliveryId: claim.id, subscriptionId: sub.id }, 'webhook delivery body could not be built');
      outcome = { claim, sub, requestBody: null, result: notSent('the delivery body could not be built'), attempted: true };
    } else {
      try {
        const room = await this.opts.limits?.take('deliver', sub.workspaceId, sub.url);
        if (room && !room.allowed) return await this.defer(claim, room.retryAfterSeconds);
        const { requestBody, result } = await attemptDelivery(this.opts, sub, event, body);
        outcome = { claim, sub, requestBody, result, attempted: true };
      } catch (err) {
        const unreadable = err instanceof UnreadableSecretError;
        this.opts.logger.error({ err, deliveryId: claim.id, subscriptionId: sub.id }, unreadable ? err.message : 'webhook delivery attempt failed unexpectedly');
        outcome = { claim, sub, requestBody: null, result: notSent(unreadable ? err.message : 'the attempt failed unexpectedly'), attempted: true };
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
    this.flushing = this.flushing.then(() => this.record(batch)).catch((err) => this.opts.logger.error({ err }, 'recording delivery outcomes failed'));
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
      this.opts.logger.warn({ err, outcomes: batch.length }, 'recording delivery outcomes together failed; recording them one by one');
    }
    for (const outcome of batch) {
      try {
        await this.write([outcome]);
      } catch (err) {
        await this.recordUnsaveable(outcome, err);
      }
    }
  }

  private async recordUnsaveable({ claim, result }: Outcome, cause: unknown): Promise<void> {
    this.opts.logger.error({ err: cause, deliveryId: claim.id, subscriptionId: claim.subscription_id }, 'a webhook delivery outcome could not be recorded; the delivery is marked failed');
    const error = 'the outcome of this attempt could not be recorded; see the service log';
    try {
      // Only numbers of the outcome are kept: whatever text it held may be what could not be saved.
      await this.opts.prisma.$executeRaw`
        WITH failed AS (
          UPDATE webhook_deliveries SET
            status = 'failed', locked_until = NULL, next_attempt_at = NULL, response_body = NULL,
            response_code = ${result.statusCode}::int, response_time_ms = ${result.responseTimeMs}::int, error = ${error}, updated_at = now()
          WHERE id = ${claim.id} AND status = 'pending' AND attempts = ${claim.attempts}
          RETURNING id, attempts, test, redelivery, last_attempt_at, status, response_code, response_time_ms, error
        ) ${insertAttemptsFrom('failed')}`;
      this.opts.metrics?.webhookDeliveries.inc({ outcome: 'failed' });
    } catch (err) {
      // The database is unreachable: the lease runs out and the attempt count bounds what follows.
      this.opts.logger.error({ err, deliveryId: claim.id }, 'marking a webhook delivery failed did not work either');
    }
  }

  private async write(batch: Outcome[]): Promise<void> {
    const now = Date.now();
    const rows = batch.map(({ claim, sub, requestBody, result }) => {
      const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
      const step = nextStep(policy, claim.attempts, { ok: result.ok, statusCode: result.statusCode, retryAfter: result.retryAfter });
      return {
        id: claim.id,
        attempts: claim.attempts,
        status: step.status,
        request_body: requestBody,
        response_code: result.statusCode,
        response_time_ms: result.responseTimeMs,
        response_body: storableOrNull(result.responseBody),
        error: storableOrNull(result.error),
        delivered_at: step.status === 'delivered' ? new Date(now).toISOString() : null,
        next_attempt_at: step.status === 'pending' ? new Date(now + step.retryInSeconds * 1000).toISOString() : null,
      };
    });
    const bySub = new Map<string, { sub: OutcomeSubscription; results: boolean[] }>();
    for (const o of batch) {
      if (!o.attempted) continue;
      const entry = bySub.get(o.sub.id) ?? { sub: o.sub, results: [] };
      entry.results.push(o.result.ok);
      bySub.set(o.sub.id, entry);
    }
    // The delivery rows, and (as a CTE of the same statement) the attempt history: see attempt-log.ts.
    const recordDeliveries = Prisma.sql`
      recorded AS (
        UPDATE webhook_deliveries d SET
          status = v.status, locked_until = NULL, request_body = COALESCE(v.request_body, d.request_body),
          response_code = v.response_code, response_time_ms = v.response_time_ms, response_body = v.response_body,
          error = v.error, delivered_at = COALESCE(v.delivered_at, d.delivered_at), next_attempt_at = v.next_attempt_at, updated_at = now()
        FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
          id text, attempts int, status text, request_body text, response_code int, response_time_ms int, response_body text,
          error text, delivered_at timestamptz, next_attempt_at timestamptz)
        -- Only while the claim is still ours: once its lease ran out another worker may have
        -- claimed the delivery again (the attempt count moved on), and that claim is left alone.
        WHERE d.id = ANY(${rows.map((r) => r.id)}::text[]) AND d.id = v.id AND d.attempts = v.attempts
        RETURNING d.id, d.attempts, d.test, d.redelivery, d.last_attempt_at, d.status, d.response_code, d.response_time_ms, d.error
      )`;
    const disabled: DisabledSubscription[] = [];
    const counted = [...bySub.values()];
    if (counted.every(({ results }) => results.at(-1) === true)) {
      // The usual case, every subscription's last attempt succeeded: one statement records the
      // batch and clears failure counts. Counts already at 0 are not written, so workers
      // recording at once do not queue on a subscription's row.
      const cleared = JSON.stringify(counted.map(({ sub }) => sub.id));
      await this.opts.prisma.$executeRaw`
        WITH ${recordDeliveries}, logged AS (${insertAttemptsFrom('recorded')})
        UPDATE webhook_subscriptions SET consecutive_failures = 0, updated_at = now()
        WHERE id IN (SELECT jsonb_array_elements_text(${cleared}::jsonb)) AND consecutive_failures <> 0`;
    } else {
      await this.opts.prisma.$transaction(async (tx) => {
        await tx.$executeRaw`WITH ${recordDeliveries} ${insertAttemptsFrom('recorded')}`;
        for (const { sub, results } of counted) {
          const off = await this.countFailures(tx, sub, results, new Date(now));
          if (off) disabled.push(off);
        }
      });
    }
    for (const row of rows) this.opts.metrics?.webhookDeliveries.inc({ outcome: OUTCOME[row.status] });
    // Notified after commit, so nobody hears of a change that was rolled back.
    for (const sub of disabled) {
      await this.notifyDisabled(sub).catch((err) => this.opts.logger.error({ err, subscriptionId: sub.id }, 'could not notify the owners of a disabled webhook'));
    }
  }

  /** Consecutive failures: reset by a success, counted on from the last one; past the threshold the subscription turns inactive. */
  private async countFailures(
    tx: Parameters<Parameters<Db['$transaction']>[0]>[0],
    sub: OutcomeSubscription,
    results: boolean[],
    now: Date,
  ): Promise<DisabledSubscription | null> {
    const lastOk = results.lastIndexOf(true);
    const failuresAfter = results.length - 1 - lastOk;
    if (lastOk === -1 && failuresAfter === 0) return null;
    // updateMany: the subscription may have been deleted while its attempt ran.
    const { count } = await tx.webhookSubscription.updateMany({
      where: { id: sub.id },
      data: { consecutiveFailures: lastOk >= 0 ? failuresAfter : { increment: failuresAfter } },
    });
    const updated = count ? await tx.webhookSubscription.findUnique({ where: { id: sub.id } }) : null;
    if (!updated?.active || !shouldDisable(updated.consecutiveFailures, updated.autoDisableAfter)) return null;
    await tx.webhookSubscription.update({ where: { id: sub.id }, data: { active: false, disabledAt: now } });
    return { id: sub.id, workspaceId: sub.workspaceId, url: sub.url, consecutiveFailures: updated.consecutiveFailures };
  }
}
