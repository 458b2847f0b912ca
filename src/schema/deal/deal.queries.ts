import type { GraphQLResolveInfo } from 'graphql';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPage, type ListArgs, type SortSpec } from '../common/pagination.ts';
import { cheapTotal, COUNT_ORDER } from '../common/total.ts';
import { parseInput } from '../common/validation.ts';
import { findContact } from '../contact/contact.queries.ts';
import { dealFilter } from './deal.inputs.ts';
import { DealPage, DealType } from './deal.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { sortArg } from '../common/sort.ts';
import { DEAL_WHERE } from '../common/where/resources.ts';
import { allOf, conditionsOf, whereArg } from '../common/where/where.ts';
import { toPrismaWhere } from '../common/where/where.prisma.ts';
import { whereInput } from '../common/where/where.graphql.ts';

const DealFilter = zodInput(
  'DealFilter',
  dealFilter,
  'Conditions every listed deal meets; all given conditions apply.',
);

export const DEAL_SORT: SortSpec = {
  default: '-created_at',
  fields: {
    created_at: { field: 'createdAt', type: 'date' },
    updated_at: { field: 'updatedAt', type: 'date' },
    value: { field: 'value', type: 'number', nullable: true },
    expected_close_date: { field: 'expectedCloseDate', type: 'date', nullable: true },
  },
};

/** Loads a deal of the caller's workspace, with its stage name, or answers 404. */
export async function findDeal(db: Pick<Context['prisma'], 'deal'>, ctx: Context, id: string) {
  const deal = await db.deal.findFirst({
    where: { id, workspaceId: ctx.caller.workspaceId },
    include: { stage: { select: { name: true } } },
  });
  if (!deal) throw notFound('Deal');
  return deal;
}

/** The workspace's deals that meet the query-string filter and the `where` filter. */
export async function dealWhere(ctx: Context, filter: unknown, whereInput?: unknown): Promise<Prisma.DealWhereInput> {
  const f = parseInput(dealFilter, filter ?? {});
  const legacy = conditionsOf(DEAL_WHERE, [
    ['pipeline_id', 'eq', f.pipeline_id],
    ['stage_id', 'eq', f.stage_id],
    ['owner_id', 'eq', f.owner_id],
    ['contact_id', 'eq', f.contact_id],
    ['status', 'eq', f.status],
    ['value', 'gte', f.min_value],
    ['value', 'lte', f.max_value],
    ['expected_close_date', 'gte', f.expected_close_after],
    ['expected_close_date', 'lte', f.expected_close_before],
    ['external_id', 'eq', f.external_id],
  ]);
  const where = allOf(legacy, await whereArg(ctx, DEAL_WHERE, whereInput));
  return { workspaceId: ctx.caller.workspaceId, ...toPrismaWhere(where, ctx.caller.workspaceId) };
}

/** A page of deals; relations the query asks for under `nodes` are loaded with them, not per deal. */
function dealPage(ctx: Context, info: GraphQLResolveInfo, list: string, args: ListArgs, where: Prisma.DealWhereInput) {
  return findPage(args, DEAL_SORT, {
    list,
    where: where as Record<string, unknown>,
    fetch: (q) =>
      ctx.prisma.deal.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
        ...q,
      } as Prisma.DealFindManyArgs),
    count: cheapTotal('deals', (w, take) =>
      ctx.prisma.deal.count({ where: w, take, orderBy: take ? COUNT_ORDER : undefined }),
    ),
  });
}

builder.queryFields((t) => ({
  deal: t.prismaField({
    type: DealType,
    description: 'One deal with its custom fields, associated contacts and stage history.',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      const deal = await ctx.prisma.deal.findFirst({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!deal) throw notFound('Deal');
      return deal;
    },
  }),
  deals: t.field({
    type: DealPage,
    description: 'Deals of the workspace, filtered, sorted and paginated by cursor.',
    args: {
      filter: t.arg({ type: DealFilter }),
      where: t.arg({
        type: whereInput(DEAL_WHERE),
        description: 'A filter in the filter language (docs/filtering.md); applies together with `filter`.',
      }),
      sort: sortArg(t, 'DealSort', DEAL_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      return dealPage(ctx, info, 'deals', args, await dealWhere(ctx, args.filter, args.where));
    },
  }),
  contactDeals: t.field({
    type: DealPage,
    description: 'Deals a contact is associated with, as primary contact or in another role.',
    args: {
      contactId: t.arg.id({ required: true }),
      sort: sortArg(t, 'DealSort', DEAL_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      const contact = await findContact(ctx.prisma, ctx, String(args.contactId));
      return dealPage(ctx, info, `contact_deals:${contact.id}`, args, {
        workspaceId: ctx.caller.workspaceId,
        OR: [{ contactId: contact.id }, { dealContacts: { some: { contactId: contact.id } } }],
      });
    },
  }),
}));
