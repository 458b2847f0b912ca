// What filters may name on each resource: its fields with their kinds, and its relations one hop
// away. Field names are the API's; each maps to its Prisma field (and column, for lists selected in
// SQL). The resources refer to one another, so they live together.
import { ACTIVITY_OUTCOMES, ACTIVITY_TYPES } from '../../../records/activity.ts';
import { CONTACT_SOURCES, CONTACT_STATUSES } from '../../../records/contact.ts';
import { DEAL_STATUSES } from '../../../records/deal.ts';
import { RELATED_TYPES, TASK_PRIORITIES, TASK_STATUSES, TASK_TYPES } from '../../../records/task.ts';
import type { FieldSpec, ResourceWhere } from './where.spec.ts';

const text = (field: string, more: Partial<FieldSpec> = {}): FieldSpec => ({ kind: 'text', field, ...more });
const optionalText = (field: string, more: Partial<FieldSpec> = {}) => text(field, { nullable: true, ...more });
const id = (field: string, nullable = true): FieldSpec => ({ kind: 'id', field, nullable });
const oneOf = (field: string, values: readonly string[], enumName: string, nullable = false): FieldSpec => ({
  kind: 'enum',
  field,
  values,
  enumName,
  nullable,
});
const int = (field: string, nullable = true): FieldSpec => ({ kind: 'int', field, nullable });
const instant = (field: string, nullable = false): FieldSpec => ({ kind: 'datetime', field, nullable });

/** Fields every record has. */
const common = {
  id: id('id', false),
  external_id: optionalText('externalId', { column: 'external_id' }),
  version: int('version', false),
  created_at: instant('createdAt'),
};

export const CONTACT_WHERE: ResourceWhere = {
  name: 'contacts',
  typeName: 'Contact',
  fields: {
    ...common,
    first_name: text('firstName'),
    last_name: optionalText('lastName'),
    email: text('email', { folded: true }),
    phone: optionalText('phone'),
    company: optionalText('company'),
    job_title: optionalText('jobTitle'),
    status: oneOf('status', CONTACT_STATUSES, 'ContactStatus'),
    source: oneOf('source', CONTACT_SOURCES, 'ContactSource'),
    tags: { kind: 'tags', field: 'tags' },
    assigned_to: id('assignedToId'),
    company_id: id('companyId'),
    engagement_score: int('engagementScore', false),
    updated_at: instant('updatedAt'),
  },
  relations: {
    company_record: { target: () => COMPANY_WHERE, field: 'companyRecord', many: false },
    deals: { target: () => DEAL_WHERE, field: 'deals', many: true },
  },
  // `company` alone is the contact's company text; `company.domain` reaches the linked company.
  pathAliases: { company: 'company_record' },
  customFields: true,
};

export const COMPANY_WHERE: ResourceWhere = {
  name: 'companies',
  typeName: 'Company',
  fields: {
    ...common,
    name: text('name'),
    domain: optionalText('domain', { folded: true }),
    industry: optionalText('industry'),
    size: int('size'),
    phone: optionalText('phone'),
    tags: { kind: 'tags', field: 'tags' },
    owner_id: id('ownerId'),
    updated_at: instant('updatedAt'),
  },
  relations: {
    contacts: { target: () => CONTACT_WHERE, field: 'contacts', many: true },
    deals: { target: () => DEAL_WHERE, field: 'deals', many: true },
  },
  customFields: true,
};

export const DEAL_WHERE: ResourceWhere = {
  name: 'deals',
  typeName: 'Deal',
  fields: {
    ...common,
    title: text('title'),
    pipeline_id: id('pipelineId', false),
    stage_id: id('stageId', false),
    value: { kind: 'decimal', field: 'value', nullable: true },
    currency: text('currency'),
    probability: int('probability'),
    owner_id: id('ownerId'),
    contact_id: id('contactId'),
    company_id: id('companyId'),
    expected_close_date: { kind: 'date', field: 'expectedCloseDate', nullable: true },
    status: oneOf('status', DEAL_STATUSES, 'DealStatus'),
    tags: { kind: 'tags', field: 'tags' },
    won_reason: optionalText('wonReason'),
    lost_reason: optionalText('lostReason'),
    competitor: optionalText('competitor'),
    closed_at: instant('closedAt', true),
    updated_at: instant('updatedAt'),
  },
  relations: {
    contact: { target: () => CONTACT_WHERE, field: 'contact', many: false },
    company: { target: () => COMPANY_WHERE, field: 'company', many: false },
  },
  customFields: true,
};

/** Tasks are listed in SQL (ordered by urgency): every field names its column. */
export const TASK_WHERE: ResourceWhere = {
  name: 'tasks',
  typeName: 'Task',
  fields: {
    id: { ...id('id', false), column: 'id' },
    external_id: optionalText('externalId', { column: 'external_id' }),
    version: { ...int('version', false), column: 'version' },
    title: text('title', { column: 'title' }),
    description: optionalText('description', { column: 'description' }),
    status: { ...oneOf('status', TASK_STATUSES, 'TaskStatus'), column: 'status' },
    priority: { ...oneOf('priority', TASK_PRIORITIES, 'TaskPriority'), column: 'priority' },
    type: { ...oneOf('type', TASK_TYPES, 'TaskType'), column: 'type' },
    assignee_id: { ...id('assigneeId'), column: 'assignee_id' },
    due_date: { ...instant('dueDate', true), column: 'due_date' },
    related_to_type: { ...oneOf('relatedToType', RELATED_TYPES, 'TaskRelatedType', true), column: 'related_to_type' },
    related_to_id: { ...id('relatedToId'), column: 'related_to_id' },
    completed_at: { ...instant('completedAt', true), column: 'completed_at' },
    created_at: { ...instant('createdAt'), column: 'created_at' },
    updated_at: { ...instant('updatedAt'), column: 'updated_at' },
  },
  relations: {},
  customFields: false,
};

export const ACTIVITY_WHERE: ResourceWhere = {
  name: 'activities',
  typeName: 'Activity',
  fields: {
    ...common,
    type: oneOf('type', ACTIVITY_TYPES, 'ActivityType'),
    subject: optionalText('subject'),
    description: optionalText('description'),
    contact_id: id('contactId'),
    deal_id: id('dealId'),
    company_id: id('companyId'),
    user_id: id('userId'),
    duration: int('duration'),
    outcome: oneOf('outcome', ACTIVITY_OUTCOMES, 'ActivityOutcome', true),
    occurred_at: instant('occurredAt'),
  },
  relations: {
    contact: { target: () => CONTACT_WHERE, field: 'contact', many: false },
    deal: { target: () => DEAL_WHERE, field: 'deal', many: false },
    company: { target: () => COMPANY_WHERE, field: 'company', many: false },
  },
  customFields: false,
};
