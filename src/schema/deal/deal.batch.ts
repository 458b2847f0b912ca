// Deals in batches (POST /v1/deals/batch, batchDeals): upserts by external_id, each operation
// through the single-record writes, so it records the same events (a stage change included).
import { AppError } from '../../errors.ts';
import { dealDeleted } from '../../events/catalogue/deal.events.ts';
import { batchMutation } from '../batch/batch.type.ts';
import type { BatchResource } from '../batch/batch.run.ts';
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';
import { recordDealEvent } from './deal.events.ts';
import { dealCreateInput, dealUpdateInput, type DealCreateInput, type DealUpdateInput } from './deal.inputs.ts';
import { findDeal } from './deal.queries.ts';
import { createDeal, updateDeal } from './deal.write.ts';
import { UPSERT_KEYS } from '../../records/upsert-keys.ts';

export const dealBatch: BatchResource<DealCreateInput, DealUpdateInput> = {
  noun: 'deal',
  createInput: dealCreateInput,
  updateInput: dealUpdateInput,
  uniqueKeys: ['external_id'],
  prepare: async (ctx) => {
    await definitionsLoader(ctx).load(ctx.caller.accountId);
  },
  async find(tx, ctx, key, value) {
    const found = await tx.deal.findFirst({
      where: { workspaceId: ctx.caller.workspaceId, [key === 'id' ? 'id' : 'externalId']: value },
      select: { id: true },
    });
    return found?.id ?? null;
  },
  create: (tx, ctx, input) => createDeal(tx, ctx, input),
  update: (tx, ctx, id, input) => updateDeal(tx, ctx, id, input),
  remove: async (tx, ctx, id) => {
    const deal = await findDeal(tx, ctx, id);
    await tx.deal.delete({ where: { id: deal.id } });
    await recordDealEvent(tx, ctx, dealDeleted.build(deal), deal);
  },
  refusals: { uniqueViolation: () => new AppError('conflict', 'A deal with these values already exists') },
};

export const dealBatchInput = batchMutation(
  'batchDeals',
  'deals',
  { typeName: 'Deal', plural: 'deals', data: dealUpdateInput, upsertKeys: UPSERT_KEYS.deals },
  dealBatch,
);
