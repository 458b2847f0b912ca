// What happens after an attempt: pure functions of the subscription's policy and the outcome.

export interface RetryPolicy {
  max_retries: number;
  intervals_seconds: number[];
}

/** 5 retries after 5 s, 30 s, 2 min, 15 min and 1 h (the API reference's schedule). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { max_retries: 5, intervals_seconds: [5, 30, 120, 900, 3600] };
/** A receiver's Retry-After is honoured up to this many seconds. */
export const MAX_RETRY_AFTER_SECONDS = 3600;

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Seconds from a 429's Retry-After header, when it had a usable one. */
  retryAfter: number | null;
}

export type NextStep = { status: 'delivered' } | { status: 'failed' } | { status: 'pending'; retryInSeconds: number };

/** `attempts` counts the attempt just made; a delivery gets 1 + max_retries attempts in all. */
export function nextStep(policy: RetryPolicy, attempts: number, outcome: AttemptOutcome): NextStep {
  if (outcome.ok) return { status: 'delivered' };
  if (attempts >= 1 + policy.max_retries) return { status: 'failed' };
  const intervals = policy.intervals_seconds.length ? policy.intervals_seconds : DEFAULT_RETRY_POLICY.intervals_seconds;
  let wait = intervals[Math.min(attempts - 1, intervals.length - 1)];
  if (outcome.statusCode === 429 && outcome.retryAfter !== null)
    wait = Math.min(Math.max(outcome.retryAfter, 0), MAX_RETRY_AFTER_SECONDS);
  return { status: 'pending', retryInSeconds: wait };
}

/** Subscriptions turn inactive after more than `autoDisableAfter` consecutive failed attempts. */
export function shouldDisable(consecutiveFailures: number, autoDisableAfter: number): boolean {
  return consecutiveFailures > autoDisableAfter;
}

/** Retry-After is either seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
