// Sign-in attempts are limited per e-mail address and client address (password guessing on one
// account) and per client address (guessing across accounts). Every attempt counts; a successful
// sign-in clears its e-mail's count. In memory, or in Redis when REDIS_URL is set, like the API's
// rate limits.
import type { Redis } from 'ioredis';
import { normalizeEmail } from './email.ts';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 15 * 60;
export const LOGIN_LIMITS = {
  /** Attempts for one e-mail address from one client address per 15 minutes. */
  perEmailAndAddress: 10,
  /** Attempts from one client address per 15 minutes, successful ones given back. */
  perAddress: 50,
  /** Password links (invitation, reset) tried from one client address per 15 minutes, whatever the outcome. */
  linkPerAddress: 20,
};

export type LoginDecision = { allowed: true } | { allowed: false; retryAfter: number };

export class LoginLimits {
  private byEmail: RateLimiterAbstract;
  private byAddress: RateLimiterAbstract;

  constructor(redis: Redis | null) {
    this.byEmail = store(redis, 'login:email_ip', LOGIN_LIMITS.perEmailAndAddress);
    this.byAddress = store(redis, 'login:ip', LOGIN_LIMITS.perAddress);
  }

  /** Counts an attempt before the password is checked, so parallel guesses cannot slip through. */
  async attempt(email: string, address: string): Promise<LoginDecision> {
    try {
      await this.byAddress.consume(address);
      await this.byEmail.consume(emailKey(email, address));
      return { allowed: true };
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
    }
  }

  async succeeded(email: string, address: string): Promise<void> {
    await this.byEmail.delete(emailKey(email, address));
    await this.byAddress.reward(address);
  }
}

/** Attempts to use a password link (set-password), per client address: a token cannot be guessed by volume. */
export class LinkLimits {
  private byAddress: RateLimiterAbstract;

  constructor(redis: Redis | null, points = LOGIN_LIMITS.linkPerAddress) {
    this.byAddress = store(redis, 'password_link:ip', points);
  }

  async attempt(address: string): Promise<LoginDecision> {
    try {
      await this.byAddress.consume(address);
      return { allowed: true };
    } catch (res) {
      if (!(res instanceof RateLimiterRes)) throw res;
      return { allowed: false, retryAfter: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
    }
  }
}

/** Keyed by the address as sign-in compares it, so spellings of one account share one count. */
const emailKey = (email: string, address: string) => `${normalizeEmail(email)}|${address}`;

function store(redis: Redis | null, keyPrefix: string, points: number): RateLimiterAbstract {
  const opts = { keyPrefix, points, duration: WINDOW_SECONDS };
  if (!redis) return new RateLimiterMemory(opts);
  // If Redis is unreachable each instance keeps limiting on its own rather than failing sign-ins.
  return new RateLimiterRedis({ ...opts, storeClient: redis, insuranceLimiter: new RateLimiterMemory(opts) });
}
