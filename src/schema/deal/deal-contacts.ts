// Contacts associated with a deal, each with a role. The primary contact (the deal's
// contact_id) is one of them, marked is_primary.
import { transaction } from '../../db/transaction.ts';
import { queryFromInfo } from '@pothos/plugin-prisma';
import { assertAllowed } from '../../auth/scopes.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { DeleteResult } from '../common/page.ts';
import { offsetCursor, offsetFromCursor, parseLimit } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { recordDealEvent } from './deal.events.ts';
import { dealContactAdded, dealContactRemoved } from '../../events/catalogue/deal.events.ts';
import { dealContactInput } from './deal.inputs.ts';
import { findDeal } from './deal.queries.ts';
import { assertContactExists, DEAL_REFUSALS } from './deal.references.ts';
import { DealContactPage, DealContactType } from './deal.type.ts';
import { updateDeal } from './deal.write.ts';
import { zodInput } from '../common/zod-input.ts';

const DealContactInput = zodInput(
  'DealContactInput',
  dealContactInput,
  'A contact of the workspace to associate with the deal, and its role.',
);

const alreadyAssociated = () =>
  new AppError('conflict', 'The contact is already associated with the deal', {
    contact_id: ['is already associated'],
  });

builder.queryField('dealContacts', (t) =>
  t.field({
    type: DealContactPage,
    description: 'Contacts of a deal with their roles, the primary first.',
    args: { dealId: t.arg.id({ required: true }), limit: t.arg.int(), cursor: t.arg.string() },
    resolve: async (_root, args, ctx, info) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      const deal = await findDeal(ctx.prisma, ctx, String(args.dealId));
      const limit = parseLimit(args.limit);
      // Associations have no id of their own to key a cursor on; a deal has few, so offsets do.
      const offset = offsetFromCursor(`deal_contacts:${deal.id}`, args.cursor);
      const rows = await ctx.prisma.dealContact.findMany({
        ...queryFromInfo({ context: ctx, info, path: ['nodes'] }),
        where: { dealId: deal.id },
        orderBy: [{ isPrimary: 'desc' }, { createdAt: 'asc' }, { contactId: 'asc' }],
        skip: offset,
        take: limit + 1,
      } as Prisma.DealContactFindManyArgs);
      const hasMore = rows.length > limit;
      return {
        nodes: rows.slice(0, limit),
        limit,
        hasMore,
        nextCursor: hasMore ? offsetCursor(`deal_contacts:${deal.id}`, offset + limit) : null,
        total: () => ctx.prisma.dealContact.count({ where: { dealId: deal.id } }),
      };
    },
  }),
);

builder.mutationFields((t) => ({
  addDealContact: t.field({
    type: DealContactType,
    description: 'Associates a contact with a deal, in a role.',
    args: { dealId: t.arg.id({ required: true }), input: t.arg({ type: DealContactInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      const input = parseInput(dealContactInput, args.input);
      // Two requests adding the same contact at once: the second meets the primary key.
      const refusals = { ...DEAL_REFUSALS, uniqueViolation: alreadyAssociated };
      return transaction(
        ctx.prisma,
        async (tx) => {
          const deal = await findDeal(tx, ctx, String(args.dealId));
          await assertContactExists(tx, ctx, input.contact_id);
          const key = { dealId_contactId: { dealId: deal.id, contactId: input.contact_id } };
          if (await tx.dealContact.findUnique({ where: key })) throw alreadyAssociated();
          const row = await tx.dealContact.create({ data: { ...key.dealId_contactId, role: input.role ?? null } });
          const event = dealContactAdded.build({ deal, contactId: row.contactId, role: row.role });
          await recordDealEvent(tx, ctx, event, deal, { contactId: row.contactId });
          return row;
        },
        refusals,
      );
    },
  }),
  removeDealContact: t.field({
    type: DeleteResult,
    description:
      "Removes a contact from a deal; removing the primary contact clears the deal's contact_id. " +
      '`id` in the result is the contact id.',
    args: { dealId: t.arg.id({ required: true }), contactId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      return transaction(
        ctx.prisma,
        async (tx) => {
          let deal = await findDeal(tx, ctx, String(args.dealId));
          const key = { dealId_contactId: { dealId: deal.id, contactId: String(args.contactId) } };
          const row = await tx.dealContact.findUnique({ where: key });
          if (!row) throw notFound('Deal contact');
          await tx.dealContact.delete({ where: key });
          if (deal.contactId === row.contactId) deal = await updateDeal(tx, ctx, deal.id, { contact_id: null });
          await recordDealEvent(
            tx,
            ctx,
            dealContactRemoved.build({ deal, contactId: row.contactId, role: row.role }),
            deal,
            { contactId: row.contactId },
          );
          return { id: row.contactId, deleted: true as const };
        },
        DEAL_REFUSALS,
      );
    },
  }),
}));
