// One read rule for every path data travels through the schema: a field's value reaches a
// caller only if the caller may read the resource that data belongs to. Every object type names
// its resource here (the service does not start otherwise), and a field whose data belongs to
// another resource than its parent's (a deal's contacts, a timeline entry of a deal, a delivery's
// request body) is checked as it resolves, on GraphQL, REST (which runs the same operations) and
// subscriptions alike.
//
// What an unreadable neighbour becomes: its ids stay (deal.contact_id, contacts[].contact_id),
// its data is null, GraphQL reports a `forbidden` error at that path, and both surfaces carry a
// warning naming the resource (REST `meta.warnings`, GraphQL `extensions.warnings`). A root
// field of a resource the caller may not read is refused whole (403 / `forbidden`).
import {
  defaultFieldResolver,
  getNamedType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import { eventNeeds, firstUnreadable, type Resource } from '../auth/scopes.ts';
import { AppError } from '../errors.ts';
import type { Context } from './context.ts';

/** The read permissions the data of a field needs, fixed or from the value it is read from. */
// biome-ignore lint/suspicious/noExplicitAny: each entry types the parent as its own type's source value.
type Needs = readonly Resource[] | ((parent: any) => readonly Resource[]);

/**
 * The resource of every object type. `null`: readable with any key — users (keys need their ids
 * to assign records), delete confirmations, and the dashboard-only types (keys, custom field
 * definitions), whose root fields refuse every API key. Pages take their nodes' resource.
 */
export const TYPE_RESOURCE: Record<string, Resource | null> = {
  Contact: 'contacts',
  // A shape of contacts and companies alike: readable wherever the record holding it is.
  Address: null,
  // A note is on a contact or a company: readable wherever the record holding it is (the root
  // fields and the mutation check the contact's or the company's permission).
  Note: null,
  TimelineEntry: 'contacts',
  BulkContactResult: 'contacts',
  BulkContactError: 'contacts',
  ContactChange: 'contacts',
  Company: 'companies',
  // Its contact and deal events' data needs their resource too (below).
  CompanyChange: 'companies',
  CompanyTimelineEntry: 'companies',
  Deal: 'deals',
  DealContact: 'deals',
  StageHistory: 'deals',
  DealChange: 'deals',
  Pipeline: 'pipelines',
  Stage: 'pipelines',
  StageWithTotals: 'pipelines',
  Task: 'tasks',
  TaskRelatedTo: 'tasks',
  TaskReminder: 'tasks',
  Activity: 'activities',
  Webhook: 'webhooks',
  RetryPolicy: 'webhooks',
  WebhookDelivery: 'webhooks',
  WebhookTestResult: 'webhooks',
  WebhookRecoverResult: 'webhooks',
  DeliveryAttempt: 'webhooks',
  // The Insight page's aggregates: stage values need pipelines:read as well (their root field checks it).
  StageValue: 'deals',
  CurrencyAmount: 'deals',
  DealMonth: 'deals',
  WebhookDeliveryStats: 'webhooks',
  // A live event's envelope is the subscriber's; its data needs the event's resource (below).
  LiveEvent: null,
  // The log's envelope: which kinds of record the key may read is the root field's filter; its
  // data needs the event's resource (below).
  LoggedEvent: null,
  // The audit log answers full-access callers only (audit-log.queries.ts), who read everything.
  AuditEntry: null,
  // A job's envelope: its root fields check read access to the kind of record it imports.
  Import: null,
  ImportError: null,
  User: null,
  NotificationPreferences: null,
  // Who caused a change: a key's or user's name, readable like users.
  Actor: null,
  // What went wrong with the caller's own request.
  ErrorInfo: null,
  // A batch's answer about the caller's own operations (the mutation needs the resource's write).
  BatchResult: null,
  BatchOperationResult: null,
  DeleteResult: null,
  // How the workspace behaves: every key of it may read it (a change needs full access).
  WorkspaceSettings: null,
  ApiKey: null,
  CreatedApiKey: null,
  CustomField: null,
  // The Team page's answers: their mutations refuse every API key.
  PasswordLink: null,
  UserInvitation: null,
  // Field names for the dashboard's import mapping: signed-in users only, who read everything.
  ImportFieldSet: null,
};

const TASK_RELATED_NEEDS: Record<string, readonly Resource[]> = {
  contact: ['contacts'],
  company: ['companies'],
  deal: ['deals'],
};

/** Fields whose data belongs to another resource than their type's, by `Type.field`. */
export const FIELD_NEEDS: Record<string, Needs> = {
  // A deal's contacts list names them; who they are is contact data.
  'DealContact.first_name': ['contacts'],
  'DealContact.last_name': ['contacts'],
  'DealContact.email': ['contacts'],
  // Totals of the deals in a stage are deal values.
  'StageWithTotals.deal_count': ['deals'],
  'StageWithTotals.total_value': ['deals'],
  // A task's related record: a contact's or company's name or a deal's title.
  'TaskRelatedTo.name': (r: { type: string }) => TASK_RELATED_NEEDS[r.type] ?? [],
  // Events carry the record they are about.
  'TimelineEntry.summary': (e: { type: string; data: unknown }) => eventNeeds(e.type, e.data),
  'TimelineEntry.data': (e: { type: string; data: unknown }) => eventNeeds(e.type, e.data),
  'CompanyTimelineEntry.summary': (e: { type: string; data: unknown }) => eventNeeds(e.type, e.data),
  'CompanyTimelineEntry.data': (e: { type: string; data: unknown }) => eventNeeds(e.type, e.data),
  'CompanyChange.data': (e: { event: string; data: unknown }) => eventNeeds(e.event, e.data),
  'LiveEvent.data': (e: { event: string; data: unknown }) => eventNeeds(e.event, e.data),
  'LoggedEvent.data': (e: { type: string; data: unknown }) => eventNeeds(e.type, e.data),
  // The body as sent (either payload format): what any event of that name may carry.
  'WebhookDelivery.request_body': (d: { event: string }) => eventNeeds(d.event),
  // A receiver may echo what it was sent: its answer is as sensitive as the body.
  'WebhookDelivery.response_body': (d: { event: string }) => eventNeeds(d.event),
};

/** A field left null because the caller may not read its data; REST answers the rest with a warning. */
export class Redacted extends AppError {
  constructor(readonly resource: Resource) {
    super('forbidden', `This API key may not read ${resource}: the field is null`);
  }
}

export const redactionWarning = (resource: Resource) =>
  `This API key may not read ${resource}: fields holding ${resource} data are null`;

function pageNodes(type: GraphQLObjectType): GraphQLObjectType | null {
  const nodes = type.getFields().nodes;
  const named = nodes && getNamedType(nodes.type);
  return type.name.endsWith('Page') && named && isObjectType(named) ? named : null;
}

/** The resource of an object type; throws for a type nobody classified. */
export function resourceOfType(type: GraphQLObjectType): Resource | null {
  const nodes = pageNodes(type);
  if (nodes) return resourceOfType(nodes);
  if (!(type.name in TYPE_RESOURCE))
    throw new Error(`Object type ${type.name} belongs to no resource: classify it in src/schema/read-access.ts`);
  return TYPE_RESOURCE[type.name];
}

/** What a field's data needs: its own entry, else its object type's resource, else its parent's. */
export function needsOf(
  parent: GraphQLObjectType,
  field: GraphQLField<unknown, unknown>,
  parentResource: Resource | null,
): Needs {
  const own = FIELD_NEEDS[`${parent.name}.${field.name}`];
  if (own) return own;
  const named = getNamedType(field.type);
  if (isObjectType(named)) {
    const r = resourceOfType(named);
    return r ? [r] : [];
  }
  return parentResource ? [parentResource] : [];
}

export interface GuardedField {
  type: string;
  field: string;
  /** Fixed permissions, or 'per value' for those read from the value (events, related records). */
  needs: readonly Resource[] | 'per value';
  root: boolean;
}

/** Every field that checks a read permission as it resolves: the permission matrix of the schema. */
export function guardedFields(schema: GraphQLSchema): GuardedField[] {
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(
      (t) => t !== null && t !== undefined,
    ),
  );
  const out: GuardedField[] = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    const root = roots.has(type);
    const own = root ? null : resourceOfType(type);
    for (const field of Object.values(type.getFields())) {
      const needs = needsOf(type, field, own);
      if (typeof needs === 'function') out.push({ type: type.name, field: field.name, needs: 'per value', root });
      else if (needs.some((r) => r !== own)) out.push({ type: type.name, field: field.name, needs, root });
    }
  }
  return out;
}

