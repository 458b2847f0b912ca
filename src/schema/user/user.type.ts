import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { notificationPreferences, type NotificationPreferences } from './preferences.rules.ts';
import { versionDescription } from '../common/versions.ts';
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { Context } from '../context.ts';

/** When each user's unused, unexpired invitation link expires, read once per request for a list. */
const invitationLoader = createContextCache(
  (ctx: Context) =>
    new DataLoader<string, Date | null>(async (ids) => {
      const links = await ctx.prisma.passwordLink.findMany({
        where: { userId: { in: [...ids] }, purpose: 'invite', expiresAt: { gt: new Date() } },
        select: { userId: true, expiresAt: true },
      });
      const byUser = new Map(links.map((l) => [l.userId, l.expiresAt]));
      return ids.map((id) => byUser.get(id) ?? null);
    }),
);

const NotificationPreferencesType = builder.objectRef<NotificationPreferences>('NotificationPreferences').implement({
  description: 'The channels task reminders may use for a user: a reminder fires on a channel only while it is on.',
  fields: (t) => ({
    email: t.exposeBoolean('email', { description: 'Reminders by email' }),
    push: t.exposeBoolean('push', { description: 'Reminders by push notification' }),
  }),
});

export const UserType = builder.prismaObject('User', {
  description:
    'A person of the workspace, who can own deals, be assigned contacts and tasks, and sign in to the dashboard.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    active: t.exposeBoolean('active', {
      description: 'Only active users may sign in and be assigned contacts, deals and tasks',
    }),
    notification_preferences: t.field({
      type: NotificationPreferencesType,
      resolve: (u) => notificationPreferences(u.notificationPreferences),
    }),
    password_set: t.boolean({
      nullable: true,
      description: 'Whether the user has a dashboard password. Signed-in users only: null for API keys',
      resolve: (u, _args, ctx) => (ctx.caller.user ? u.passwordHash !== null : null),
    }),
    invited_until: t.field({
      type: 'DateTime',
      nullable: true,
      description:
        'When the unused link of a pending invitation expires; null when there is none. ' +
        'Signed-in users only: null for API keys',
      resolve: (u, _args, ctx) => (ctx.caller.user ? invitationLoader(ctx).load(u.id) : null),
    }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const UserPage = pageType('UserPage', UserType);
