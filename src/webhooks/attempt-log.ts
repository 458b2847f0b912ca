// Every attempt of a delivery is kept in webhook_delivery_attempts, written by the statement that
// records the attempt on the delivery row (as a CTE of it), so a crash cannot keep one without
// the other and recording costs no extra round trip. The delivery row repeats the last attempt.
import { Prisma } from '../db/generated/client/client.ts';

/** Why an attempt was made: a delivery's first, a retry of it, a redelivery's first, a test send. */
export const ATTEMPT_KINDS = ['first', 'retry', 'redelivery', 'test'] as const;
export type AttemptKind = (typeof ATTEMPT_KINDS)[number];

/**
 * The most attempts one delivery can keep: attempts are numbered (the primary key holds one per
 * number), a delivery is claimed at most 1 + max_retries times (max_retries is at most 10), and
 * once more to end it when every allowed claim ran out without an outcome.
 */
export const MOST_ATTEMPTS_KEPT = 1 + 10 + 1;

/**
 * Inserts one attempt per row of `cte`, a CTE over updated delivery rows with the columns
 * id, attempts, test, redelivery, last_attempt_at (set when the attempt was claimed), status
 * (the delivery's status after the attempt), response_code, response_time_ms and error
 * (already storable: see stored-text.ts).
 */
export function insertAttemptsFrom(cte: string): Prisma.Sql {
  const r = Prisma.raw(cte);
  return Prisma.sql`
    INSERT INTO webhook_delivery_attempts
      (delivery_id, attempt, kind, attempted_at, delivered, response_code, response_time_ms, error)
    SELECT r.id, r.attempts,
      CASE WHEN r.test THEN 'test' WHEN r.attempts > 1 THEN 'retry' WHEN r.redelivery THEN 'redelivery'
        ELSE 'first' END,
      COALESCE(r.last_attempt_at, now()), r.status = 'delivered', r.response_code,
      COALESCE(r.response_time_ms, 0), r.error
    FROM ${r} r
    -- An attempt is recorded once, by the claim that made it (the update checks the attempt
    -- count); should one be there already, the delivery's outcome still is written.
    ON CONFLICT (delivery_id, attempt) DO NOTHING`;
}