/**
 * Wraps the resolver of every guarded field with the check. A nested guarded field must be
 * nullable, or a redaction would blank its parent: the service refuses to start otherwise.
 */
export function enforceReadAccess(schema: GraphQLSchema): GraphQLSchema {
  for (const g of guardedFields(schema)) {
    const type = schema.getType(g.type) as GraphQLObjectType;
    const field = type.getFields()[g.field];
    if (!g.root && isNonNullType(field.type))
      throw new Error(
        `${g.type}.${g.field} holds ${JSON.stringify(g.needs)} data and must be nullable, so it can be left out`,
      );
    const needs = needsOf(type, field, g.root ? null : resourceOfType(type));
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (parent, args, ctx: Context, info) => {
      const missing = firstUnreadable(ctx.caller, typeof needs === 'function' ? needs(parent) : needs);
      if (missing) {
        if (g.root) throw new AppError('forbidden', `This API key may not read ${missing}`);
        const warning = redactionWarning(missing);
        if (!ctx.warnings.includes(warning)) ctx.warnings.push(warning);
        throw new Redacted(missing);
      }
      return resolve(parent, args, ctx, info);
    };
  }
  // A stale entry would be a rule that protects nothing.
  for (const key of [...Object.keys(TYPE_RESOURCE), ...Object.keys(FIELD_NEEDS)]) {
    const [typeName, fieldName] = key.split('.');
    const type = schema.getType(typeName);
    if (!isObjectType(type) || (fieldName && !type.getFields()[fieldName]))
      throw new Error(`read-access.ts classifies ${key}, which the schema does not have`);
  }
  return schema;
}
