// Shared ground for the security tests: two workspaces (A and B) plus A's sandbox, each holding
// one of every resource and a key, and the tables that say, for every REST route and
// GraphQL field, which resource an id names and what a valid input looks like. The tables are
// checked for completeness against the route table and the schema, so a new route or field
// fails these tests until it is classified here.
import {
  getNamedType,
  isObjectType,
  isScalarType,
  Kind,
  type GraphQLField,
  type GraphQLObjectType,
  type OperationDefinitionNode,
} from 'graphql';
import { expect } from 'vitest';
import { RESOURCES, type Resource } from '../../src/auth/scopes.ts';
import { loadOperations } from '../../src/rest/operations.ts';
import { routes, type RestRoute } from '../../src/rest/routes.ts';
import { schema } from '../../src/schema/index.ts';
import { revokeApiKey } from '../../src/admin/workspaces.ts';
import { client, gql, uniqueEmail, type Client, type TestApp, type TestWorkspace } from '../helpers/app.ts';
import type { Receiver } from '../helpers/receiver.ts';

/** Every kind of record an id can name. */
const KINDS = [
  'contact',
  'company',
  'note',
  'pipeline',
  'stage',
  'deal',
  'task',
  'activity',
  'user',
  'webhook',
  'delivery',
  'event',
  'import',
] as const;
export type IdKind = (typeof KINDS)[number];

/** A path parameter names a record of the kind of the path segment before it. */
const KIND_OF_SEGMENT: Record<string, IdKind> = {
  contacts: 'contact',
  companies: 'company',
  notes: 'note',
  pipelines: 'pipeline',
  stages: 'stage',
  deals: 'deal',
  tasks: 'task',
  activities: 'activity',
  users: 'user',
  webhooks: 'webhook',
  logs: 'delivery',
  imports: 'import',
};

/** The data one key works on: a live workspace or a sandbox, with one record of every kind. */
export interface Space {
  label: string;
  /** The workspace whose rows hold this space's data. */
  workspaceId: string;
  /** The live workspace: a sandbox shares its users (and only those) with it. */
  accountId: string;
  key: string;
  api: Client;
  ids: Record<IdKind, string>;
  /** A second contact (merges, deal contacts). */
  otherContactId: string;
  /** A second company (merges). */
  otherCompanyId: string;
}

