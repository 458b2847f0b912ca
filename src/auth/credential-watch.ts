// Ends what stays open after a credential ends. A request is checked once, but a WebSocket, a
// subscription (over WebSocket or SSE) or an export streaming its file lives on: each one is held
// here under its credential, and every CHECK_EVERY_MS one batched query per kind re-reads every
// held credential from the database. That sees a revocation made anywhere (the dashboard, the
// admin CLI, another instance), an expiry, a narrowed scope, a deactivated user and a session that
// ended, without relying on any message between processes; a notice on the event bus
// (credential-notices.ts) only makes it check at once rather than at the next interval.
import type { Db } from '../db/client.ts';
import { AppError } from '../errors.ts';
import type { Caller } from './authenticate.ts';
import { allows, RESOURCES, type Grant, type Scope } from './scopes.ts';
import type { SessionTimes } from './sessions.ts';

/**
 * Interval between two checks of every held credential: within it
 * plus one query, anything held of an ended credential is ended.
 */
export const CHECK_EVERY_MS = 2_000;

/** Why a held connection ends: `unauthorized` (close 4401) or `forbidden`, a narrowed scope (close 4403). */
export type Ending = AppError & { code: 'unauthorized' | 'forbidden' };

/** What is held: a whole socket, one subscription stream or one export's file (counted apart, for their own caps). */
export type HoldKind = 'socket' | 'stream' | 'export';

interface Holder {
  kind: HoldKind;
  caller: Caller;
  end: (why: Ending) => void;
}

export interface CheckLogger {
  warn(obj: object, msg: string): void;
}

const ending = (code: Ending['code'], message: string) => new AppError(code, message) as Ending;

/** A key's or a session's identity among held credentials. */
export function credentialOf(caller: Caller): string {
  return caller.keyId ? `key:${caller.keyId}` : `session:${caller.sessionId}`;
}

/** True when `now` allows less than `before` did: some resource and access it had is gone. */
function narrowed(before: Grant, now: Grant): boolean {
  return RESOURCES.some((r) => (['read', 'write'] as const).some((a) => allows(before, r, a) && !allows(now, r, a)));
}

export class CredentialWatch {
  private held = new Map<string, Set<Holder>>();
  private timer: NodeJS.Timeout | null = null;
  private checking: Promise<void> | null = null;
  private rechecking: Promise<void> | null = null;

  constructor(
    private prisma: Db,
    private opts: {
      sessionTimes: SessionTimes;
      logger?: CheckLogger;
      intervalMs?: number;
      forgetKey?: (hash: string) => void;
    },
  ) {}

  /** Holds something open for `caller` until the returned release is called; `end` is called at most once. */
  hold(kind: HoldKind, caller: Caller, end: (why: Ending) => void): () => void {
    const id = credentialOf(caller);
    let set = this.held.get(id);
    if (!set) this.held.set(id, (set = new Set()));
    let ended = false;
    const holder: Holder = {
      kind,
      caller,
      end: (why) => {
        if (ended) return;
        ended = true;
        release();
        end(why);
      },
    };
    const release = () => {
      set.delete(holder);
      if (set.size === 0 && this.held.get(id) === set) this.held.delete(id);
      if (this.held.size === 0) this.stopTimer();
    };
    set.add(holder);
    this.startTimer();
    return release;
  }

  /** How many of `kind` this instance holds for the caller's credential. */
  count(kind: HoldKind, caller: Caller): number {
    let n = 0;
    for (const h of this.held.get(credentialOf(caller)) ?? []) if (h.kind === kind) n++;
    return n;
  }

  /** Checks every held credential now (also run every CHECK_EVERY_MS while anything is held). */
  check(): Promise<void> {
    // One check at a time, and at most one waiting: a slow database must not pile up queries. The
    // waiting one matters: a change committed while a check runs may be newer than what it read.
    if (this.checking) {
      this.rechecking ??= this.checking.then(() => {
        this.rechecking = null;
        return this.check();
      });
      return this.rechecking;
    }
    this.checking = this.checkAll()
      .catch((err: Error) =>
        this.opts.logger?.warn({ err: err.message }, 'credential check failed; retrying at the next interval'),
      )
      .finally(() => (this.checking = null));
    return this.checking;
  }

  private startTimer(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.check(), this.opts.intervalMs ?? CHECK_EVERY_MS);
    this.timer.unref();
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private async checkAll(): Promise<void> {
    const keyIds: string[] = [];
    const sessionIds: string[] = [];
    const userIds = new Set<string>();
    for (const set of this.held.values()) {
      const { caller } = set.values().next().value!;
      if (caller.keyId) keyIds.push(caller.keyId);
      else sessionIds.push(caller.sessionId!);
      for (const h of set) if (!caller.keyId && h.caller.userId) userIds.add(h.caller.userId);
    }
    const now = Date.now();
    if (keyIds.length) {
      const keys = await this.prisma.apiKey.findMany({
        where: { id: { in: keyIds } },
        select: { id: true, hash: true, scope: true, permissions: true, expiresAt: true, revokedAt: true },
      });
      const byId = new Map(keys.map((k) => [k.id, k]));
      for (const id of keyIds) {
        const key = byId.get(id);
        const gone =
          !key || key.revokedAt
            ? 'The API key was revoked'
            : key.expiresAt && key.expiresAt.getTime() <= now
              ? 'The API key has expired'
              : null;
        if (key && gone) this.opts.forgetKey?.(key.hash);
        this.endAll(`key:${id}`, (caller) =>
          gone
            ? ending('unauthorized', gone)
            : narrowed(caller, { scope: key!.scope as Scope, permissions: key!.permissions })
              ? ending('forbidden', "The API key's scope was narrowed")
              : null,
        );
      }
    }
    if (sessionIds.length) {
      const [sessions, users] = await Promise.all([
        this.prisma.dashboardSession.findMany({
          where: { id: { in: sessionIds } },
          select: { id: true, userIds: true, expiresAt: true, lastSeenAt: true },
        }),
        this.prisma.user.findMany({ where: { id: { in: [...userIds] }, active: true }, select: { id: true } }),
      ]);
      const byId = new Map(sessions.map((s) => [s.id, s]));
      const active = new Set(users.map((u) => u.id));
      const { idleMs } = this.opts.sessionTimes;
      for (const id of sessionIds) {
        const s = byId.get(id);
        const over = !s || s.expiresAt.getTime() <= now || now - s.lastSeenAt.getTime() >= idleMs;
        this.endAll(`session:${id}`, (caller) =>
          over || !caller.userId || !s.userIds.includes(caller.userId) || !active.has(caller.userId)
            ? ending('unauthorized', 'The dashboard session has ended; sign in again')
            : null,
        );
      }
    }
  }

  private endAll(id: string, why: (caller: Caller) => Ending | null): void {
    for (const h of [...(this.held.get(id) ?? [])]) {
      const reason = why(h.caller);
      if (reason) h.end(reason);
    }
  }
}
