import { queryFromInfo } from '@pothos/plugin-prisma';
import type { GraphQLResolveInfo } from 'graphql';
import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { ACTIVITY_WHERE } from '../common/where/resources.ts';
import { allOf, conditionsOf, whereArg } from '../common/where/where.ts';
import { toPrismaWhere } from '../common/where/where.prisma.ts';
import { whereInput } from '../common/where/where.graphql.ts';
import type { Context } from '../context.ts';
import { findPage, type ListArgs, type SortSpec } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { findContact } from '../contact/contact.queries.ts';
import { findCompany } from '../company/company.queries.ts';
import { activityFilter } from './activity.inputs.ts';
import { ActivityPage, ActivityType } from './activity.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { sortEnum } from '../common/sort.ts';

const ActivityFilter = zodInput(
  'ActivityFilter',
  activityFilter,
  'Conditions every listed activity meets; all given conditions apply.',
);

/** Newest first by when it happened; created_at for "recently logged". */
const ACTIVITY_SORT: SortSpec = {
  default: '-occurred_at',
  fields: {
    occurred_at: { field: 'occurredAt', type: 'date' },
    created_at: { field: 'createdAt', type: 'date' },
  },
};

/** The workspace's activities that meet the query-string filter and the `where` filter. */
export async function activityWhere(
  ctx: Context,
  filter: unknown,
  whereInput?: unknown,
): Promise<Prisma.ActivityWhereInput> {
  const f = parseInput(activityFilter, filter ?? {});
  const legacy = conditionsOf(ACTIVITY_WHERE, [
    ['type', 'eq', f.type],
    ['contact_id', 'eq', f.contact_id],
    ['deal_id', 'eq', f.deal_id],
    ['company_id', 'eq', f.company_id],
    ['user_id', 'eq', f.user_id],
    ['occurred_at', 'gte', f.date_from],
    ['occurred_at', 'lte', f.date_to],
    ['external_id', 'eq', f.external_id],
  ]);
  const where = allOf(legacy, await whereArg(ctx, ACTIVITY_WHERE, whereInput));
  return { workspaceId: ctx.caller.workspaceId, ...toPrismaWhere(where, ctx.caller.workspaceId) };
}

/** A page of activities; relations the query asks for under `nodes` (contact, deal) are loaded with them. */
function activityPage(
  ctx: Context,
  info: GraphQLResolveInfo,
  list: string,
  where: Prisma.ActivityWhereInput,
  args: ListArgs,
) {
  return findPage(args, ACTIVITY_SORT, {
    list,
    where: where as Record<string, unknown>,
    fetch: (q) =>
      ctx.prisma.activity.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
        ...q,
      } as Prisma.ActivityFindManyArgs),
    count: (w) => ctx.prisma.activity.count({ where: w }),
  });
}

const listArgs = builder.args((t) => ({
  sort: t.field({
    type: [sortEnum('ActivitySort', ACTIVITY_SORT)],
    description: 'Sort order, first value first. Default occurred_at_desc.',
  }),
  limit: t.int({ description: 'Page size, 1 to 100 (default 25).' }),
  cursor: t.string({ description: 'next_cursor of the previous page.' }),
}));

builder.queryFields((t) => ({
  activity: t.prismaField({
    description: 'One activity by id; not_found when the workspace has none with that id.',
    type: ActivityType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      const activity = await ctx.prisma.activity.findFirst({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!activity) throw notFound('Activity');
      return activity;
    },
  }),
  activities: t.field({
    type: ActivityPage,
    description: 'Activities of the workspace, newest first, filtered and paginated by cursor.',
    args: {
      filter: t.arg({ type: ActivityFilter }),
      where: t.arg({
        type: whereInput(ACTIVITY_WHERE),
        description: 'A filter in the filter language (docs/filtering.md); applies together with `filter`.',
      }),
      ...listArgs,
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      return activityPage(ctx, info, 'activities', await activityWhere(ctx, args.filter, args.where), args);
    },
  }),
  activityFeed: t.field({
    type: ActivityPage,
    description: 'Recent interactions across the workspace, most recent first.',
    args: listArgs,
    resolve: (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      return activityPage(ctx, info, 'activity_feed', { workspaceId: ctx.caller.workspaceId }, args);
    },
  }),
  contactActivities: t.field({
    type: ActivityPage,
    description: 'Activities logged for a contact, newest first.',
    args: { contactId: t.arg.id({ required: true }), ...listArgs },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      const contact = await findContact(ctx.prisma, ctx, String(args.contactId));
      return activityPage(
        ctx,
        info,
        `contact_activities:${contact.id}`,
        { workspaceId: ctx.caller.workspaceId, contactId: contact.id },
        args,
      );
    },
  }),
  companyActivities: t.field({
    type: ActivityPage,
    description:
      'Activities logged for a company and those logged with its contacts (while they are linked), newest first.',
    args: { companyId: t.arg.id({ required: true }), ...listArgs },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      const company = await findCompany(ctx.prisma, ctx, String(args.companyId));
      return activityPage(
        ctx,
        info,
        `company_activities:${company.id}`,
        {
          workspaceId: ctx.caller.workspaceId,
          OR: [{ companyId: company.id }, { contact: { companyId: company.id } }],
        },
        args,
      );
    },
  }),
  dealActivities: t.field({
    type: ActivityPage,
    description: 'Activities logged for a deal, newest first.',
    args: { dealId: t.arg.id({ required: true }), ...listArgs },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'activities', 'read');
      const deal = await ctx.prisma.deal.findFirst({
        where: { id: String(args.dealId), workspaceId: ctx.caller.workspaceId },
        select: { id: true },
      });
      if (!deal) throw notFound('Deal');
      return activityPage(
        ctx,
        info,
        `deal_activities:${deal.id}`,
        { workspaceId: ctx.caller.workspaceId, dealId: deal.id },
        args,
      );
    },
  }),
}));