/** A valid input for each mutation that takes one, from the records of the space it acts in. */
export const VALID_INPUT: Record<string, (s: Space) => Record<string, unknown>> = {
  createContact: () => ({ first_name: 'Valid', email: uniqueEmail('valid') }),
  updateContact: () => ({ company: 'Updated Co' }),
  bulkCreateContacts: () => ({ contacts: [{ first_name: 'Bulk', email: uniqueEmail('bulk') }] }),
  mergeContacts: (s) => ({ primary_id: s.ids.contact, secondary_id: s.otherContactId }),
  createNote: () => ({ content: 'A note' }),
  createCompanyNote: () => ({ content: 'A company note' }),
  batchContacts: (s) => ({
    operations: [
      { op: 'update', id: s.ids.contact, data: { job_title: 'Batch' } },
      { op: 'create', data: { first_name: 'Batch', email: uniqueEmail('batch') } },
    ],
  }),
  batchCompanies: (s) => ({ operations: [{ op: 'update', id: s.ids.company, data: { industry: 'Batch' } }] }),
  batchDeals: (s) => ({ operations: [{ op: 'update', id: s.ids.deal, data: { title: 'Batch deal' } }] }),
  batchTasks: (s) => ({ operations: [{ op: 'update', id: s.ids.task, data: { title: 'Batch task' } }] }),
  createCompany: () => ({
    name: 'Valid company',
    domain: `valid-${uniqueEmail('d').split('@')[0].replace(/\W/g, '-')}.example`,
  }),
  updateCompany: (s) => ({ industry: 'Updated', owner_id: s.ids.user }),
  mergeCompanies: (s) => ({ primary_id: s.ids.company, secondary_id: s.otherCompanyId }),
  updateWorkspaceSettings: () => ({ link_contacts_by_domain: false }),
  createPipeline: () => ({ name: 'Valid pipeline' }),
  updatePipeline: () => ({ name: 'Renamed pipeline' }),
  createStage: () => ({ name: 'Valid stage', probability: 40 }),
  updateStage: () => ({ name: 'Renamed stage' }),
  createDeal: (s) => ({
    title: 'Valid deal',
    pipeline_id: s.ids.pipeline,
    stage_id: s.ids.stage,
    contact_id: s.ids.contact,
    owner_id: s.ids.user,
    value: 10,
  }),
  updateDeal: (s) => ({ title: 'Renamed deal', contact_id: s.ids.contact, owner_id: s.ids.user }),
  moveDealStage: (s) => ({ stage_id: s.ids.stage, note: 'moved' }),
  addDealContact: (s) => ({ contact_id: s.otherContactId, role: 'champion' }),
  createTask: (s) => ({
    title: 'Valid task',
    assignee_id: s.ids.user,
    related_to_type: 'deal',
    related_to_id: s.ids.deal,
  }),
  updateTask: (s) => ({
    title: 'Renamed task',
    assignee_id: s.ids.user,
    related_to_type: 'contact',
    related_to_id: s.ids.contact,
  }),
  completeTask: () => ({ completion_note: 'done' }),
  createActivity: (s) => ({
    type: 'call',
    subject: 'Valid call',
    contact_id: s.ids.contact,
    deal_id: s.ids.deal,
    attendees: [s.ids.contact],
  }),
  updateNotificationPreferences: () => ({ email: false }),
  createWebhook: () => ({ url: 'http://127.0.0.1:9/hook', events: ['contact.created'] }),
  updateWebhook: () => ({ description: 'updated' }),
  recoverWebhookEvents: () => ({ since: '2026-01-01T00:00:00Z', until: '2026-01-02T00:00:00Z' }),
  // An upload is used once: this one names none, so an allowed key is answered not_found.
  createImport: () => ({ upload_id: 'imp_none', resource: 'contacts' }),
};

/** A small valid import, as POST /v1/imports takes it (a form, settings before the file). */
export function importForm(): FormData {
  const form = new FormData();
  form.append('resource', 'contacts');
  form.append('file', new Blob([`first_name,email\nImported,${uniqueEmail('import')}\n`]), 'contacts.csv');
  return form;
}

/**
 * Subscriptions that report a job's progress read from the database, not events of the bus: the
 * bus-driven subscription tests pass them by; test/imports.test.ts tries them with another
 * tenant's job and with keys that may not read it.
 */
export const POLLED_SUBSCRIPTIONS = new Set(['importProgress']);

/** ID arguments of GraphQL fields no REST route runs (the others are derived from the route table). */
const EXTRA_ID_ARGS: Record<string, Record<string, IdKind>> = {
  // The dashboard's Insight aggregates.
  pipelineValueByStage: { pipelineId: 'pipeline' },
  dealOutcomesByMonth: { pipelineId: 'pipeline' },
};

/**
 * Fields for signed-in dashboard users only: every API key gets 401 or 403 from them, whatever
 * the arguments, so they take no part in the id and input tables.
 */
export const DASHBOARD_ONLY = new Set([
  'apiKeys',
  'createApiKey',
  'revokeApiKey',
  'customFields',
  'createCustomField',
  'deleteCustomField',
  'importFields',
  'inviteUser',
  'createPasswordResetLink',
  'deactivateUser',
  'reactivateUser',
]);

export interface RouteIds {
  route: RestRoute;
  /** Path parameter → kind. */
  params: Record<string, IdKind>;
  /** The GraphQL root field the route runs. */
  field: string;
  fieldType: 'query' | 'mutation';
}

const operations = loadOperations(schema);

