// The writes behind the deal mutations: each runs inside the caller's transaction and records
// its events there. Every change writes deal.updated (what changed, and the previous values),
// plus deal.stage_changed, deal.won or deal.lost when the change is one of those.
import type { Prisma } from '../../db/generated/client/client.ts';
import { newId } from '../../ids.ts';
import { actorOf, type Context } from '../context.ts';
import { assertActiveUser } from '../user/user.rules.ts';
import { recordDealEvent } from './deal.events.ts';
import {
  dealContactAdded,
  dealCreated,
  dealLost,
  dealStageChanged,
  dealUpdated,
  dealWon,
} from '../../events/catalogue/deal.events.ts';
import type { DealCreateInput, DealUpdateInput } from './deal.inputs.ts';
import { findDeal } from './deal.queries.ts';
import { dealRecord, withStageName, type DealWithStage } from '../../records/deal.ts';
import { assertContactExists, pipelineStages } from './deal.references.ts';
import { linkedCompany } from '../company/company.references.ts';
import { customFieldsFor } from '../custom-field/custom-field.values.ts';
import { applyStatus, chooseStage, type StageRef } from './deal.rules.ts';
import { assertVersion } from '../common/versions.ts';

type Tx = Prisma.TransactionClient;

export async function createDeal(tx: Tx, ctx: Context, input: DealCreateInput) {
  const stage = chooseStage(await pipelineStages(tx, ctx, input.pipeline_id), input.stage_id);
  await assertContactExists(tx, ctx, input.contact_id);
  if (input.company_id) await linkedCompany(tx, ctx, input.company_id);
  await assertActiveUser(tx, ctx, input.owner_id, 'owner_id');
  const deal = await tx.deal.create({
    data: {
      id: newId('deal'),
      workspaceId: ctx.caller.workspaceId,
      title: input.title,
      pipelineId: input.pipeline_id,
      stageId: stage.id,
      value: input.value ?? null,
      currency: input.currency ?? ctx.caller.currency,
      probability: input.probability ?? null,
      ownerId: input.owner_id ?? null,
      contactId: input.contact_id ?? null,
      companyId: input.company_id ?? null,
      expectedCloseDate: input.expected_close_date ?? null,
      customFields: (await customFieldsFor(tx, ctx, input.custom_fields)) as Prisma.InputJsonObject,
      tags: input.tags ?? [],
      externalId: input.external_id ?? null,
    },
    include: withStageName,
  });
  if (deal.contactId)
    await tx.dealContact.create({ data: { dealId: deal.id, contactId: deal.contactId, isPrimary: true } });
  await recordStageHistory(tx, ctx, deal.id, null, stage, null);
  await recordDealEvent(tx, ctx, dealCreated.build(deal), deal);
  return deal;
}

export async function updateDeal(
  tx: Tx,
  ctx: Context,
  id: string,
  input: DealUpdateInput,
  expectedVersion?: number | null,
) {
  await assertVersion(tx, 'deals', id, ctx.caller.workspaceId, expectedVersion);
  const before = await findDeal(tx, ctx, id);
  // A new pipeline without a stage_id puts the deal in that pipeline's first stage.
  const placing = input.pipeline_id !== undefined || input.stage_id !== undefined;
  const stage = placing
    ? chooseStage(await pipelineStages(tx, ctx, input.pipeline_id ?? before.pipelineId), input.stage_id, before.stageId)
    : null;
  await assertContactExists(tx, ctx, input.contact_id);
  if (input.company_id) await linkedCompany(tx, ctx, input.company_id);
  await assertActiveUser(tx, ctx, input.owner_id, 'owner_id');
  const { fields: statusFields, transition } = applyStatus(before, input, new Date());
  const after = await tx.deal.update({
    where: { id: before.id },
    data: {
      title: input.title,
      pipelineId: input.pipeline_id,
      stageId: stage?.id,
      value: input.value,
      currency: input.currency,
      probability: input.probability,
      ownerId: input.owner_id,
      contactId: input.contact_id,
      companyId: input.company_id,
      expectedCloseDate: input.expected_close_date,
      tags: input.tags,
      externalId: input.external_id,
      customFields: input.custom_fields
        ? ((await customFieldsFor(
            tx,
            ctx,
            input.custom_fields,
            before.customFields as Record<string, unknown>,
          )) as Prisma.InputJsonObject)
        : undefined,
      ...statusFields,
    },
    include: withStageName,
  });
  const added = input.contact_id !== undefined ? await setPrimaryContact(tx, after.id, after.contactId) : null;

  if (!(await recordUpdate(tx, ctx, before, after))) return after;
  if (after.stageId !== before.stageId) await recordStageChange(tx, ctx, before, after, null);
  if (transition === 'won' || transition === 'lost') {
    const closed = transition === 'won' ? dealWon : dealLost;
    await recordDealEvent(tx, ctx, closed.build({ deal: after, previousStatus: before.status }), after);
  }
  if (added)
    await recordDealEvent(tx, ctx, dealContactAdded.build({ deal: after, contactId: added, role: null }), after, {
      contactId: added,
    });
  return after;
}

