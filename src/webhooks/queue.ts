// The delivery queue in the database (webhook_deliveries): due deliveries claimed under a lease,
// claims given back or put off unsent, and outcomes recorded with their attempt history. Every
// statement the delivery worker runs on the queue is here; the worker (worker.ts) decides when.
// A claim is a lease (locked_until): a write about a claim only applies while the delivery's
// attempt count is still the claim's, so a lease that ran out and was claimed again is left alone.
import type { Db } from '../db/client.ts';
import { Prisma, type WebhookSubscription } from '../db/generated/client/client.ts';
import { insertAttemptsFrom } from './attempt-log.ts';
import type { SubscriptionForDelivery } from './deliver.ts';
import type { DisabledSubscription } from './notify.ts';
import type { EventForDelivery } from './payload.ts';
import { DEFAULT_RETRY_POLICY, nextStep, shouldDisable, type NextStep, type RetryPolicy } from './retry.rules.ts';
import type { SendResult } from './sender.ts';
import { storableOrNull } from './stored-text.ts';

/** Extra lease beyond the receiver timeout, for recording the outcome. */
export const LEASE_MARGIN_SECONDS = 10;

export interface Claimed {
  id: string;
  subscription_id: string;
  event_id: string | null;
  attempts: number;
  /** last_attempt_at before this claim, put back if the claim is released unsent. */
  previous_attempt_at: Date | null;
  /** The previous claim's lease ran out with no outcome recorded (a worker died, or its write failed). */
  lease_expired: boolean;
}

/** What recording an outcome needs to know of the subscription. */
export type OutcomeSubscription = Pick<WebhookSubscription, 'id' | 'workspaceId' | 'url' | 'retryPolicy'>;
export type ClaimedSubscription = SubscriptionForDelivery & OutcomeSubscription;

/** A claimed delivery with everything its attempt needs: its subscription, and its event (null once gone). */
export interface ClaimedDelivery {
  claim: Claimed;
  sub: ClaimedSubscription;
  event: EventForDelivery | null;
}

/** A row of the claim: the delivery, its subscription's settings and its event, read by the claim itself. */
interface ClaimedRow extends Claimed, Omit<SubscriptionForDelivery, 'id'>, Pick<WebhookSubscription, 'retryPolicy'> {
  workspace_id: string;
  event_type: string | null;
  event_workspace_id: string | null;
  event_created_at: Date | null;
  event_sequence: number | null;
  event_data: Record<string, unknown> | null;
}

export interface Outcome {
  claim: Claimed;
  sub: OutcomeSubscription;
  requestBody: string | null;
  result: SendResult;
  /** An attempt was due and made (or lost): it counts toward the subscription's consecutive failures. */
  attempted: boolean;
}

/**
 * One statement claims up to `limit` due deliveries and reads what sending them needs: the
 * subscription's settings and the event (null once the event is gone). The lease covers the
 * subscription's receiver timeout plus time to record the outcome. A subscription gets at most
 * `share` claims less those of its deliveries `busy` counts (attempts still under way).
 */
export async function claimDue(
  db: Db,
  limit: number,
  share: number,
  busy: Record<string, number>,
): Promise<ClaimedDelivery[]> {
  const rows = await db.$queryRaw<ClaimedRow[]>`
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
      SELECT d.id, d.last_attempt_at AS previous_attempt_at, d.locked_until IS NOT NULL AS lease_expired
      FROM webhook_deliveries d
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
    SELECT c.*, e.type AS event_type, e.workspace_id AS event_workspace_id, e.created_at AS event_created_at,
      e.sequence AS event_sequence, e.data AS event_data
    FROM claimed c LEFT JOIN events e ON e.id = c.event_id`;
  return rows.map((row) => ({
    claim: {
      id: row.id,
      subscription_id: row.subscription_id,
      event_id: row.event_id,
      attempts: row.attempts,
      previous_attempt_at: row.previous_attempt_at,
      lease_expired: row.lease_expired,
    },
    sub: {
      id: row.subscription_id,
      workspaceId: row.workspace_id,
      url: row.url,
      httpMethod: row.httpMethod,
      contentType: row.contentType,
      headers: row.headers,
      timeoutSeconds: row.timeoutSeconds,
      payloadFormat: row.payloadFormat,
      secretEncrypted: row.secretEncrypted,
      retryPolicy: row.retryPolicy,
    },
    event: row.event_type
      ? {
          id: row.event_id!,
          type: row.event_type,
          sequence: row.event_sequence!,
          workspaceId: row.event_workspace_id!,
          createdAt: row.event_created_at!,
          data: row.event_data!,
        }
      : null,
  }));
}

/**
 * Gives claims back as if they had never been made: no lease, the attempt uncounted, so the
 * next worker sends them at once. A row another worker claimed since (our lease ran out)
 * has a different attempt count and is left alone.
 */
export async function releaseClaims(db: Db, claims: Claimed[]): Promise<void> {
  const rows = claims.map((c) => ({ id: c.id, attempts: c.attempts, previous_attempt_at: c.previous_attempt_at }));
  await db.$executeRaw`
    UPDATE webhook_deliveries d
    SET locked_until = NULL, attempts = d.attempts - 1, last_attempt_at = v.previous_attempt_at, updated_at = now()
    FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(id text, attempts int, previous_attempt_at timestamptz)
    WHERE d.id = v.id AND d.attempts = v.attempts AND d.status = 'pending'`;
}

/**
 * Puts a claim back unsent, due again in `seconds`: the attempt is not counted, so a delivery
 * that waits is neither failed nor lost.
 */
