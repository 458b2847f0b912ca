// Turns an Authorization header into the caller's identity, or a 401.
import type { Db } from '../db/client.ts';
import type { Prisma } from '../db/generated/client/client.ts';
import { AppError } from '../errors.ts';
import { hashApiKey, KEY_PATTERN } from './keys.ts';
import type { Grant, Scope } from './scopes.ts';

/** Who calls: an API key, or a user signed in to the dashboard (see sessions.ts). */
export interface Caller extends Grant {
  /** The API key; null for a signed-in user. */
  keyId: string | null;
  keyName: string | null;
  /** The workspace whose data the key acts on: the live one or its sandbox twin. */
  workspaceId: string;
  /** The live workspace: owner of users, custom fields and the plan. */
  accountId: string;
  plan: string;
  currency: string;
  sandbox: boolean;
  /** The data workspace's setting: a new contact is linked to the company of its e-mail domain. */
  linkContactsByDomain: boolean;
  userId: string | null;
  /** The dashboard session a signed-in user called through; null for API keys. */
  sessionId: string | null;
  expiresAt: Date | null;
  /** The signed-in dashboard user; null for API keys, which user-only fields refuse. */
  user: { id: string; name: string } | null;
}

export type KeyCaller = Caller & { keyId: string; keyName: string };

const HEADER = /^Bearer (\S+)$/;

/** Extracts the key from `Bearer <key>`; anything else (extra spaces, other schemes) is null. */
export function parseAuthorization(header: string | undefined): string | null {
  if (!header) return null;
  const m = HEADER.exec(header);
  return m && KEY_PATTERN.test(m[1]) ? m[1] : null;
}

const unauthorized = (message: string) => new AppError('unauthorized', message);

// Verified keys are cached briefly: a key lookup per request would dominate cheap reads.
// Expiry is still checked on every request. A revocation on any instance drops the key here at
// once through the event bus (credential-notices.ts); CACHE_MS bounds it when a notice is lost.
const CACHE_MS = 5_000;

/** What a key's caller needs of its workspace. */
export const KEY_WORKSPACE = {
  workspace: {
    select: {
      id: true,
      plan: true,
      currency: true,
      linkContactsByDomain: true,
      sandbox: { select: { id: true, linkContactsByDomain: true } },
    },
  },
} as const satisfies Prisma.ApiKeyInclude;

type KeyWithWorkspace = Prisma.ApiKeyGetPayload<{ include: typeof KEY_WORKSPACE }>;

/** The caller a key acts as; null when it is revoked or its sandbox is gone. Expiry is the caller's to check. */
export function callerOfKey(key: KeyWithWorkspace): KeyCaller | null {
  if (key.revokedAt) return null;
  const sandboxId = key.workspace.sandbox?.id;
  if (key.sandbox && !sandboxId) return null;
  return {
    keyId: key.id,
    keyName: key.name,
    scope: key.scope as Scope,
    permissions: key.permissions,
    workspaceId: key.sandbox ? sandboxId! : key.workspaceId,
    accountId: key.workspaceId,
    plan: key.workspace.plan,
    currency: key.workspace.currency,
    sandbox: key.sandbox,
    linkContactsByDomain: key.sandbox
      ? key.workspace.sandbox!.linkContactsByDomain
      : key.workspace.linkContactsByDomain,
    userId: key.userId,
    sessionId: null,
    expiresAt: key.expiresAt,
    user: null,
  };
}
const LAST_USED_EVERY_MS = 60_000;

export class Authenticator {
  private cache = new Map<string, { caller: KeyCaller; until: number }>();
  private lastUsedWrites = new Map<string, number>();
  /**
   * Raised by every forget: a lookup that began before a revocation's notice may have read the key
   * unrevoked, and must not put it back in the cache after the notice dropped it.
   */
  private forgets = 0;

  constructor(
    private prisma: Db,
    private cacheMs = CACHE_MS,
  ) {}

  async authenticate(header: string | undefined): Promise<KeyCaller> {
    if (!header) throw unauthorized('Missing API key: send "Authorization: Bearer <key>"');
    const key = parseAuthorization(header);
    if (!key)
      throw unauthorized(
        HEADER.test(header)
          ? 'Invalid API key: keys are crm_live_ or crm_test_ followed by 32 letters and digits'
          : 'Malformed Authorization header: expected "Bearer <key>"',
      );
    const hash = hashApiKey(key);
    const now = Date.now();
    let caller = this.cache.get(hash);
    if (!caller || caller.until < now) {
      const forgets = this.forgets;
      const found = await this.load(hash);
      if (!found) {
        this.cache.delete(hash);
        throw unauthorized('Invalid or revoked API key');
      }
      caller = { caller: found, until: now + this.cacheMs };
      if (forgets === this.forgets) this.cache.set(hash, caller);
    }
    if (caller.caller.expiresAt && caller.caller.expiresAt.getTime() <= now)
      throw unauthorized('The API key has expired');
    this.touch(caller.caller.keyId, now);
    return caller.caller;
  }

  /** Drops a key's cached identity (by its hash) so a revocation made in this process applies at once. */
  forget(hash: string): void {
    this.forgets++;
    this.cache.delete(hash);
  }

  /** Drops the cached identities of a workspace's keys, so a change of its settings applies at once here. */
  forgetWorkspace(workspaceId: string): void {
    this.forgets++;
    for (const [hash, entry] of this.cache) if (entry.caller.workspaceId === workspaceId) this.cache.delete(hash);
  }

  private async load(hash: string): Promise<KeyCaller | null> {
    const key = await this.prisma.apiKey.findUnique({ where: { hash }, include: KEY_WORKSPACE });
    return key ? callerOfKey(key) : null;
  }

  private touch(keyId: string, now: number): void {
    const last = this.lastUsedWrites.get(keyId) ?? 0;
    if (now - last < LAST_USED_EVERY_MS) return;
    this.lastUsedWrites.set(keyId, now);
    // Best effort: a failed bookkeeping write must not fail the request.
    this.prisma.apiKey.update({ where: { id: keyId }, data: { lastUsedAt: new Date(now) } }).catch(() => {});
  }
}
