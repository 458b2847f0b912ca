// Whether an id names an active user of the caller's account, read once per id and request: each
// row of a bulk create checks its assigned_to, and the rows of one request often name the same
// few users. No operation changes whether a user is active, so an answer holds for the request.
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { Context } from '../context.ts';

export const activeUsersLoader = createContextCache(
  (ctx: Context) =>
    new DataLoader<string, boolean>(async (ids) => {
      const found = await ctx.prisma.user.findMany({
        where: { id: { in: [...ids] }, workspaceId: ctx.caller.accountId, active: true },
        select: { id: true },
      });
      const active = new Set(found.map((u) => u.id));
      return ids.map((id) => active.has(id));
    }),
);
