import type { NextFunction, Request, Response } from 'express';
import type { Authenticator, Caller } from '../auth/authenticate.ts';
import type { RateLimits, RateDecision } from '../auth/rate-limit.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';
import { sendFailure } from './failure.ts';

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

/**
 * Authenticates the key and draws one request from its plan's budget. Requests without a
 * valid key draw from a per-address budget, so every response carries the rate headers and
 * key guessing is throttled.
 */
export function authenticateAndLimit(auth: Authenticator, limits: RateLimits, metrics: Metrics) {
  const refuse = (req: Request, res: Response, d: RateDecision, plan: string): void => {
    metrics.rateLimited.inc({ plan });
    res.setHeader('Retry-After', String(d.retryAfter));
    sendFailure(req, res, new AppError('rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfter} s`));
  };
  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    let caller: Caller;
    try {
      caller = await auth.authenticate(req.get('authorization'));
    } catch (err) {
      const failure = err instanceof AppError ? err : new AppError('internal_error', 'Authentication failed unexpectedly');
      const d = await limits.consume('standard', `ip:${req.ip}`);
      setRateHeaders(res, d);
      if (!d.allowed) return refuse(req, res, d, 'standard');
      if (failure.code === 'internal_error') return next(err);
      return sendFailure(req, res, failure);
    }
    const d = await limits.consume(caller.plan, `key:${caller.keyId}`);
    setRateHeaders(res, d);
    if (!d.allowed) return refuse(req, res, d, caller.plan);
    res.locals.caller = caller;
    next();
  };
}