function rootOf(route: RestRoute): { field: string; fieldType: 'query' | 'mutation'; args: Map<string, string> } {
  const doc = operations.get(route.operation)!;
  const op = doc.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)!;
  const first = op.selectionSet.selections[0];
  if (first.kind !== Kind.FIELD) throw new Error(`${route.operation}: first selection is not a field`);
  // field argument name → the operation variable it takes
  const args = new Map<string, string>();
  for (const a of first.arguments ?? []) if (a.value.kind === Kind.VARIABLE) args.set(a.name.value, a.value.name.value);
  return { field: first.name.value, fieldType: op.operation === 'mutation' ? 'mutation' : 'query', args };
}

/** Every route with the kind of each of its path parameters; throws on a parameter it cannot classify. */
export const ROUTES: RouteIds[] = routes.map((route) => {
  const params: Record<string, IdKind> = {};
  const segments = route.path.split('/');
  segments.forEach((seg, i) => {
    if (!seg.startsWith(':')) return;
    const kind = KIND_OF_SEGMENT[segments[i - 1]];
    if (!kind)
      throw new Error(`${route.method} ${route.path}: classify the segment "${segments[i - 1]}" in KIND_OF_SEGMENT`);
    params[seg.slice(1)] = kind;
  });
  const { field, fieldType } = rootOf(route);
  return { route, params, field, fieldType };
});

/**
 * The kind of every ID argument of every Query and Mutation field: for fields a route runs, found by
 * passing marked path parameters through the route's variables; for the others, from EXTRA_ID_ARGS.
 */
export function idArgKinds(): Map<string, Record<string, IdKind>> {
  const out = new Map<string, Record<string, IdKind>>();
  for (const { route, params } of ROUTES) {
    const { field, args } = rootOf(route);
    const marked = Object.fromEntries(Object.entries(params).map(([p, kind]) => [p, `@${kind}`]));
    const vars = route.variables?.({ params: marked, query: {}, body: {} }) ?? {};
    const kinds: Record<string, IdKind> = {};
    for (const [arg, variable] of args) {
      const v = vars[variable];
      if (typeof v === 'string' && v.startsWith('@')) kinds[arg] = v.slice(1) as IdKind;
    }
    out.set(field, kinds);
  }
  for (const [field, kinds] of Object.entries(EXTRA_ID_ARGS)) out.set(field, kinds);
  return out;
}

export type RootField = {
  name: string;
  type: 'query' | 'mutation';
  field: GraphQLField<unknown, unknown>;
  ids: Record<string, IdKind>;
};

/**
 * Every Query and Mutation field; fails the test when one has an ID argument of unknown kind or lacks a valid input.
 */
export function rootFields(): RootField[] {
  const kinds = idArgKinds();
  const out: RootField[] = [];
  for (const type of ['query', 'mutation'] as const) {
    const root = type === 'query' ? schema.getQueryType()! : schema.getMutationType()!;
    for (const field of Object.values(root.getFields())) {
      const ids = kinds.get(field.name) ?? {};
      if (DASHBOARD_ONLY.has(field.name)) {
        out.push({ name: field.name, type, field, ids });
        continue;
      }
      for (const arg of field.args) {
        if (getNamedType(arg.type).name === 'ID')
          expect(ids[arg.name], `kind of ${field.name}(${arg.name}): add it to EXTRA_ID_ARGS`).toBeDefined();
        if (arg.name === 'input' && String(arg.type).endsWith('!'))
          expect(VALID_INPUT[field.name], `VALID_INPUT.${field.name}`).toBeDefined();
      }
      out.push({ name: field.name, type, field, ids });
    }
  }
  return out;
}

/** The smallest selection of a field's type: `__typename` and `id` (of a page's nodes), nothing for scalars. */
export function selectionOf(field: GraphQLField<unknown, unknown>): string {
  const named = getNamedType(field.type);
  if (!isObjectType(named)) return '';
  const nodes = named.getFields().nodes;
  if (nodes) return `{ nodes { __typename${idSelection(getNamedType(nodes.type))} } }`;
  return `{ __typename${idSelection(named)} }`;
}

