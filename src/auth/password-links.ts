// One-time links that let a person choose their dashboard password: an invitation for a new user,
// or a reset for an existing one. The link carries a random 256-bit token in its fragment (never
// sent to a server, never in a Referer); the table keeps only its SHA-256. A link works once and
// until it expires; a newer link for the same user, and the user's deactivation, void older ones.
import { randomBytes } from 'node:crypto';
import type { Db } from '../db/client.ts';
import type { Prisma } from '../db/generated/client/client.ts';
import { AppError } from '../errors.ts';
import { newId } from '../ids.ts';
import { recordAudit } from '../events/audit.ts';
import { hashToken } from './keys.ts';
import { checkPasswordRules, hashPassword } from './passwords.ts';
import { SessionStore } from './sessions.ts';

export const LINK_PURPOSES = ['invite', 'reset'] as const;
export type LinkPurpose = (typeof LINK_PURPOSES)[number];

export interface LinkTimes {
  /** How long an invitation link works. */
  inviteMs: number;
  /** How long a password reset link works. */
  resetMs: number;
}

export const DEFAULT_LINK_TIMES: LinkTimes = { inviteMs: 72 * 3600_000, resetMs: 3600_000 };

/** The dashboard page that takes the token, in the URL's fragment. */
export const SET_PASSWORD_PATH = '/dashboard/set-password';

/** 32 random bytes as base64url: 43 characters. */
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** The one answer for a token that is wrong, expired or already used: they cannot be told apart. */
export const invalidLink = () =>
  new AppError(
    'not_found',
    'This link is not valid: it may have expired or been used already. Ask for a new one, or sign in.',
  );

type Tx = Pick<Prisma.TransactionClient, 'passwordLink'>;

/** Stores a new link for the user, voiding the user's older ones; the token is returned, never stored. */
export async function issuePasswordLink(
  tx: Tx,
  userId: string,
  purpose: LinkPurpose,
  times: LinkTimes,
): Promise<{ token: string; expiresAt: Date }> {
  await tx.passwordLink.deleteMany({ where: { userId } });
  const token = randomBytes(32).toString('base64url');
  const expiresAt = new Date(Date.now() + (purpose === 'invite' ? times.inviteMs : times.resetMs));
  await tx.passwordLink.create({
    data: { id: newId('pwl'), tokenHash: hashToken(token), userId, purpose, expiresAt },
  });
  return { token, expiresAt };
}

/** The link a token opens with its user, or null (malformed, unknown, expired, or its user inactive). */
export async function findPasswordLink(prisma: Db, token: unknown) {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) return null;
  const link = await prisma.passwordLink.findUnique({
    where: { tokenHash: hashToken(token) },
    include: { user: true },
  });
  if (!link) return null;
  if (link.expiresAt.getTime() <= Date.now() || !link.user.active) {
    await prisma.passwordLink.deleteMany({ where: { id: link.id } });
    return null;
  }
  return link;
}

/** The full URL of a link: the token after `#`, so it never reaches a server log or a Referer. */
export function linkUrl(origin: string, token: string): string {
  return `${origin}${SET_PASSWORD_PATH}#token=${token}`;
}

/**
 * Uses a link: sets the password of the link's user (that workspace's row only: sign-in.ts), deletes
 * the link and ends the user's sessions. Returns the user ids the new session opens: this one.
 */
export async function redeemPasswordLink(
  prisma: Db,
  link: NonNullable<Awaited<ReturnType<typeof findPasswordLink>>>,
  password: string,
): Promise<string[]> {
  const { user } = link;
  checkPasswordRules(password);
  const passwordHash = await hashPassword(password);
  const used = await prisma.$transaction(async (tx) => {
    // Single use: of two requests with one token, only the one that deletes it goes on.
    const { count } = await tx.passwordLink.deleteMany({ where: { id: link.id, expiresAt: { gt: new Date() } } });
    if (count === 0) return false;
    await tx.user.update({ where: { id: user.id }, data: { passwordHash } });
    await recordAudit(tx, {
      workspaceId: user.workspaceId,
      actor: { type: 'user', id: user.id, name: user.name },
      resource: 'user',
      recordId: user.id,
      action: 'password_set',
      // Named, never kept.
      changes: { password: { before: null, after: null } },
    });
    return true;
  });
  if (!used) throw invalidLink();
  // As when the admin CLI sets a password: the user's open sessions end.
  await SessionStore.deleteForUsers(prisma, [user.id]);
  // Its own workspace only: the link is no way to try the person's password in other workspaces
  // (that is sign-in's, with its limits), whatever password was chosen.
  return [user.id];
}
