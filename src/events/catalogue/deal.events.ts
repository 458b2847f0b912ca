// Deal events. `data.deal` is the deal after the change (before it, for a deletion). Every change
// writes deal.updated; a stage move, a win or a loss also writes its own event.
import { z } from 'zod';
import { DEAL_STATUSES } from '../../records/deal.ts';
import { dealRecord, type DealWithStage } from '../../records/deal.ts';
import type { Actor } from '../outbox.ts';
import { defineEvent } from './define.ts';
import { ActorSchema, changedFields, DealRecordSchema, previousValues } from './records.ts';
import { SAMPLE_ACTOR, sampleDeal } from './samples.ts';

type DealField = keyof ReturnType<typeof dealRecord>;
type DealStatus = (typeof DEAL_STATUSES)[number];

const dealOnly = z.object({ deal: DealRecordSchema });

export const dealCreated = defineEvent({
  name: 'deal.created',
  entityType: 'deal',
  description: 'A deal was created.',
  data: dealOnly,
  build: (deal: DealWithStage) => ({ deal: dealRecord(deal) }),
  sampleInput: () => sampleDeal(),
});

export const dealUpdated = defineEvent({
  name: 'deal.updated',
  entityType: 'deal',
  description:
    'Fields of a deal changed (stage moves, wins and losses included); ' +
    '`changes` names them and `previous` holds their values before.',
  data: z.object({
    deal: DealRecordSchema,
    changes: changedFields(DealRecordSchema),
    previous: previousValues(DealRecordSchema),
  }),
  build: ({ deal, before, changes }: { deal: DealWithStage; before: DealWithStage; changes: DealField[] }) => {
    const was = dealRecord(before);
    return { deal: dealRecord(deal), changes, previous: Object.fromEntries(changes.map((f) => [f, was[f] ?? null])) };
  },
  sampleInput: () => ({
    deal: sampleDeal({ value: sampleDeal().value!.plus(500) }),
    before: sampleDeal(),
    changes: ['value'] as DealField[],
  }),
});

const StageChangedDeal = DealRecordSchema.extend({
  previous_stage_id: z.string(),
  previous_stage_name: z.string(),
  pipeline_name: z.string(),
  owner_name: z.string().nullable().describe("The owner's name; null when the deal has no owner"),
}).describe("The deal after the move, with the stage it left, its pipeline's name and its owner's name");

type StageChangedData = { deal: z.output<typeof StageChangedDeal> };

/** Envelope B's deal.stage_changed: names, not ids, as the integration guide shows it. */
const StageChangedRecord = z
  .object({
    id: z.string(),
    title: z.string(),
    value: z.number().nullable(),
    currency: z.string(),
    previous_stage: z.string().describe('The name of the stage the deal left'),
    new_stage: z.string().describe('The name of the stage the deal is in now'),
    pipeline: z.string().describe("The pipeline's name"),
    owner: z.object({ id: z.string(), name: z.string() }).nullable(),
    version: z.int().describe("The deal's version after the move"),
  })
  .describe('The deal that moved, with stage and pipeline names');

export const dealStageChanged = defineEvent({
  name: 'deal.stage_changed',
  entityType: 'deal',
  description: 'A deal moved to another stage (written with its deal.updated).',
  data: z.object({
    deal: StageChangedDeal,
    changed_by: ActorSchema,
    note: z.string().nullable().describe('The note given with the move'),
  }),
  build: (i: {
    deal: DealWithStage;
    previousStage: { id: string; name: string };
    pipelineName: string;
    ownerName: string | null;
    changedBy: Actor;
    note: string | null;
  }) => ({
    deal: {
      ...dealRecord(i.deal),
      previous_stage_id: i.previousStage.id,
      previous_stage_name: i.previousStage.name,
      pipeline_name: i.pipelineName,
      owner_name: i.ownerName,
    },
    changed_by: { ...i.changedBy },
    note: i.note,
  }),
  sampleInput: () => ({
    deal: sampleDeal(),
    previousStage: { id: 'stg_sample_previous', name: 'Lead' },
    pipelineName: 'Sales Pipeline',
    ownerName: 'Sample User',
    changedBy: SAMPLE_ACTOR,
    note: 'Budget confirmed',
  }),
  record: {
    schema: StageChangedRecord,
    from: ({ deal: d }: StageChangedData) => ({
      id: d.id,
      title: d.title,
      value: d.value,
      currency: d.currency,
      previous_stage: d.previous_stage_name,
      new_stage: d.stage_name,
      pipeline: d.pipeline_name,
      owner: d.owner_id ? { id: d.owner_id, name: d.owner_name } : null,
      version: d.version,
    }),
  },
});

const closedEvent = (
  name: 'deal.won' | 'deal.lost',
  status: DealStatus,
  description: string,
  closing: Partial<DealWithStage>,
) =>
  defineEvent({
    name,
    entityType: 'deal',
    description,
    data: z.object({
      deal: DealRecordSchema,
      previous_status: z
        .enum(DEAL_STATUSES)
        .describe('The status before, `open` unless it was reopened and closed again'),
    }),
    build: ({ deal, previousStatus }: { deal: DealWithStage; previousStatus: string }) => ({
      deal: dealRecord(deal),
      previous_status: previousStatus,
    }),
    sampleInput: () => ({ deal: sampleDeal({ status, closedAt: new Date(), ...closing }), previousStatus: 'open' }),
  });

export const dealWon = closedEvent(
  'deal.won',
  'won',
  'A deal was won (written with its deal.updated); `deal.won_reason` says why when given.',
  { wonReason: 'Best price' },
);
export const dealLost = closedEvent(
  'deal.lost',
  'lost',
  'A deal was lost (written with its deal.updated); `deal.lost_reason` and `deal.competitor` say why when given.',
  {
    lostReason: 'Chose a competitor',
    competitor: 'Example Rival Ltd',
  },
);

export const dealDeleted = defineEvent({
  name: 'deal.deleted',
  entityType: 'deal',
  description: 'A deal was deleted; `data.deal` is the deal as it was.',
  data: dealOnly,
  build: (deal: DealWithStage) => ({ deal: dealRecord(deal) }),
  sampleInput: () => sampleDeal(),
});

const association = (name: 'deal.contact_added' | 'deal.contact_removed', description: string) =>
  defineEvent({
    name,
    entityType: 'deal',
    description,
    timelineOnly: true,
    data: z.object({ deal: DealRecordSchema, contact_id: z.string(), role: z.string().nullable() }),
    build: ({ deal, contactId, role }: { deal: DealWithStage; contactId: string; role: string | null }) => ({
      deal: dealRecord(deal),
      contact_id: contactId,
      role,
    }),
    sampleInput: () => ({ deal: sampleDeal(), contactId: 'con_sample', role: 'Decision maker' }),
  });

export const dealContactAdded = association(
  'deal.contact_added',
  'A contact was associated with a deal (contact timelines only).',
);
export const dealContactRemoved = association(
  'deal.contact_removed',
  'A contact was removed from a deal (contact timelines only).',
);