function idSelection(type: unknown): string {
  return isObjectType(type) && type.getFields().id ? ' id' : '';
}

/** Every subscription field of the schema. */
export const subscriptionFields = () =>
  Object.values(schema.getSubscriptionType()!.getFields()) as GraphQLField<unknown, unknown>[];

/** The scalar fields of what a subscription field reports (`id`, and `data`, which holds the changed record). */
export function subscriptionSelection(field: GraphQLField<unknown, unknown>): string {
  const type = getNamedType(field.type) as GraphQLObjectType;
  return Object.values(type.getFields())
    .filter((f) => isScalarType(getNamedType(f.type)) && !f.args.length)
    .map((f) => f.name)
    .join(' ');
}

/** A GraphQL document for a root field with its arguments as variables. */
export function documentFor(f: RootField): string {
  const defs = f.field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = f.field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return `${f.type}${defs ? `(${defs})` : ''} { ${f.name}${args ? `(${args})` : ''} ${selectionOf(f.field)} }`;
}

/** Variables for a root field: ids from `ids`, a valid input built from `inputSpace`. */
export function variablesFor(f: RootField, ids: Space, inputSpace: Space = ids): Record<string, unknown> {
  const vars: Record<string, unknown> = {};
  for (const arg of f.field.args) {
    if (f.ids[arg.name]) vars[arg.name] = ids.ids[f.ids[arg.name]];
    else if (arg.name === 'input' && VALID_INPUT[f.name]) vars.input = VALID_INPUT[f.name](inputSpace);
    else if (arg.name === 'q') vars.q = 'valid';
  }
  return vars;
}

/** A route's path with the ids of `space`. */
export function pathFor(r: RouteIds, space: Space, overrides: Record<string, string> = {}): string {
  return (
    '/v1' +
    r.route.path.replace(/:(\w+)/g, (_m, name: string) =>
      encodeURIComponent(overrides[name] ?? space.ids[r.params[name]]),
    )
  );
}

/**
 * A route that only reads: a GET, or a POST that runs a query operation (`POST /v1/contacts/query`
 * carries its filter in a body but changes nothing).
 */
/** GETs, and the POSTs that only read: queries (POST …/query) and exports (POST …/export). */
export const isRead = (route: RestRoute) =>
  route.method === 'GET' || ((route.list === true || route.export !== undefined) && route.method === 'POST');

/** A route's path for a read, with the query a search needs (other routes ignore it). */
export const readPath = (r: RouteIds, space: Space) =>
  `${pathFor(r, space)}?q=${encodeURIComponent(`${space.label} contact`)}`;

/** The valid body of a route (its operation's input), from the records of `space`. */
export function bodyFor(r: RouteIds, space: Space): Record<string, unknown> | FormData | undefined {
  if (r.route.method !== 'POST' && r.route.method !== 'PUT') return undefined;
  if (r.route.upload) return importForm();
  return VALID_INPUT[r.field]?.(space) ?? {};
}

/**
 * The permissions a route needs: `<resource>:read` for GET, `:write` otherwise, of the last
 * resource its path names (`/contacts/:id/deals` is a read of deals), except where PERMISSION_OF says.
 */
