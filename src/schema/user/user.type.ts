import { builder } from '../builder.ts';

export const UserType = builder.prismaObject('User', {
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name'),
    email: t.exposeString('email'),
    active: t.exposeBoolean('active'),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});
