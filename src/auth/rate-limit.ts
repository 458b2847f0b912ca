// Per-key request budgets by plan, shared by REST and GraphQL. In memory by default;
// in Redis when REDIS_URL is set, so every instance draws from the same bucket.
import type { Redis } from 'ioredis';
import {
  BurstyRateLimiter,
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

interface PlanLimit {
  perMinute: number;
  /** Most requests accepted within one minute when the bucket is full. */
  burst: number;
}

export const PLAN_LIMITS: Record<string, PlanLimit> = {
  standard: { perMinute: 100, burst: 100 },
  professional: { perMinute: 300, burst: 300 },
  enterprise: { perMinute: 500, burst: 1000 },
};
export const PLANS = Object.keys(PLAN_LIMITS);

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the budget is whole again. */
  reset: number;
  /** Seconds to wait before retrying, when refused. */
  retryAfter: number;
}

type Limiter = Pick<RateLimiterAbstract, 'consume'> | BurstyRateLimiter;

export class RateLimits {
  private limiters = new Map<string, { limiter: Limiter; plan: PlanLimit }>();

  constructor(private redis: Redis | null) {}

  async consume(plan: string, key: string): Promise<RateDecision> {
    const { limiter, plan: limits } = this.limiterFor(plan);
    try {
      return this.decision(true, limits, await limiter.consume(key));
    } catch (res) {
      if (res instanceof RateLimiterRes) return this.decision(false, limits, res);
      throw res;
    }
  }

  private decision(allowed: boolean, plan: PlanLimit, res: RateLimiterRes): RateDecision {
    const waitMs = Math.max(res.msBeforeNext, 0);
    return {
      allowed,
      limit: plan.perMinute,
      remaining: allowed ? Math.max(res.remainingPoints, 0) : 0,
      reset: Math.ceil((Date.now() + waitMs) / 1000),
      retryAfter: Math.max(1, Math.ceil(waitMs / 1000)),
    };
  }

  private limiterFor(planName: string) {
    const name = PLAN_LIMITS[planName] ? planName : 'standard';
    let entry = this.limiters.get(name);
    if (!entry) {
      const plan = PLAN_LIMITS[name];
      const main = this.store(`rl:${name}`, plan.perMinute);
      const limiter =
        plan.burst > plan.perMinute
          ? new BurstyRateLimiter(main, this.store(`rl:${name}:burst`, plan.burst - plan.perMinute))
          : main;
      entry = { limiter, plan };
      this.limiters.set(name, entry);
    }
    return entry;
  }

  private store(keyPrefix: string, points: number): RateLimiterAbstract {
    const opts = { keyPrefix, points, duration: 60 };
    if (!this.redis) return new RateLimiterMemory(opts);
    // If Redis is unreachable each instance keeps limiting on its own rather than failing requests.
    return new RateLimiterRedis({ ...opts, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(opts) });
  }
}
