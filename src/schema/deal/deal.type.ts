import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';
import { ContactType } from '../contact/contact.type.ts';
import '../pipeline/pipeline.type.ts';

/** `YYYY-MM-DD` of a date column (stored as UTC midnight). */
export const calendarDay = (d: Date | null) => (d ? d.toISOString().slice(0, 10) : null);

export const DealContactType = builder.prismaObject('DealContact', {
  description: 'A contact associated with a deal, with its role. The primary contact is the deal\'s contact_id.',
  fields: (t) => ({
    contact_id: t.exposeString('contactId'),
    role: t.exposeString('role', { nullable: true, description: 'e.g. decision maker, influencer, champion' }),
    is_primary: t.exposeBoolean('isPrimary'),
    // Contact data: null for keys that may not read contacts (src/schema/read-access.ts).
    first_name: t.string({ nullable: true, select: { contact: { select: { firstName: true } } }, resolve: (dc) => dc.contact.firstName }),
    last_name: t.string({ nullable: true, select: { contact: { select: { lastName: true } } }, resolve: (dc) => dc.contact.lastName }),
    email: t.string({ nullable: true, select: { contact: { select: { email: true } } }, resolve: (dc) => dc.contact.email }),
    // Selected with the associations that ask for it.
    contact: t.field({
      type: ContactType,
      nullable: true,
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (dc) => dc.contact,
    }),
    created_at: t.expose('createdAt', { type: 'DateTime', description: 'When the contact was associated' }),
  }),
});

export const StageHistoryType = builder.prismaObject('StageHistory', {
  description: 'One move of a deal between stages; the first entry (from null) is where it started.',
  fields: (t) => ({
    from_stage_id: t.exposeString('fromStageId', { nullable: true }),
    from_stage_name: t.exposeString('fromStageName', { nullable: true }),
    to_stage_id: t.exposeString('toStageId'),
    to_stage_name: t.exposeString('toStageName'),
    note: t.exposeString('note', { nullable: true }),
    changed_by: t.field({ type: 'JSONObject', nullable: true, description: '{ type, id, name } of who moved it', resolve: (h) => (h.changedBy as object | null) ?? null }),
    changed_at: t.expose('changedAt', { type: 'DateTime' }),
  }),
});

export const DealType = builder.prismaObject('Deal', {
  fields: (t) => ({
    id: t.exposeID('id'),
    title: t.exposeString('title'),
    pipeline_id: t.exposeString('pipelineId'),
    stage_id: t.exposeString('stageId'),
    stage_name: t.string({ select: { stage: { select: { name: true } } }, resolve: (d) => d.stage.name }),
    value: t.float({ nullable: true, resolve: (d) => d.value?.toNumber() ?? null }),
    currency: t.exposeString('currency', { description: 'ISO 4217' }),
    probability: t.exposeInt('probability', { nullable: true, description: 'Win probability in percent, 0 to 100' }),
    owner_id: t.exposeString('ownerId', { nullable: true, description: 'User id' }),
    contact_id: t.exposeString('contactId', { nullable: true, description: 'Primary contact' }),
    expected_close_date: t.string({ nullable: true, description: 'YYYY-MM-DD', resolve: (d) => calendarDay(d.expectedCloseDate) }),
    status: t.exposeString('status', { description: 'open, won or lost' }),
    custom_fields: t.field({ type: 'JSONObject', resolve: (d) => d.customFields as object }),
    tags: t.exposeStringList('tags'),
    won_reason: t.exposeString('wonReason', { nullable: true }),
    lost_reason: t.exposeString('lostReason', { nullable: true }),
    competitor: t.exposeString('competitor', { nullable: true }),
    closed_at: t.expose('closedAt', { type: 'DateTime', nullable: true, description: 'When it was last won or lost' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
    // Selected with the deals that ask for it.
    contact: t.field({
      type: ContactType,
      nullable: true,
      select: (_args, _ctx, nested) => ({ contact: nested(true) }),
      resolve: (d) => d.contact,
    }),
    owner: t.relation('owner', { nullable: true }),
    // stage_name and pipeline_id are part of the deal; the stage and pipeline records need pipelines:read.
    stage: t.relation('stage', { nullable: true }),
    pipeline: t.relation('pipeline', { nullable: true }),
    contacts: t.relation('dealContacts', { query: { orderBy: [{ isPrimary: 'desc' }, { createdAt: 'asc' }, { contactId: 'asc' }] } }),
    stage_history: t.relation('stageHistory', { query: { orderBy: [{ changedAt: 'asc' }, { id: 'asc' }] } }),
  }),
});

export const DealPage = pageType('DealPage', DealType);
export const DealContactPage = pageType('DealContactPage', DealContactType);