const PERMISSION_OF: Record<string, `${Resource}:${'read' | 'write'}`> = {
  // Notes and the timeline are part of a contact.
  'GET /contacts/:id/notes': 'contacts:read',
  'POST /contacts/:id/notes': 'contacts:write',
  'GET /contacts/:id/timeline': 'contacts:read',
  // Stages are part of a pipeline; a deal's contacts and stage are part of the deal.
  'GET /deals/:id/contacts': 'deals:read',
  'POST /deals/:id/contacts': 'deals:write',
  'DELETE /deals/:id/contacts/:contact_id': 'deals:write',
  // A company's notes and timeline are part of the company.
  'GET /companies/:id/notes': 'companies:read',
  'POST /companies/:id/notes': 'companies:write',
  'GET /companies/:id/timeline': 'companies:read',
  // Notification preferences are about task reminders.
  'PUT /users/:id/notification-preferences': 'tasks:write',
  // An import needs the resource it imports into: the seeded one, and VALID_INPUT's, import contacts.
  'POST /imports': 'contacts:write',
  'GET /imports/:id': 'contacts:read',
  'GET /imports/:id/failed-rows': 'contacts:read',
};

/** Routes only a full-access key may call: no custom permission grants them (a read-only key gets 403). */
export const FULL_ACCESS_ONLY = new Set(['PUT /settings', 'GET /audit-log']);

export function permissionOf(route: RestRoute): { resource: Resource; access: 'read' | 'write' } | null {
  if (route.anyKey || FULL_ACCESS_ONLY.has(`${route.method} ${route.path}`)) return null;
  const explicit = PERMISSION_OF[`${route.method} ${route.path}`];
  if (explicit) {
    const [resource, access] = explicit.split(':') as [Resource, 'read' | 'write'];
    return { resource, access };
  }
  const resource = route.path
    .split('/')
    .filter((s) => (RESOURCES as readonly string[]).includes(s))
    .pop() as Resource | undefined;
  if (!resource) throw new Error(`${route.method} ${route.path}: say which permission it needs in PERMISSION_OF`);
  return { resource, access: isRead(route) ? 'read' : 'write' };
}

export interface World {
  app: TestApp;
  hook: Receiver;
  wsA: TestWorkspace;
  wsB: TestWorkspace;
  A: Space;
  sandboxA: Space;
  B: Space;
  /** Space, label → its key for GraphQL calls. */
  gql(space: { key: string }, query: string, variables?: Record<string, unknown>): ReturnType<typeof gql>;
}

async function ok<T = any>(r: Promise<{ status: number; body: any; text: string }>, what: string): Promise<T> {
  const res = await r;
  if (res.status >= 300) throw new Error(`${what}: ${res.status} ${res.text}`);
  return res.body.data as T;
}

/** Creates one record of every kind through the API of `api`, in the data space its key acts on. */
export async function seedSpace(
  label: string,
  workspaceId: string,
  accountId: string,
  key: string,
  api: Client,
  userId: string,
  hookUrl: string,
): Promise<Space> {
  const contact = await ok(
    api('POST', '/v1/contacts', { first_name: `${label} contact`, email: uniqueEmail(label.toLowerCase()) }),
    'contact',
  );
  const other = await ok(
    api('POST', '/v1/contacts', { first_name: `${label} other`, email: uniqueEmail(label.toLowerCase()) }),
    'contact',
  );
  const note = await ok(api('POST', `/v1/contacts/${contact.id}/notes`, { content: `${label} note` }), 'note');
  const company = await ok(api('POST', '/v1/companies', { name: `${label} company` }), 'company');
  const otherCompany = await ok(api('POST', '/v1/companies', { name: `${label} other company` }), 'company');
  await ok(api('PUT', `/v1/contacts/${other.id}`, { company_id: company.id }), 'contact of the company');
  const pipeline = await ok(api('POST', '/v1/pipelines', { name: `${label} pipeline` }), 'pipeline');
  const stage = await ok(api('POST', `/v1/pipelines/${pipeline.id}/stages`, { name: `${label} stage` }), 'stage');
  const deal = await ok(
    api('POST', '/v1/deals', {
      title: `${label} deal`,
      pipeline_id: pipeline.id,
      stage_id: stage.id,
      contact_id: contact.id,
      company_id: company.id,
      owner_id: userId,
    }),
    'deal',
  );
  await ok(api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: other.id, role: 'champion' }), 'deal contact');
  const task = await ok(
    api('POST', '/v1/tasks', {
      title: `${label} task`,
      assignee_id: userId,
      related_to_type: 'contact',
      related_to_id: contact.id,
    }),
    'task',
  );
  const activity = await ok(
    api('POST', '/v1/activities', {
      type: 'call',
      subject: `${label} call`,
      contact_id: contact.id,
      deal_id: deal.id,
      company_id: company.id,
    }),
    'activity',
  );
  await ok(api('POST', `/v1/companies/${company.id}/notes`, { content: `${label} company note` }), 'company note');
  await ok(
    api('POST', '/v1/tasks', { title: `${label} company task`, related_to_type: 'company', related_to_id: company.id }),
    'company task',
  );
  const webhook = await ok(api('POST', '/v1/webhooks', { url: hookUrl, events: ['contact.created'] }), 'webhook');
  const [sent] = await ok(api('POST', `/v1/webhooks/${webhook.id}/test`), 'webhook test');
  const [event] = await ok(api('GET', '/v1/events?limit=1'), 'event log');
  const imported = await ok(api('POST', '/v1/imports', importForm()), 'import');
  return {
    label,
    workspaceId,
    accountId,
    key,
    api,
    otherContactId: other.id,
    otherCompanyId: otherCompany.id,
    ids: {
      contact: contact.id,
      company: company.id,
      note: note.id,
      pipeline: pipeline.id,
      stage: stage.id,
      deal: deal.id,
      task: task.id,
      activity: activity.id,
      user: userId,
      webhook: webhook.id,
      delivery: sent.delivery_id,
      event: event.id,
      import: imported.id,
    },
  };
}

