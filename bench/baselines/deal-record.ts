// A deal as the REST list shows it (the fields of ListDeals), from a row with its stage name.
import type { Deal } from '../../src/db/generated/client/client.ts';

const day = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

export function dealRecord(d: Deal & { stage: { name: string } }) {
  return {
    id: d.id,
    title: d.title,
    pipeline_id: d.pipelineId,
    stage_id: d.stageId,
    stage_name: d.stage.name,
    value: d.value === null ? null : Number(d.value),
    currency: d.currency,
    probability: d.probability,
    owner_id: d.ownerId,
    contact_id: d.contactId,
    expected_close_date: day(d.expectedCloseDate),
    status: d.status,
    custom_fields: d.customFields,
    tags: d.tags,
    won_reason: d.wonReason,
    lost_reason: d.lostReason,
    competitor: d.competitor,
    closed_at: d.closedAt?.toISOString() ?? null,
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
