// Dashboard sessions. The cookie carries a random token (256 bits); the table keeps only its
// SHA-256, so a leaked table opens no session. A session ends after an idle period or at its
// absolute end, whichever comes first, and at sign-out.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken } from './keys.ts';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../db/generated/client/client.ts';
import { newId } from '../ids.ts';
import type { Caller } from './authenticate.ts';

export const SESSION_COOKIE = 'crm_session';

export interface SessionTimes {
  /** A session unused for this long is over. */
  idleMs: number;
  /** A session is over this long after sign-in, however active. */
  maxAgeMs: number;
}

export const DEFAULT_SESSION_TIMES: SessionTimes = { idleMs: 12 * 3600_000, maxAgeMs: 7 * 24 * 3600_000 };

/** last_seen_at is written at most this often per session. */
const TOUCH_EVERY_MS = 60_000;

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/**
 * CSRF tokens are HMACs of a fresh nonce keyed by the session token: bound to the session,
 * verifiable without storing them, and unreadable to another site (it never sees the cookie).
 */
export function issueCsrfToken(sessionToken: string): string {
  const nonce = base64url(randomBytes(16));
  return `${nonce}.${base64url(createHmac('sha256', sessionToken).update(`csrf.${nonce}`).digest())}`;
}

export function isValidCsrfToken(sessionToken: string, csrfToken: unknown): boolean {
  if (typeof csrfToken !== 'string' || csrfToken.length > 200) return false;
  const [nonce, mac, extra] = csrfToken.split('.');
  if (!nonce || !mac || extra !== undefined) return false;
  const expected = createHmac('sha256', sessionToken).update(`csrf.${nonce}`).digest();
  const given = Buffer.from(mac, 'base64url');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const sessionInclude = {
  user: {
    include: {
      workspace: {
        select: {
          id: true,
          name: true,
          plan: true,
          currency: true,
          linkContactsByDomain: true,
          sandbox: { select: { id: true, linkContactsByDomain: true } },
        },
      },
    },
  },
} as const;

async function loadSession(prisma: Db, where: Prisma.DashboardSessionWhereUniqueInput) {
  return prisma.dashboardSession.findUnique({ where, include: sessionInclude });
}

export type Session = NonNullable<Awaited<ReturnType<typeof loadSession>>>;

export class SessionStore {
  constructor(
    readonly prisma: Db,
    readonly times: SessionTimes = DEFAULT_SESSION_TIMES,
  ) {}

  /** Signs in: `userIds` are the user rows whose password matched, `userId` the chosen one. */
  async create(userIds: string[], userId: string): Promise<{ token: string; session: Session }> {
    await this.deleteExpired();
    const token = base64url(randomBytes(32));
    const { id } = await this.prisma.dashboardSession.create({
      data: {
        id: newId('ses'),
        tokenHash: hashToken(token),
        userId,
        userIds,
        expiresAt: new Date(Date.now() + this.times.maxAgeMs),
      },
    });
    return { token, session: (await loadSession(this.prisma, { id }))! };
  }

  /** The live session for a cookie's token, or null (unknown, expired, or its user deactivated). */
  async find(token: string | undefined): Promise<Session | null> {
    if (!token || token.length > 100) return null;
    const session = await loadSession(this.prisma, { tokenHash: hashToken(token) });
    if (!session) return null;
    const now = Date.now();
    if (
      session.expiresAt.getTime() <= now ||
      now - session.lastSeenAt.getTime() >= this.times.idleMs ||
      !session.user.active
    ) {
      await this.prisma.dashboardSession.deleteMany({ where: { id: session.id } });
      return null;
    }
    if (now - session.lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      // Best effort, like API keys' last_used_at: a failed bookkeeping write must not fail the request.
      await this.prisma.dashboardSession
        .update({ where: { id: session.id }, data: { lastSeenAt: new Date(now) } })
        .catch(() => {});
    }
    return session;
  }

  async update(session: Session, change: { userId?: string; sandbox?: boolean }): Promise<Session> {
    await this.prisma.dashboardSession.update({ where: { id: session.id }, data: change });
    return (await loadSession(this.prisma, { id: session.id }))!;
  }

  async delete(session: Session): Promise<void> {
    await this.prisma.dashboardSession.deleteMany({ where: { id: session.id } });
  }

  /**
   * After these users' password changed: ends the sessions working as one of them, and takes them
   * off the workspaces other sessions may switch to (those were opened with the old password).
   * A session of the same person in another workspace goes on. Returns how many ended.
   */
  static async deleteForUsers(prisma: Db, userIds: string[]): Promise<number> {
    const { count } = await prisma.dashboardSession.deleteMany({ where: { userId: { in: userIds } } });
    await prisma.$executeRaw`
      UPDATE dashboard_sessions
      SET user_ids = ARRAY(SELECT u FROM unnest(user_ids) AS u WHERE u <> ALL(${userIds}::text[]))
      WHERE user_ids && ${userIds}::text[]`;
    return count;
  }

  /** The workspaces the session may switch to, by name. */
  async workspacesOf(session: Session): Promise<{ id: string; name: string }[]> {
    const users = await this.prisma.user.findMany({
      where: { id: { in: session.userIds }, active: true },
      select: { workspace: { select: { id: true, name: true } } },
      orderBy: [{ workspace: { name: 'asc' } }, { workspaceId: 'asc' }],
    });
    return users.map((u) => u.workspace);
  }

  private async deleteExpired(): Promise<void> {
    const now = Date.now();
    await this.prisma.dashboardSession.deleteMany({
      where: {
        OR: [{ expiresAt: { lte: new Date(now) } }, { lastSeenAt: { lte: new Date(now - this.times.idleMs) } }],
      },
    });
  }
}

/** The signed-in user as a GraphQL caller: full access to the chosen workspace, or its sandbox twin. */
export function callerOfSession(session: Session): Caller {
  const { user } = session;
  const ws = user.workspace;
  const sandbox = session.sandbox && Boolean(ws.sandbox);
  return {
    keyId: null,
    keyName: null,
    scope: 'full',
    permissions: [],
    workspaceId: sandbox ? ws.sandbox!.id : ws.id,
    accountId: ws.id,
    plan: ws.plan,
    currency: ws.currency,
    sandbox,
    linkContactsByDomain: sandbox ? ws.sandbox!.linkContactsByDomain : ws.linkContactsByDomain,
    userId: user.id,
    sessionId: session.id,
    expiresAt: null,
    user: { id: user.id, name: user.name },
  };
}
