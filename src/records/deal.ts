// A deal on the wire: its statuses and the snake_case record events and webhook payloads carry.
// Below the GraphQL schema, so the event catalogue can use it without loading it.
import type { Deal, Prisma } from '../db/generated/client/client.ts';

export const DEAL_STATUSES = ['open', 'won', 'lost'] as const;

export type DealWithStage = Deal & { stage: { name: string } };

/** Loads the stage name with the deal, for `dealRecord`. */
export const withStageName = { stage: { select: { name: true } } } as const;

export function dealRecord(d: DealWithStage) {
  return {
    id: d.id,
    title: d.title,
    value: d.value?.toNumber() ?? null,
    currency: d.currency,
    pipeline_id: d.pipelineId,
    stage_id: d.stageId,
    stage_name: d.stage.name,
    probability: d.probability,
    owner_id: d.ownerId,
    contact_id: d.contactId,
    company_id: d.companyId,
    // YYYY-MM-DD of a date column (stored as UTC midnight); computed here rather than imported
    // from deal.type.ts so the event catalogue does not load the GraphQL types.
    expected_close_date: d.expectedCloseDate?.toISOString().slice(0, 10) ?? null,
    status: d.status,
    won_reason: d.wonReason,
    lost_reason: d.lostReason,
    competitor: d.competitor,
    tags: d.tags,
    custom_fields: d.customFields as Prisma.InputJsonObject,
    closed_at: d.closedAt?.toISOString() ?? null,
    external_id: d.externalId,
    version: d.version,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
