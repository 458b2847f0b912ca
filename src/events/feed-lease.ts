// Who publishes the event log to a shared bus. With Redis every instance subscribes to the
// same channels, so exactly one instance (the lease holder) may publish, or each event
// would reach every subscriber once per instance.
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface FeedLease {
  /** Takes or renews the lease for ttlMs; true while this instance is the publisher. */
  hold(ttlMs: number): Promise<boolean>;
  /** Where the previous holder stopped, so a new holder resumes there instead of skipping events. */
  resumeFrom(): Promise<bigint | null>;
  /** Records progress, only while still holding the lease (a deposed holder must not move it). */
  saveCursor(seq: bigint): Promise<void>;
  /** Gives the lease up at shutdown so another instance takes over without waiting for expiry. */
  release(): Promise<void>;
}

/** A bus no other instance shares: its one feed always publishes and never resumes. */
export const soleLease: FeedLease = {
  hold: async () => true,
  resumeFrom: async () => null,
  saveCursor: async () => {},
  release: async () => {},
};

// A cursor older than this is not resumed from: replaying minutes-old events to live views
// would mislead more than it helps (webhooks are the durable path).
const CURSOR_TTL_MS = 60_000;

const HOLD = `
local holder = redis.call('GET', KEYS[1])
if holder == false or holder == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0`;

const SAVE_IF_HOLDER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
end
return 0`;

const RELEASE_IF_HOLDER = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 0`;

export function redisLease(redis: Redis, prefix: string): FeedLease {
  const me = randomUUID();
  const leaseKey = `${prefix}:event-feed:leader`;
  const cursorKey = `${prefix}:event-feed:cursor`;
  return {
    hold: async (ttlMs) => (await redis.eval(HOLD, 1, leaseKey, me, ttlMs)) === 1,
    resumeFrom: async () => {
      const saved = await redis.get(cursorKey);
      return saved === null ? null : BigInt(saved);
    },
    saveCursor: async (seq) => {
      await redis.eval(SAVE_IF_HOLDER, 2, leaseKey, cursorKey, me, seq.toString(), CURSOR_TTL_MS);
    },
    release: async () => {
      await redis.eval(RELEASE_IF_HOLDER, 1, leaseKey, me);
    },
  };
}
