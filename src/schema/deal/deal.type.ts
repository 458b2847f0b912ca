import { builder } from '../builder.ts';
import { ActorType, storedActor } from '../common/actor.type.ts';
import { DealStatus } from '../common/enums.ts';
import { storedEnum } from '../common/stored-enum.ts';
import { pageType } from '../common/page.ts';
import { ContactType } from '../contact/contact.type.ts';
import '../pipeline/pipeline.type.ts';
import { versionDescription } from '../common/versions.ts';
import { EXTERNAL_ID_ANSWER } from '../common/external-id.ts';

/** `YYYY-MM-DD` of a date column (stored as UTC midnight). */
export const calendarDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

export const DealContactType = builder.prismaObject('DealContact', {
  description: "A contact associated with a deal, with its role. The primary contact is the deal's contact_id.",
  fields: (t) => ({
    contact_id: t.exposeString('contactId'),
    role: t.exposeString('role', {
      nullable: true,
      description: 'e.g. decision maker, influencer, champion; null when not given',
    }),
    is_primary: t.exposeBoolean('isPrimary', {
      description: "Whether this is the deal's primary contact (its contact_id)",
    }),
    // Contact data: null for keys that may not read contacts (src/schema/read-access.ts).
    first_name: t.string({
      nullable: true,
      description: "The contact's; null when the key may not read contacts",
      select: { contact: { select: { firstName: true } } },
      resolve: (dc) => dc.contact.firstName,
    }),
    last_name: t.string({
      nullable: true,
      description: "The contact's; null when it has none or the key may not read contacts",
      select: { contact: { select: { lastName: true } } },
      resolve: (dc) => dc.contact.lastName,
    }),
    email: t.string({
      nullable: true,
      description: "The contact's; null when the key may not read contacts",
      select: { contact: { select: { email: true } } },
      resolve: (dc) => dc.contact.email,
    }),
    // Selected with the associations that ask for it.
    contact: t.field({
      type: ContactType,
      nullable: true,
      description: 'The contact; null when the key may not read contacts',
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (dc) => dc.contact,
    }),
    created_at: t.expose('createdAt', { type: 'DateTime', description: 'When the contact was associated' }),
  }),
});

export const StageHistoryType = builder.prismaObject('StageHistory', {
  description: 'One move of a deal between stages; the first entry (from null) is where it started.',
  fields: (t) => ({
    from_stage_id: t.exposeString('fromStageId', {
      nullable: true,
      description: 'Null for the first entry, where the deal was created',
    }),
    from_stage_name: t.exposeString('fromStageName', {
      nullable: true,
      description: 'As it was named then; null for the first entry',
    }),
    to_stage_id: t.exposeString('toStageId'),
    to_stage_name: t.exposeString('toStageName', { description: 'As it was named then' }),
    note: t.exposeString('note', { nullable: true, description: 'The note given with the move, if any' }),
    changed_by: t.field({
      type: ActorType,
      nullable: true,
      description: 'Who moved it; null when no actor was recorded',
      resolve: (h) => storedActor(h.changedBy),
    }),
    changed_at: t.expose('changedAt', { type: 'DateTime' }),
  }),
});

export const DealType = builder.prismaObject('Deal', {
  description: 'A sales opportunity: a value moving through the stages of a pipeline until it is won or lost.',
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    pipeline_id: t.exposeString('pipelineId', { description: 'The pipeline the deal is in' }),
    stage_id: t.exposeString('stageId', { description: 'The stage of that pipeline it is at' }),
    stage_name: t.string({
      description: "The name of the deal's stage now",
      select: { stage: { select: { name: true } } },
      resolve: (d) => d.stage.name,
    }),
    value: t.float({
      nullable: true,
      description: 'Amount in currency; null when not given',
      resolve: (d) => d.value?.toNumber() ?? null,
    }),
    currency: t.exposeString('currency', { description: "ISO 4217 code; the workspace's currency unless given" }),
    probability: t.exposeInt('probability', {
      nullable: true,
      description: 'Win probability in percent, 0 to 100; null when not set for the deal',
    }),
    owner_id: t.exposeString('ownerId', {
      nullable: true,
      description: 'Id of the owning user; null when there is none',
    }),
    contact_id: t.exposeString('contactId', {
      nullable: true,
      description: 'Id of the primary contact; null when there is none',
    }),
    expected_close_date: t.string({
      nullable: true,
      description: 'YYYY-MM-DD; null when not given',
      resolve: (d) => calendarDay(d.expectedCloseDate),
    }),
    status: t.expose('status', { type: storedEnum(DealStatus) }),
    custom_fields: t.field({ type: 'CustomFieldValues', resolve: (d) => d.customFields as object }),
    tags: t.exposeStringList('tags', { description: 'Distinct labels; empty when none' }),
    won_reason: t.exposeString('wonReason', { nullable: true, description: 'Why it was won; null when not given' }),
    lost_reason: t.exposeString('lostReason', { nullable: true, description: 'Why it was lost; null when not given' }),
    competitor: t.exposeString('competitor', {
      nullable: true,
      description: 'Who it was lost to; null when not given',
    }),
    closed_at: t.expose('closedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was last won or lost; null while open',
    }),
    external_id: t.exposeString('externalId', { nullable: true, description: EXTERNAL_ID_ANSWER }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
    // Selected with the deals that ask for it.
    contact: t.field({
      type: ContactType,
      nullable: true,
      description: 'The primary contact; null when there is none or the key may not read contacts',
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (d) => d.contact,
    }),
    owner: t.relation('owner', { nullable: true, description: 'The owning user; null when there is none' }),
    // stage_name and pipeline_id are part of the deal; the stage and pipeline records need pipelines:read.
    stage: t.relation('stage', {
      nullable: true,
      description: 'The stage record; null when the key may not read pipelines',
    }),
    pipeline: t.relation('pipeline', {
      nullable: true,
      description: 'The pipeline record; null when the key may not read pipelines',
    }),
    contacts: t.relation('dealContacts', {
      description: 'Contacts associated with the deal, the primary first',
      query: { orderBy: [{ isPrimary: 'desc' }, { createdAt: 'asc' }, { contactId: 'asc' }] },
    }),
    stage_history: t.relation('stageHistory', {
      description: 'Every move between stages, oldest first',
      query: { orderBy: [{ changedAt: 'asc' }, { id: 'asc' }] },
    }),
  }),
});

export const DealPage = pageType('DealPage', DealType);
export const DealContactPage = pageType('DealContactPage', DealContactType);