/** PUT /deals/:id/stage: a move within the deal's pipeline, with an optional note. */
export async function moveDealStage(
  tx: Tx,
  ctx: Context,
  id: string,
  stageId: string,
  note: string | null,
  expectedVersion?: number | null,
) {
  await assertVersion(tx, 'deals', id, ctx.caller.workspaceId, expectedVersion);
  const before = await findDeal(tx, ctx, id);
  const stage = chooseStage(await pipelineStages(tx, ctx, before.pipelineId), stageId);
  if (stage.id === before.stageId) return before;
  const after = await tx.deal.update({ where: { id: before.id }, data: { stageId: stage.id }, include: withStageName });
  await recordUpdate(tx, ctx, before, after);
  await recordStageChange(tx, ctx, before, after, note);
  return after;
}

/**
 * Keeps deal_contacts in step with the primary contact: the new one is marked primary (and
 * associated if it was not), the previous one stays associated without the mark.
 * Returns the contact id when it was newly associated.
 */
async function setPrimaryContact(tx: Tx, dealId: string, contactId: string | null): Promise<string | null> {
  const others = contactId ? { contactId: { not: contactId } } : {};
  await tx.dealContact.updateMany({ where: { dealId, isPrimary: true, ...others }, data: { isPrimary: false } });
  if (!contactId) return null;
  const existing = await tx.dealContact.findUnique({ where: { dealId_contactId: { dealId, contactId } } });
  if (existing) {
    if (!existing.isPrimary)
      await tx.dealContact.update({ where: { dealId_contactId: { dealId, contactId } }, data: { isPrimary: true } });
    return null;
  }
  await tx.dealContact.create({ data: { dealId, contactId, isPrimary: true } });
  return contactId;
}

// Fields that change on their own with others and are not reported as changes.
const DERIVED = new Set(['updated_at', 'closed_at', 'stage_name', 'version']);

/** Writes deal.updated with the changed fields; false when nothing changed. */
async function recordUpdate(tx: Tx, ctx: Context, before: DealWithStage, after: DealWithStage): Promise<boolean> {
  const previous = dealRecord(before);
  const current = dealRecord(after);
  const fields = Object.keys(current) as (keyof typeof current)[];
  const changes = fields.filter((k) => !DERIVED.has(k) && JSON.stringify(previous[k]) !== JSON.stringify(current[k]));
  if (changes.length === 0) return false;
  await recordDealEvent(tx, ctx, dealUpdated.build({ deal: after, before, changes }), after);
  return true;
}

type StageName = Pick<StageRef, 'id' | 'name'>;

async function recordStageHistory(
  tx: Tx,
  ctx: Context,
  dealId: string,
  from: StageName | null,
  to: StageName,
  note: string | null,
) {
  await tx.stageHistory.create({
    data: {
      id: newId('sth'),
      dealId,
      fromStageId: from?.id ?? null,
      fromStageName: from?.name ?? null,
      toStageId: to.id,
      toStageName: to.name,
      note,
      changedBy: { ...actorOf(ctx) },
    },
  });
}

/**
 * The history entry and deal.stage_changed, whose deal record also names the previous stage, the
 * pipeline and the owner (the record format shows names, and the event must carry them as they
 * were at the change).
 */
async function recordStageChange(
  tx: Tx,
  ctx: Context,
  before: DealWithStage,
  after: DealWithStage,
  note: string | null,
) {
  const from = { id: before.stageId, name: before.stage.name };
  await recordStageHistory(tx, ctx, after.id, from, { id: after.stageId, name: after.stage.name }, note);
  const [pipeline, owner] = await Promise.all([
    tx.pipeline.findUniqueOrThrow({ where: { id: after.pipelineId }, select: { name: true } }),
    after.ownerId ? tx.user.findUnique({ where: { id: after.ownerId }, select: { name: true } }) : null,
  ]);
  const event = dealStageChanged.build({
    deal: after,
    previousStage: from,
    pipelineName: pipeline.name,
    ownerName: owner?.name ?? null,
    changedBy: actorOf(ctx),
    note,
  });
  await recordDealEvent(tx, ctx, event, after);
}