/** The app with workspaces A (and its sandbox) and B, each seeded with one record of every kind. */
/** Seeds the world on the test file's app; `hook` receives the webhooks of every space. */
export async function seedWorld(app: TestApp, hook: Receiver): Promise<World> {
  const wsA = await app.workspace({ plan: 'enterprise' });
  const wsB = await app.workspace({ plan: 'enterprise' });
  const userA = await wsA.addUser('Alice');
  const userB = await wsB.addUser('Bob');
  const sandboxKey = await wsA.addKey({ name: 'sandbox', sandbox: true });
  const sandboxId = (await app.db.prisma.workspace.findFirstOrThrow({ where: { liveId: wsA.id } })).id;
  const [A, sandboxA, B] = await Promise.all([
    seedSpace('A', wsA.id, wsA.id, wsA.key, wsA.api, userA.id, hook.url),
    seedSpace('Sandbox', sandboxId, wsA.id, sandboxKey.key, sandboxKey.api, userA.id, hook.url),
    seedSpace('B', wsB.id, wsB.id, wsB.key, wsB.api, userB.id, hook.url),
  ]);
  return {
    app,
    hook,
    wsA,
    wsB,
    A,
    sandboxA,
    B,
    gql: (space, query, variables) => gql(app.base, space.key, query, variables),
  };
}

/**
 * The fuzz tests' app: a workspace and seeded space each for REST and GraphQL, and what the server logged as failed.
 */
export interface FuzzSetup {
  app: TestApp;
  /** Error lines the server logged: shown with a failing case, they name its cause. */
  serverErrors: string[];
  rest: { workspace: TestWorkspace; space: Space };
  graphql: { workspace: TestWorkspace; space: Space };
}

/** A revoked and an expired key of `workspace`: well-formed and once valid, never accepted. */
export async function deadKeys(app: TestApp, workspace: TestWorkspace): Promise<{ revoked: string; expired: string }> {
  const revoked = await workspace.addKey({ name: 'revoked' });
  await revokeApiKey(app.db.prisma, revoked.id);
  const expired = await workspace.addKey({ name: 'expired', expiresAt: new Date(Date.now() - 60_000).toISOString() });
  return { revoked: revoked.key, expired: expired.key };
}