export async function deferClaim(db: Db, claim: Claimed, seconds: number): Promise<void> {
  await db.$executeRaw`
    UPDATE webhook_deliveries
    SET locked_until = NULL, attempts = attempts - 1, last_attempt_at = ${claim.previous_attempt_at},
        next_attempt_at = now() + make_interval(secs => ${seconds}), updated_at = now()
    WHERE id = ${claim.id} AND attempts = ${claim.attempts} AND status = 'pending'`;
}

/**
 * Ends a delivery whose outcome could not be recorded as failed, with the reason, so it is never
 * left pending to be sent again. Only numbers of the outcome are kept: whatever text it held may
 * be what could not be saved.
 */
export async function failUnrecordable(db: Db, { claim, result }: Outcome): Promise<void> {
  const error = 'the outcome of this attempt could not be recorded; see the service log';
  await db.$executeRaw`
    WITH failed AS (
      UPDATE webhook_deliveries SET
        status = 'failed', locked_until = NULL, next_attempt_at = NULL, response_body = NULL,
        response_code = ${result.statusCode}::int, response_time_ms = ${result.responseTimeMs}::int, error = ${error},
        updated_at = now()
      WHERE id = ${claim.id} AND status = 'pending' AND attempts = ${claim.attempts}
      RETURNING id, attempts, test, redelivery, last_attempt_at, status, response_code, response_time_ms, error
    ) ${insertAttemptsFrom('failed')}`;
}

/** What recording a batch did: each delivery's status after it, and the subscriptions it turned off. */
export interface Recorded {
  statuses: NextStep['status'][];
  disabled: DisabledSubscription[];
}

/**
 * Records a batch of outcomes in one write: each delivery's next step under its retry policy,
 * its attempt history, and its subscription's consecutive failures (past the threshold the
 * subscription turns inactive).
 */
export async function recordOutcomes(db: Db, batch: Outcome[]): Promise<Recorded> {
  const now = Date.now();
  const rows = batch.map(({ claim, sub, requestBody, result }) => {
    const policy = (sub.retryPolicy as RetryPolicy | null) ?? DEFAULT_RETRY_POLICY;
    const { ok, statusCode, retryAfter } = result;
    const step = nextStep(policy, claim.attempts, { ok, statusCode, retryAfter });
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
        error = v.error, delivered_at = COALESCE(v.delivered_at, d.delivered_at), next_attempt_at = v.next_attempt_at,
        updated_at = now()
      FROM jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS v(
        id text, attempts int, status text, request_body text, response_code int, response_time_ms int,
        response_body text, error text, delivered_at timestamptz, next_attempt_at timestamptz)
      -- Only while the claim is still ours: once its lease ran out another worker may have
      -- claimed the delivery again (the attempt count moved on), and that claim is left alone.
      WHERE d.id = ANY(${rows.map((r) => r.id)}::text[]) AND d.id = v.id AND d.attempts = v.attempts
      RETURNING d.id, d.attempts, d.test, d.redelivery, d.last_attempt_at, d.status, d.response_code,
        d.response_time_ms, d.error
    )`;
  const disabled: DisabledSubscription[] = [];
  const counted = [...bySub.values()];
  if (counted.every(({ results }) => results.at(-1) === true)) {
    // The usual case, every subscription's last attempt succeeded: one statement records the
    // batch and clears failure counts. Counts already at 0 are not written, so workers
    // recording at once do not queue on a subscription's row. A subscription turned inactive
    // keeps the count that turned it off (an attempt that was under way then may still succeed):
    // reactivating it starts the count again.
    const cleared = JSON.stringify(counted.map(({ sub }) => sub.id));
    await db.$executeRaw`
      WITH ${recordDeliveries}, logged AS (${insertAttemptsFrom('recorded')})
      UPDATE webhook_subscriptions SET consecutive_failures = 0, updated_at = now()
      WHERE id IN (SELECT jsonb_array_elements_text(${cleared}::jsonb)) AND consecutive_failures <> 0 AND active`;
  } else {
    await db.$transaction(async (tx) => {
      await tx.$executeRaw`WITH ${recordDeliveries} ${insertAttemptsFrom('recorded')}`;
      for (const { sub, results } of counted) {
        const off = await countFailures(tx, sub, results, new Date(now));
        if (off) disabled.push(off);
      }
    });
  }
  return { statuses: rows.map((r) => r.status), disabled };
}

/**
 * Consecutive failures: reset by a success, counted on from the last one; past the threshold the
 * subscription turns inactive.
 */
async function countFailures(
  tx: Prisma.TransactionClient,
  sub: OutcomeSubscription,
  results: boolean[],
  now: Date,
): Promise<DisabledSubscription | null> {
  const lastOk = results.lastIndexOf(true);
  const failuresAfter = results.length - 1 - lastOk;
  if (lastOk === -1 && failuresAfter === 0) return null;
  // updateMany: the subscription may have been deleted while its attempt ran. An inactive one
  // keeps the count that turned it off.
  const { count } = await tx.webhookSubscription.updateMany({
    where: { id: sub.id, active: true },
    data: { consecutiveFailures: lastOk >= 0 ? failuresAfter : { increment: failuresAfter } },
  });
  const updated = count ? await tx.webhookSubscription.findUnique({ where: { id: sub.id } }) : null;
  if (!updated?.active || !shouldDisable(updated.consecutiveFailures, updated.autoDisableAfter)) return null;
  await tx.webhookSubscription.update({ where: { id: sub.id }, data: { active: false, disabledAt: now } });
  return { id: sub.id, workspaceId: sub.workspaceId, url: sub.url, consecutiveFailures: updated.consecutiveFailures };
}
