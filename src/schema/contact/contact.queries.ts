import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertAllowed } from '../../auth/scopes.ts';
import { notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPage, offsetCursor, offsetFromCursor, parseLimit, type SortSpec } from '../common/pagination.ts';
import { cheapTotal, COUNT_ORDER } from '../common/total.ts';
import { parseInput } from '../common/validation.ts';
import { contactFilter, searchInput } from './contact.inputs.ts';
import { sortArg } from '../common/sort.ts';
import { zodInput } from '../common/zod-input.ts';
import { CONTACT_WHERE } from '../common/where/resources.ts';
import { allOf, conditionsOf, whereArg } from '../common/where/where.ts';
import { toPrismaWhere } from '../common/where/where.prisma.ts';
import { whereInput } from '../common/where/where.graphql.ts';

const ContactFilter = zodInput(
  'ContactFilter',
  contactFilter,
  'Conditions every listed contact meets; all given conditions apply.',
);
import { ContactPage, ContactType } from './contact.type.ts';

export const CONTACT_SORT: SortSpec = {
  default: '-created_at',
  fields: {
    created_at: { field: 'createdAt', type: 'date' },
    updated_at: { field: 'updatedAt', type: 'date' },
    first_name: { field: 'firstName', type: 'string' },
    last_name: { field: 'lastName', type: 'string', nullable: true },
    company: { field: 'company', type: 'string', nullable: true },
  },
};

/** Loads a contact of the caller's workspace or answers 404 (also for other workspaces' ids). */
export async function findContact(db: Pick<Context['prisma'], 'contact'>, ctx: Context, id: string) {
  const contact = await db.contact.findUnique({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!contact) throw notFound('Contact');
  return contact;
}

/** The workspace's contacts that meet the query-string filter and the `where` filter. */
export async function contactWhere(
  ctx: Context,
  filter: unknown,
  whereInput: unknown,
): Promise<Prisma.ContactWhereInput> {
  const f = parseInput(contactFilter, filter ?? {});
  const legacy = conditionsOf(CONTACT_WHERE, [
    ['status', 'eq', f.status],
    ['source', 'eq', f.source],
    ['assigned_to', 'eq', f.assigned_to],
    ...(f.tags ?? []).map((tag) => ['tags', 'contains', tag] as ['tags', 'contains', string]),
    ['company', 'contains', f.company],
    ['created_at', 'gte', f.created_after],
    ['created_at', 'lte', f.created_before],
    ['updated_at', 'gte', f.updated_after],
    ['external_id', 'eq', f.external_id],
  ]);
  const where = allOf(legacy, await whereArg(ctx, CONTACT_WHERE, whereInput));
  return { workspaceId: ctx.caller.workspaceId, ...toPrismaWhere(where, ctx.caller.workspaceId) };
}

builder.queryFields((t) => ({
  contact: t.prismaField({
    description: 'One contact by id; not_found when the workspace has none with that id.',
    type: ContactType,
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      // findUnique: Prisma reuses its plan for lookups by a unique key (and batches those of one tick).
      const contact = await ctx.prisma.contact.findUnique({
        ...query,
        where: { id: String(args.id), workspaceId: ctx.caller.workspaceId },
      });
      if (!contact) throw notFound('Contact');
      return contact;
    },
  }),
  contacts: t.field({
    type: ContactPage,
    description: 'Contacts of the workspace, filtered, sorted and paginated by cursor.',
    args: {
      filter: t.arg({ type: ContactFilter }),
      where: t.arg({
        type: whereInput(CONTACT_WHERE),
        description: 'A filter in the filter language (docs/filtering.md); applies together with `filter`.',
      }),
      sort: sortArg(t, 'ContactSort', CONTACT_SORT),
      limit: t.arg.int(),
      cursor: t.arg.string(),
    },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      const where = await contactWhere(ctx, args.filter, args.where);
      return findPage(args, CONTACT_SORT, {
        list: 'contacts',
        where,
        // Relations asked for under `nodes` (deals, assigned_user) are loaded with the page.
        fetch: (q) =>
          ctx.prisma.contact.findMany({
            ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
            ...q,
          } as Prisma.ContactFindManyArgs),
        count: cheapTotal('contacts', (w, take) =>
          ctx.prisma.contact.count({ where: w, take, orderBy: take ? COUNT_ORDER : undefined }),
        ),
      });
    },
  }),
  searchContacts: t.field({
    type: ContactPage,
    description: 'Full-text search over names, emails, companies and custom field values; best match first.',
    args: { q: t.arg.string({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      const { q } = parseInput(searchInput, { q: args.q });
      const limit = parseLimit(args.limit);
      const offset = offsetFromCursor('contact_search', args.cursor);
      const query = toPrefixQuery(q);
      const ws = ctx.caller.workspaceId;
      const hits = await ctx.prisma.$queryRaw<{ id: string }[]>`
        SELECT id FROM contacts
        WHERE workspace_id = ${ws} AND search_vector @@ to_tsquery('simple', ${query})
        ORDER BY ts_rank(search_vector, to_tsquery('simple', ${query})) DESC, created_at DESC, id
        LIMIT ${limit + 1} OFFSET ${offset}`;
      const ids = hits.slice(0, limit).map((h) => h.id);
      const rows = await ctx.prisma.contact.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
        where: { id: { in: ids } },
      });
      const byId = new Map(rows.map((r) => [r.id, r]));
      const hasMore = hits.length > limit;
      return {
        nodes: ids.map((id) => byId.get(id)).filter((c) => c !== undefined),
        limit,
        hasMore,
        nextCursor: hasMore ? offsetCursor('contact_search', offset + limit) : null,
        total: async () => {
          const [{ n }] = await ctx.prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM contacts
            WHERE workspace_id = ${ws} AND search_vector @@ to_tsquery('simple', ${query})`;
          return n;
        },
      };
    },
  }),
}));

/** Every word must match, each as a prefix, so "gra hop" finds "Grace Hopper". */
export function toPrefixQuery(q: string): string {
  return q
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => `'${word.replace(/\\/g, '\\\\').replace(/'/g, "''")}':*`)
    .join(' & ');
}