/** The ids of `target` that `caller` must never reach (a sandbox shares its account's users). */
export function foreignIds(caller: Space, target: Space): string[] {
  const reachable = Object.entries(target.ids).filter(
    ([kind]) => kind !== 'user' || caller.accountId !== target.accountId,
  );
  return [...reachable.map(([, id]) => id), target.otherContactId];
}

/** Whether a route or field can be addressed across `caller` and `target` (users are shared by a sandbox). */
export const crossable = (kinds: IdKind[], caller: Space, target: Space) =>
  !(kinds.includes('user') && caller.accountId === target.accountId);

/** Another client of the app with a key. */
export const apiOf = (world: World, key: string) => client(world.app.base, key);

/** Columns the delivery worker writes as it records attempts. */
const WORKER_COLUMNS: Record<string, string[]> = {
  webhook_subscriptions: ['consecutive_failures', 'disabled_at', 'updated_at'],
};

/** Every row that belongs to a workspace, as text: the same before and after means nothing there changed. */
export async function snapshot(world: World, workspaceId: string): Promise<string[]> {
  const prisma = world.app.db.prisma;
  const columns = await prisma.$queryRawUnsafe<{ table_name: string; column_name: string }[]>(
    `SELECT table_name, column_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND column_name IN ('workspace_id', 'deal_id')`,
  );
  const tables = new Map<string, Set<string>>();
  for (const c of columns)
    (tables.get(c.table_name) ?? tables.set(c.table_name, new Set()).get(c.table_name)!).add(c.column_name);
  const rows: string[] = [];
  const dump = async (sql: string) => {
    const result = await prisma.$queryRawUnsafe<{ row: string }[]>(sql, workspaceId);
    rows.push(...result.map((r) => r.row).sort());
  };
  await dump(`SELECT t::text AS row FROM workspaces t WHERE id = $1`);
  // API keys (of a live workspace), all but last_used_at: using a key updates it.
  await dump(
    `SELECT 'api_keys: ' || (to_jsonb(t) - 'last_used_at')::text AS row FROM api_keys t WHERE workspace_id = $1`,
  );
  await dump(
    `SELECT 'idempotency_keys: ' || t::text AS row FROM idempotency_keys t
     WHERE api_key_id IN (SELECT id FROM api_keys WHERE workspace_id = $1)`,
  );
  // Deliveries that requests create: test sends, and redeliveries (a later row for an event and
  // subscription that already have one). The first row of each is the delivery worker's fan-out,
  // and attempts are the worker's too: on PostgreSQL another test file's worker may fan out and
  // deliver these workspaces' events at any time, so those rows and columns are left out.
  await dump(`
    SELECT 'webhook_deliveries: ' || jsonb_build_object(
      'id', id, 'subscription_id', subscription_id, 'event_id', event_id,
      'event', event, 'test', test, 'created_at', created_at
    )::text AS row
    FROM (
      SELECT d.*, row_number() OVER (PARTITION BY subscription_id, event_id ORDER BY created_at, id) AS n
      FROM webhook_deliveries d WHERE workspace_id = $1
    ) t
    WHERE test OR (event_id IS NOT NULL AND n > 1)`);
  for (const [table, cols] of [...tables].sort()) {
    // Dumped above, with the columns and rows that only the app's own bookkeeping and workers change left out.
    if (table === 'api_keys' || table === 'idempotency_keys' || table === 'webhook_deliveries') continue;
    const workerColumns = WORKER_COLUMNS[table];
    const row = workerColumns
      ? `(to_jsonb(t) - ARRAY[${workerColumns.map((c) => `'${c}'`).join(', ')}])::text`
      : 't::text';
    if (cols.has('workspace_id'))
      await dump(`SELECT '${table}: ' || ${row} AS row FROM "${table}" t WHERE workspace_id = $1`);
    else
      await dump(
        `SELECT '${table}: ' || ${row} AS row FROM "${table}" t
         WHERE deal_id IN (SELECT id FROM deals WHERE workspace_id = $1)`,
      );
  }
  return rows;
}
