import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { notificationPreferences, type NotificationPreferences } from './preferences.rules.ts';
import { versionDescription } from '../common/versions.ts';

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
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const UserPage = pageType('UserPage', UserType);
