// Caps on what the service sends to receivers, so no key can turn it into a flood towards a
// host of its choosing: test sends and redeliveries per workspace, deliveries per workspace,
// and everything sent to one destination host whoever asked for it. In memory by default; in
// Redis when REDIS_URL is set, so the caps hold across instances and workers.
import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface OutboundCaps {
  /** Sample POSTs of test sends per workspace and minute (one per subscribed event). */
  testSendsPerMinute: number;
  /** Redeliveries queued per workspace and minute. */
  redeliveriesPerMinute: number;
  /** Deliveries the worker sends per workspace and minute; beyond it they wait, none is lost. */
  workspaceDeliveriesPerMinute: number;
  /** Requests of any kind to one destination host per minute, across workspaces and instances. */
  hostSendsPerMinute: number;
}

export const DEFAULT_OUTBOUND_CAPS: OutboundCaps = {
  testSendsPerMinute: 60,
  redeliveriesPerMinute: 60,
  workspaceDeliveriesPerMinute: 6000,
  hostSendsPerMinute: 3000,
};

export type CapDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number; reason: string };

type Kind = 'test' | 'redeliver' | 'deliver';

/** The host part of a receiver URL: the cap's key, whatever the port or path. */
export const destinationHost = (url: string): string => new URL(url).hostname.toLowerCase();

export class OutboundLimits {
  private readonly perWorkspace: Record<Kind, { limiter: RateLimiterAbstract; cap: number; what: string }>;
  private readonly perHost: RateLimiterAbstract;

  constructor(
    private readonly caps: OutboundCaps,
    private readonly redis: Redis | null,
  ) {
    this.perWorkspace = {
      test: {
        limiter: this.store('wh:test', caps.testSendsPerMinute),
        cap: caps.testSendsPerMinute,
        what: 'test sends',
      },
      redeliver: {
        limiter: this.store('wh:redeliver', caps.redeliveriesPerMinute),
        cap: caps.redeliveriesPerMinute,
        what: 'redeliveries',
      },
      deliver: {
        limiter: this.store('wh:deliver', caps.workspaceDeliveriesPerMinute),
        cap: caps.workspaceDeliveriesPerMinute,
        what: 'deliveries',
      },
    };
    this.perHost = this.store('wh:host', caps.hostSendsPerMinute);
  }

  /**
   * Takes `requests` from the workspace's budget for this kind and, for requests sent now
   * (tests, deliveries), from the host's; a redelivery meets the host's cap when the worker
   * sends it. Refused when either is spent; what one took is given back when the other refuses.
   */
  async take(kind: Kind, workspaceId: string, url: string, requests = 1): Promise<CapDecision> {
    const ws = this.perWorkspace[kind];
    const own = await consume(ws.limiter, workspaceId, requests);
    if (own !== true) return refusal(own, `at most ${ws.cap} webhook ${ws.what} per workspace and minute`);
    if (kind === 'redeliver') return { allowed: true };
    const host = destinationHost(url);
    const shared = await consume(this.perHost, host, requests);
    if (shared === true) return { allowed: true };
    await ws.limiter.reward(workspaceId, requests).catch(() => {});
    return refusal(shared, `at most ${this.caps.hostSendsPerMinute} webhook requests to ${host} per minute`);
  }

  private store(keyPrefix: string, points: number): RateLimiterAbstract {
    const opts = { keyPrefix, points, duration: 60 };
    if (!this.redis) return new RateLimiterMemory(opts);
    // If Redis is unreachable each instance keeps capping on its own rather than failing sends.
    return new RateLimiterRedis({ ...opts, storeClient: this.redis, insuranceLimiter: new RateLimiterMemory(opts) });
  }
}

/** true, or the limiter's answer when refused. */
async function consume(limiter: RateLimiterAbstract, key: string, points: number): Promise<true | RateLimiterRes> {
  try {
    await limiter.consume(key, points);
    return true;
  } catch (res) {
    if (res instanceof RateLimiterRes) return res;
    throw res;
  }
}

function refusal(res: RateLimiterRes, reason: string): CapDecision {
  return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)), reason };
}
