// Idempotency keys in the database, so every instance sees the same claims. A key is claimed by
// inserting its row; the unique (api_key_id, key) makes exactly one of two racing requests win.
import type { Db } from '../db/client.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';

/** How long a key and its stored answer are kept (Stripe's 24 hours). */
export const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still in flight after this long was left by a process that died mid-request (a live
 * one releases or completes it): a retry takes it over. Far longer than any request takes.
 */
export const ABANDONED_AFTER_MS = 60_000;

export interface KeyRef {
  apiKeyId: string;
  key: string;
}

export type Claim =
  /** This request owns the key; `claimedAt` identifies the claim when completing or releasing it. */
  | { kind: 'claimed'; claimedAt: Date }
  | { kind: 'replay'; status: number; body: string }
  /** The key was first used for another method, path, query or body. */
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

export class IdempotencyStore {
  /** Stored answers are sealed with `box`: an answer can hold a secret shown only once (a new webhook's). */
  constructor(
    private readonly prisma: Db,
    private readonly box: SecretBox,
  ) {}

  async claim(ref: KeyRef, requestHash: string, now = new Date()): Promise<Claim> {
    const expiresAt = new Date(now.getTime() + RETENTION_MS);
    // A few rounds: the row we collide with may be released or expire between our two statements.
    for (let round = 0; round < 3; round++) {
      // INSERT ... ON CONFLICT DO NOTHING: the loser learns it lost without a failed statement.
      const { count } = await this.prisma.idempotencyKey.createMany({
        data: [{ ...ref, requestHash, createdAt: now, expiresAt }],
        skipDuplicates: true,
      });
      if (count === 1) return { kind: 'claimed', claimedAt: now };
      const row = await this.prisma.idempotencyKey.findUnique({ where: { apiKeyId_key: ref } });
      if (!row) continue;
      if (row.expiresAt <= now) {
        await this.prisma.idempotencyKey.deleteMany({ where: { ...ref, expiresAt: { lte: now } } });
        continue;
      }
      if (row.requestHash !== requestHash) return { kind: 'mismatch' };
      if (row.status === 'done')
        return { kind: 'replay', status: row.responseStatus!, body: this.unseal(row.responseBody!) };
      if (now.getTime() - row.createdAt.getTime() < ABANDONED_AFTER_MS) return { kind: 'in_flight' };
      const taken = await this.prisma.idempotencyKey.updateMany({
        where: { ...ref, status: 'in_flight', createdAt: row.createdAt },
        data: { createdAt: now, expiresAt },
      });
      if (taken.count === 1) return { kind: 'claimed', claimedAt: now };
    }
    return { kind: 'in_flight' };
  }

  /** Stores the answer of the claim; a claim taken over meanwhile is left to its new owner. */
  async complete(ref: KeyRef, claimedAt: Date, status: number, body: string): Promise<void> {
    await this.prisma.idempotencyKey.updateMany({
      where: { ...ref, status: 'in_flight', createdAt: claimedAt },
      data: { status: 'done', responseStatus: status, responseBody: this.box.seal(body) },
    });
  }

  /** Answers stored before they were sealed are plain JSON, and stay readable until they expire. */
  private unseal(stored: string): string {
    return stored.startsWith('{') ? stored : this.box.open(stored);
  }

  /** Forgets the claim, so the client may retry with the same key. */
  async release(ref: KeyRef, claimedAt: Date): Promise<void> {
    await this.prisma.idempotencyKey.deleteMany({ where: { ...ref, status: 'in_flight', createdAt: claimedAt } });
  }

  async deleteExpired(now = new Date()): Promise<number> {
    const { count } = await this.prisma.idempotencyKey.deleteMany({ where: { expiresAt: { lte: now } } });
    return count;
  }
}
