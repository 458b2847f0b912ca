import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { COMPANY_WHERE } from '../common/where/resources.ts';
import { allOf, conditionsOf, whereArg } from '../common/where/where.ts';
import { toPrismaWhere } from '../common/where/where.prisma.ts';
import { whereInput } from '../common/where/where.graphql.ts';
import type { Context } from '../context.ts';
import { findPage, offsetCursor, offsetFromCursor, parseLimit, type SortSpec } from '../common/pagination.ts';
import { sortArg } from '../common/sort.ts';
import { cheapTotal, COUNT_ORDER } from '../common/total.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { CONTACT_SORT, toPrefixQuery } from '../contact/contact.queries.ts';
import { searchInput } from '../contact/contact.inputs.ts';
import { ContactPage } from '../contact/contact.type.ts';
import { DEAL_SORT } from '../deal/deal.queries.ts';
import { DealPage } from '../deal/deal.type.ts';
import { companyFilter, normaliseDomain } from './company.inputs.ts';
import { CompanyPage, CompanyType } from './company.type.ts';

const CompanyFilter = zodInput(
  'CompanyFilter',
  companyFilter,
  'Conditions every listed company meets; all given conditions apply.',
);

export const COMPANY_SORT: SortSpec = {
  default: '-created_at',
  fields: {
    created_at: { field: 'createdAt', type: 'date' },
    updated_at: { field: 'updatedAt', type: 'date' },
    name: { field: 'name', type: 'string' },
  },
};

/** Loads a company of the caller's workspace or answers 404 (also for other workspaces' ids). */
export async function findCompany(db: Pick<Context['prisma'], 'company'>, ctx: Context, id: string) {
  const company = await db.company.findUnique({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!company) throw notFound('Company');
  return company;
}

/** The workspace's companies that meet the query-string filter and the `where` filter. */
export async function companyWhere(
  ctx: Context,
  filter: unknown,
  whereInput?: unknown,
): Promise<Prisma.CompanyWhereInput> {
  const f = parseInput(companyFilter, filter ?? {});
  const legacy = conditionsOf(COMPANY_WHERE, [
    ['name', 'contains', f.name],
    // A form no company can have stored (not a domain) matches none.
    ['domain', 'eq', f.domain === undefined ? undefined : (normaliseDomain(f.domain) ?? f.domain)],
    ['industry', 'eq', f.industry],
    ['owner_id', 'eq', f.owner_id],
    ...(f.tags ?? []).map((tag) => ['tags', 'contains', tag] as ['tags', 'contains', string]),
    ['created_at', 'gte', f.created_after],
    ['created_at', 'lte', f.created_before],
    ['updated_at', 'gte', f.updated_after],
  ]);
  const where = allOf(legacy, await whereArg(ctx, COMPANY_WHERE, whereInput));
  return { workspaceId: ctx.caller.workspaceId, ...toPrismaWhere(where, ctx.caller.workspaceId) };
}

builder.queryFields((t) => ({
  company: t.prismaField({
    description: 'One company by id; not_found when the workspace has none with that id.',
    type: CompanyType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'read');
      const company = await ctx.prisma.company.findUnique({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!company) throw notFound('Company');
      return company;
    },
  }),
  companies: t.field({
    type: CompanyPage,
    description: 'Companies of the workspace, filtered, sorted and paginated by cursor.',
    args: {
      filter: t.arg({ type: CompanyFilter }),
      where: t.arg({
        type: whereInput(COMPANY_WHERE),
        description: 'A filter in the filter language (docs/filtering.md); applies together with `filter`.',
      }),
      sort: sortArg(t, 'CompanySort', COMPANY_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'companies', 'read');
      return findPage(args, COMPANY_SORT, {
        list: 'companies',
        where: await companyWhere(ctx, args.filter, args.where),
        // Relations asked for under `nodes` (owner, contacts, deals) are loaded with the page.
        fetch: (q) =>
          ctx.prisma.company.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
            ...q,
          } as Prisma.CompanyFindManyArgs),
        count: cheapTotal('companies', (w, take) =>
          ctx.prisma.company.count({ where: w, take, orderBy: take ? COUNT_ORDER : undefined }),
        ),
      });
    },
  }),
  searchCompanies: t.field({
    type: CompanyPage,
    description: 'Full-text search over names, domains, industries and custom field values; best match first.',
    args: { q: t.arg.string({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'companies', 'read');
      const { q } = parseInput(searchInput, { q: args.q });
      const limit = parseLimit(args.limit);
      const offset = offsetFromCursor('company_search', args.cursor);
      const query = toPrefixQuery(q);
      const ws = ctx.caller.workspaceId;
      const hits = await ctx.prisma.$queryRaw<{ id: string }[]>`
        SELECT id FROM companies
        WHERE workspace_id = ${ws} AND search_vector @@ to_tsquery('simple', ${query})
        ORDER BY ts_rank(search_vector, to_tsquery('simple', ${query})) DESC, created_at DESC, id
        LIMIT ${limit + 1} OFFSET ${offset}`;
      const ids = hits.slice(0, limit).map((h) => h.id);
      const rows = await ctx.prisma.company.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
        where: { id: { in: ids } },
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const hasMore = hits.length > limit;
      return {
        nodes: ids.map((id) => byId.get(id)).filter((c) => c !== undefined),
        limit,
        hasMore,
        nextCursor: hasMore ? offsetCursor('company_search', offset + limit) : null,
        total: async () => {
          const [{ n }] = await ctx.prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM companies
            WHERE workspace_id = ${ws} AND search_vector @@ to_tsquery('simple', ${query})`;
          return n;
        },
      };
    },
  }),
  companyContacts: t.field({
    type: ContactPage,
    description: 'Contacts linked to a company, sorted and paginated like contacts.',
    args: {
      companyId: t.arg.id({ required: true }),
      sort: sortArg(t, 'ContactSort', CONTACT_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      // Contact data, as a contact's deals are deal data (GET /v1/contacts/:id/deals needs deals:read).
      assertAllowed(ctx.caller, 'contacts', 'read');
      const company = await findCompany(ctx.prisma, ctx, String(args.companyId));
      return findPage(args, CONTACT_SORT, {
        list: `company_contacts:${company.id}`,
        where: { workspaceId: ctx.caller.workspaceId, companyId: company.id },
        fetch: (q) =>
          ctx.prisma.contact.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
            ...q,
          } as Prisma.ContactFindManyArgs),
        count: (where) => ctx.prisma.contact.count({ where }),
      });
    },
  }),
  companyDeals: t.field({
    type: DealPage,
    description: 'Deals with a company, sorted and paginated like deals.',
    args: {
      companyId: t.arg.id({ required: true }),
      sort: sortArg(t, 'DealSort', DEAL_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      const company = await findCompany(ctx.prisma, ctx, String(args.companyId));
      return findPage(args, DEAL_SORT, {
        list: `company_deals:${company.id}`,
        where: { workspaceId: ctx.caller.workspaceId, companyId: company.id },
        fetch: (q) =>
          ctx.prisma.deal.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
            ...q,
          } as Prisma.DealFindManyArgs),
        count: (where) => ctx.prisma.deal.count({ where }),
      });
    },
  }),
}));
