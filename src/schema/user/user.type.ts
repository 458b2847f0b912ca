import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { notificationPreferences } from './preferences.rules.ts';

export const UserType = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    active: t.exposeBoolean('active'),
    notification_preferences: t.field({
      type: 'JSONObject',
      description: '{ email, push }: the channels task reminders may use',
      resolve: (u) => notificationPreferences(u.notificationPreferences),
    }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const UserPage = pageType('UserPage', UserType);
