// A workspace's custom field definitions, read at most once per request: a bulk create checks
// every row's values against the same definitions, and would otherwise read them once a row.
// Kept per request, so no request sees definitions older than its start; the definition
// mutations clear it, so a later write of the same GraphQL document sees their change.
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { CustomFieldDefinition } from '../../db/generated/client/client.ts';
import type { Context } from '../context.ts';

/** Definitions by account (live workspace) id, for the request whose context it is given. */
export const definitionsLoader = createContextCache(
  (ctx: Context) =>
    new DataLoader<string, CustomFieldDefinition[]>(async (accountIds) => {
      const defs = await ctx.prisma.customFieldDefinition.findMany({ where: { workspaceId: { in: [...accountIds] } } });
      return accountIds.map((id) => defs.filter((d) => d.workspaceId === id));
    }),
);
