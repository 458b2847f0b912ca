import type { NextFunction, Request, Response } from 'express';
import type { Authenticator, Caller } from '../auth/authenticate.ts';
import type { RateLimits, RateDecision } from '../auth/rate-limit.ts';
import { callerOfSession, isValidCsrfToken, SESSION_COOKIE, type SessionStore } from '../auth/sessions.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    requestId: string;
    caller?: Caller;
  }
}

function setRateHeaders(res: Response, d: RateDecision): void {
  res.setHeader('X-RateLimit-Limit', String(d.limit));
  res.setHeader('X-RateLimit-Remaining', String(d.remaining));
  res.setHeader('X-RateLimit-Reset', String(d.reset));
}

/** Refuses with 429 and Retry-After, counted per plan. */
function refuser(metrics: Metrics) {
  return (res: Response, next: NextFunction, d: RateDecision, plan: string): void => {
    metrics.rateLimited.inc({ plan });
    res.setHeader('Retry-After', String(d.retryAfter));
    const message = `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfter} s`;
    next(new AppError('rate_limited', message));
  };
}

/**
 * Authenticates the key and draws one request from its plan's budget. Requests without a
 * valid key draw from a per-address budget, so every response carries the rate headers and
 * key guessing is throttled.
 */
export function authenticateAndLimit(auth: Authenticator, limits: RateLimits, metrics: Metrics) {
  const refuse = refuser(metrics);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let caller: Caller;
    try {
      caller = await auth.authenticate(req.get('authorization'));
    } catch (err) {
      const failure =
        err instanceof AppError ? err : new AppError('internal_error', 'Authentication failed unexpectedly');
      const d = await limits.consume('standard', `ip:${req.ip}`);
      setRateHeaders(res, d);
      // A key that could not be checked (database down) is not a guess: answer why, never 429.
      if (failure.code === 'internal_error') return next(err);
      if (!d.allowed) return refuse(res, next, d, 'standard');
      return next(failure);
    }
    const d = await limits.consume(caller.plan, `key:${caller.keyId}`);
    setRateHeaders(res, d);
    if (!d.allowed) return refuse(res, next, d, caller.plan);
    res.locals.caller = caller;
    next();
  };
}

/** A dashboard session's request without its CSRF token; the dashboard reads it as the envelope, on /graphql too. */
export class CsrfRefusal extends AppError {
  constructor() {
    super('forbidden', 'Missing or invalid CSRF token');
  }
}

/** Requests that send an API key are the key's: a dashboard cookie riding along is ignored. */
export const usesSessionCookie = (req: Request): boolean =>
  !req.get('authorization') && Boolean(req.cookies?.[SESSION_COOKIE]);

/**
 * The signed-in dashboard user (session cookie), for /graphql. Every such request must carry the
 * session's X-CSRF-Token, reads too: another site could otherwise make the browser send the cookie.
 * Users draw from their workspace's plan budget, one bucket per user. `csrf: false` only for a GET
 * that changes nothing and answers a download no other site can read (the dashboard's failed rows).
 */
export function authenticateSession(
  sessions: SessionStore,
  limits: RateLimits,
  metrics: Metrics,
  opts: { csrf: boolean } = { csrf: true },
) {
  const refuse = refuser(metrics);
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const token: string = req.cookies[SESSION_COOKIE];
    const session = await sessions.find(token);
    if (!session) {
      const d = await limits.consume('standard', `ip:${req.ip}`);
      setRateHeaders(res, d);
      if (!d.allowed) return refuse(res, next, d, 'standard');
      return next(new AppError('unauthorized', 'The dashboard session has ended; sign in again'));
    }
    if (opts.csrf && !isValidCsrfToken(token, req.get('x-csrf-token'))) return next(new CsrfRefusal());
    const caller = callerOfSession(session);
    const d = await limits.consume(caller.plan, `user:${session.userId}`);
    setRateHeaders(res, d);
    if (!d.allowed) return refuse(res, next, d, caller.plan);
    res.locals.caller = caller;
    next();
  };
}
