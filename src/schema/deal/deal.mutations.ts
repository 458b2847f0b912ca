import { assertAllowed } from '../../auth/scopes.ts';
import { builder } from '../builder.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import { recordDealEvent } from './deal.events.ts';
import { dealDeleted } from '../../events/catalogue/deal.events.ts';
import { dealCreateInput, dealUpdateInput, moveStageInput } from './deal.inputs.ts';
import { findDeal } from './deal.queries.ts';
import { DEAL_REFUSALS, dealRefusals } from './deal.references.ts';
import { assertVersion, EXPECTED_VERSION_HELP } from '../common/versions.ts';
import { transaction } from '../../db/transaction.ts';
import { DealType } from './deal.type.ts';
import { createDeal, moveDealStage, updateDeal } from './deal.write.ts';
import { zodInput } from '../common/zod-input.ts';

const DealCreateInput = zodInput(
  'DealCreateInput',
  dealCreateInput,
  'A new open deal: title and pipeline_id are required; without stage_id it starts in the first stage.',
);
const DealUpdateInput = zodInput(
  'DealUpdateInput',
  dealUpdateInput,
  'Fields to change, status (with won_reason, lost_reason, competitor) included; those left out keep their values.',
);
const DealStageMoveInput = zodInput(
  'DealStageMoveInput',
  moveStageInput,
  'The stage of the same pipeline to move the deal to, and an optional note for its stage history.',
);

builder.mutationFields((t) => ({
  createDeal: t.field({
    type: DealType,
    description: 'Creates an open deal (title and pipeline_id required).',
    args: { input: t.arg({ type: DealCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      const input = parseInput(dealCreateInput, args.input);
      return transaction(ctx.prisma, (tx) => createDeal(tx, ctx, input), dealRefusals(ctx, input.external_id));
    },
  }),
  updateDeal: t.field({
    type: DealType,
    description:
      'Partial update, including status (won_reason, lost_reason, competitor) and pipeline or stage changes.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: DealUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      const input = parseInput(dealUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => updateDeal(tx, ctx, String(args.id), input, args.expected_version),
        dealRefusals(ctx, input.external_id),
      );
    },
  }),
  moveDealStage: t.field({
    type: DealType,
    description: 'Moves a deal to another stage of its pipeline and records it in the stage history.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: DealStageMoveInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      const input = parseInput(moveStageInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => moveDealStage(tx, ctx, String(args.id), input.stage_id, input.note ?? null, args.expected_version),
        DEAL_REFUSALS,
      );
    },
  }),
  deleteDeal: t.field({
    type: DeleteResult,
    description: 'Deletes a deal with its contact associations and stage history. Irreversible.',
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'write');
      return transaction(
        ctx.prisma,
        async (tx) => {
          await assertVersion(tx, 'deals', String(args.id), ctx.caller.workspaceId, args.expected_version);
          const deal = await findDeal(tx, ctx, String(args.id));
          await tx.deal.delete({ where: { id: deal.id } });
          await recordDealEvent(tx, ctx, dealDeleted.build(deal), deal);
          return { id: deal.id, deleted: true as const };
        },
        DEAL_REFUSALS,
      );
    },
  }),
}));
