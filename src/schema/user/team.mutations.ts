// The dashboard's Team page: invite a user (a one-time link that sets the password, e-mailed when
// SMTP is configured), a password reset link, deactivate and reactivate. Signed-in users only, as
// for API keys: a key could otherwise make itself a dashboard user.
import { z } from 'zod';
import { issuePasswordLink, linkUrl, type LinkPurpose } from '../../auth/password-links.ts';
import type { Prisma, User } from '../../db/generated/client/client.ts';
import { withRefusals } from '../../db/transaction.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { builder } from '../builder.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { name255, parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { actorOf, type Context, type TeamServices } from '../context.ts';
import { apiKeyAuditFields } from '../api-key/api-key.write.ts';
import { findUser } from './user.queries.ts';
import { UserType } from './user.type.ts';

const inviteInput = z.strictObject({
  name: name255.min(1, 'is required'),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .pipe(z.email('must be a valid email address').max(255, 'must be at most 255 characters')),
});
const UserInviteInput = zodInput('UserInviteInput', inviteInput, 'A person to invite: their name and e-mail address.');

interface IssuedLink {
  url: string;
  expires_at: Date;
  emailed: boolean;
}

export const PasswordLinkType = builder.objectRef<IssuedLink>('PasswordLink').implement({
  description:
    'A one-time link that lets a person choose their dashboard password. The URL is returned only in this ' +
    'answer (the service keeps a hash of its token), to be passed on when it was not e-mailed.',
  fields: (t) => ({
    url: t.exposeString('url', { description: 'The link itself, shown only in this answer' }),
    expires_at: t.expose('expires_at', { type: 'DateTime', description: 'The link works once, until then' }),
    emailed: t.exposeBoolean('emailed', {
      description: 'Whether it was e-mailed to the user (SMTP configured and the mail server took it)',
    }),
  }),
});

const UserInvitationType = builder.objectRef<{ user: User; link: IssuedLink }>('UserInvitation').implement({
  description: 'A user just invited, and the link that sets their password.',
  fields: (t) => ({
    user: t.field({ type: UserType, resolve: (i) => i.user }),
    link: t.field({ type: PasswordLinkType, resolve: (i) => i.link }),
  }),
});

const userAuditFields = (u: User) => ({ name: u.name, email: u.email, active: u.active });

function teamOf(ctx: Context): TeamServices & { linkOrigin: string } {
  const team = ctx.team;
  if (!team?.linkOrigin)
    throw new AppError(
      'unprocessable_entity',
      'Cannot build a link: set PUBLIC_URL, or send the request over HTTP to an allowed host name',
    );
  return team as TeamServices & { linkOrigin: string };
}

async function sendLink(
  team: TeamServices & { linkOrigin: string },
  user: User,
  purpose: LinkPurpose,
  token: string,
  expiresAt: Date,
  workspaceName: string,
  by: string,
): Promise<IssuedLink> {
  const url = linkUrl(team.linkOrigin, token);
  const until = expiresAt.toISOString().replace('T', ' ').slice(0, 16) + ' UTC';
  const emailed = await team.mail({
    to: user.email,
    subject: purpose === 'invite' ? `You are invited to ${workspaceName}` : 'Choose a new dashboard password',
    text:
      (purpose === 'invite'
        ? `${by} invited you to the workspace "${workspaceName}".\n\nChoose your password to sign in:\n\n`
        : `${by} sent you a link to choose a new password for the workspace "${workspaceName}".\n\n`) +
      `${url}\n\nThe link works once, until ${until}. If you did not expect this e-mail, ignore it.\n`,
  });
  return { url, expires_at: expiresAt, emailed };
}

/** Locks the account's users (one at a time may change who is active), then reads the user. */
async function lockedUser(tx: Prisma.TransactionClient, ctx: Context, id: string): Promise<User> {
  await tx.$queryRaw`SELECT id FROM workspaces WHERE id = ${ctx.caller.accountId} FOR UPDATE`;
  return findUser(tx, ctx, id);
}

builder.mutationFields((t) => ({
  inviteUser: t.field({
    type: UserInvitationType,
    description:
      'Adds a user to the workspace and returns a one-time link (valid INVITE_LINK_HOURS, 72 h by default) where ' +
      'they choose their password; e-mailed to them when SMTP is configured. Signed-in users only.',
    args: { input: t.arg({ type: UserInviteInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const me = assertSignedInUser(ctx);
      const input = parseInput(inviteInput, args.input);
      const team = teamOf(ctx);
      const taken = () =>
        new AppError('conflict', `A user with email ${input.email} already exists in this workspace`, {
          email: ['is already a user of this workspace'],
        });
      const { user, token, expiresAt, workspaceName } = await withRefusals({ uniqueViolation: taken }, () =>
        ctx.prisma.$transaction(async (tx) => {
          const ws = await tx.workspace.findUniqueOrThrow({ where: { id: ctx.caller.accountId } });
          const created = await tx.user.create({
            data: { id: newId('usr'), workspaceId: ctx.caller.accountId, name: input.name, email: input.email },
          });
          await recordAudit(tx, {
            workspaceId: created.workspaceId,
            actor: actorOf(ctx),
            resource: 'user',
            recordId: created.id,
            action: 'invited',
            changes: diff(null, userAuditFields(created)),
          });
          const link = await issuePasswordLink(tx, created.id, 'invite', team.linkTimes);
          return { user: created, ...link, workspaceName: ws.name };
        }),
      );
      return { user, link: await sendLink(team, user, 'invite', token, expiresAt, workspaceName, me.name) };
    },
  }),
  createPasswordResetLink: t.field({
    type: PasswordLinkType,
    description:
      'Returns a one-time link (valid RESET_LINK_MINUTES, 60 by default) where an active user chooses a new ' +
      "password; e-mailed to them when SMTP is configured. It voids the user's older links. Signed-in users only.",
    args: { userId: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const me = assertSignedInUser(ctx);
      const team = teamOf(ctx);
      // Checked under the lock deactivateUser takes: a link made while the user is being
      // deactivated would otherwise outlive the deactivation and work again after a reactivation.
      const { user, token, expiresAt, workspaceName } = await ctx.prisma.$transaction(async (tx) => {
        const user = await lockedUser(tx, ctx, String(args.userId));
        if (!user.active)
          throw new AppError('unprocessable_entity', 'The user is deactivated: reactivate them first', {
            userId: ['is deactivated'],
          });
        const ws = await tx.workspace.findUniqueOrThrow({ where: { id: ctx.caller.accountId } });
        const link = await issuePasswordLink(tx, user.id, 'reset', team.linkTimes);
        await recordAudit(tx, {
          workspaceId: user.workspaceId,
          actor: actorOf(ctx),
          resource: 'user',
          recordId: user.id,
          action: 'password_link_created',
          changes: {},
        });
        return { user, ...link, workspaceName: ws.name };
      });
      return sendLink(team, user, 'reset', token, expiresAt, workspaceName, me.name);
    },
  }),
  deactivateUser: t.field({
    type: UserType,
    description:
      'Deactivates a user: their dashboard sessions end at once (open subscriptions too), their API keys are ' +
      'revoked, their password links are voided and they cannot sign in. Records assigned to them stay so. ' +
      'Not yourself, nor the last active user of the workspace. Signed-in users only.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      const me = assertSignedInUser(ctx);
      const { user, revoked } = await ctx.prisma.$transaction(async (tx) => {
        const before = await lockedUser(tx, ctx, String(args.id));
        if (before.id === me.id)
          throw new AppError('unprocessable_entity', 'You cannot deactivate yourself', { id: ['is you'] });
        if (!before.active) return { user: before, revoked: [] };
        const others = await tx.user.count({
          where: { workspaceId: ctx.caller.accountId, active: true, id: { not: before.id } },
        });
        if (others === 0)
          throw new AppError('unprocessable_entity', 'The last active user of a workspace cannot be deactivated', {
            id: ['is the last active user'],
          });
        const after = await tx.user.update({ where: { id: before.id }, data: { active: false } });
        await tx.passwordLink.deleteMany({ where: { userId: before.id } });
        await recordAudit(tx, {
          workspaceId: after.workspaceId,
          actor: actorOf(ctx),
          resource: 'user',
          recordId: after.id,
          action: 'deactivated',
          changes: diff(userAuditFields(before), userAuditFields(after)),
        });
        const keys = await tx.apiKey.findMany({ where: { userId: before.id, revokedAt: null } });
        for (const key of keys) {
          const row = await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
          await recordAudit(tx, {
            workspaceId: row.workspaceId,
            actor: actorOf(ctx),
            resource: 'api_key',
            recordId: row.id,
            action: 'revoked',
            changes: diff(apiKeyAuditFields(key), apiKeyAuditFields(row)),
          });
        }
        return { user: after, revoked: keys };
      });
      // Open sockets and streams of the ended sessions and keys close within the credential check. A
      // session of the same person in another workspace stays; it can no longer switch to this one.
      await ctx.prisma.dashboardSession.deleteMany({ where: { userId: user.id } });
      ctx.credentials.keysChanged(revoked.map((key) => key.hash));
      // Re-checks every instance's open connections now: the user's sockets close at once.
      ctx.credentials.workspaceChanged(user.workspaceId);
      return user;
    },
  }),
  reactivateUser: t.field({
    type: UserType,
    description:
      'Reactivates a user: they can sign in again with their password (their ended sessions and revoked keys stay ' +
      'so). Signed-in users only.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      assertSignedInUser(ctx);
      return ctx.prisma.$transaction(async (tx) => {
        const before = await lockedUser(tx, ctx, String(args.id));
        if (before.active) return before;
        const after = await tx.user.update({ where: { id: before.id }, data: { active: true } });
        await recordAudit(tx, {
          workspaceId: after.workspaceId,
          actor: actorOf(ctx),
          resource: 'user',
          recordId: after.id,
          action: 'reactivated',
          changes: diff(userAuditFields(before), userAuditFields(after)),
        });
        return after;
      });
    },
  }),
}));
