// Users are readable with any valid key, whatever its scope: keys need user ids to assign
// tasks, contacts and deals, and the scope vocabulary has no `users` resource to grant.
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { userFilter } from './user.inputs.ts';
import { UserPage, UserType } from './user.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { sortArg } from '../common/sort.ts';

const UserFilter = zodInput('UserFilter', userFilter, 'Conditions every listed user meets.');

const USER_SORT: SortSpec = {
  default: 'name',
  fields: { name: { field: 'name', type: 'string' }, created_at: { field: 'createdAt', type: 'date' } },
};

/** Users belong to the live workspace; sandbox keys see the same users. */
export async function findUser(db: Pick<Context['prisma'], 'user'>, ctx: Context, id: string) {
  const user = await db.user.findFirst({ where: { id, workspaceId: ctx.caller.accountId } });
  if (!user) throw notFound('User');
  return user;
}

builder.queryFields((t) => ({
  user: t.field({
    description: 'One user of the workspace by id, active or not; not_found when there is none. Readable with any key.',
    type: UserType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => findUser(ctx.prisma, ctx, String(args.id)),
  }),
  users: t.field({
    type: UserPage,
    description: 'Users of the workspace, by name. Readable with any key.',
    args: {
      filter: t.arg({ type: UserFilter }),
      sort: sortArg(t, 'UserSort', USER_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: (_root, args, ctx) => {
      const f = parseInput(userFilter, args.filter ?? {});
      const where: Prisma.UserWhereInput = {
        workspaceId: ctx.caller.accountId,
        ...(f.active === undefined ? {} : { active: f.active }),
      };
      return findPage(args, USER_SORT, {
        list: 'users',
        where: where as Record<string, unknown>,
        fetch: (q) => ctx.prisma.user.findMany(q as Prisma.UserFindManyArgs),
        count: (w) => ctx.prisma.user.count({ where: w }),
      });
    },
  }),
}));
