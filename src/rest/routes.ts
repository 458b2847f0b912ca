// The REST API as a table, read like the specification's endpoint tables: method, path,
// the GraphQL operation it runs (src/rest/operations/*.graphql), where variables come from,
// and the success status. Nothing here touches the database. Each route also names the zod
// schemas its resolver checks the body and filters with, so the OpenAPI document is generated
// from them (src/rest/openapi.ts).
import type { z } from 'zod';
import { body, contactId, id, idAndBody, page, queryBody, text, type RouteRequest } from './variables.ts';
import { queryInput } from '../schema/common/where/query-body.ts';
import { BATCH_MAX } from '../schema/batch/batch.inputs.ts';
import { contactBatchInput } from '../schema/contact/contact.batch.ts';
import { companyBatchInput } from '../schema/company/company.batch.ts';
import { dealBatchInput } from '../schema/deal/deal.batch.ts';
import { taskBatchInput } from '../schema/task/task.batch.ts';
import {
  ACTIVITY_WHERE,
  COMPANY_WHERE,
  CONTACT_WHERE,
  DEAL_WHERE,
  TASK_WHERE,
} from '../schema/common/where/resources.ts';
import { activityCreateInput, activityFilter } from '../schema/activity/activity.inputs.ts';
import {
  companyCreateInput,
  companyFilter,
  companyMergeInput,
  companyUpdateInput,
} from '../schema/company/company.inputs.ts';
import { settingsInput } from '../schema/workspace/settings.ts';
import {
  BULK_MAX,
  bulkInput,
  contactCreateInput,
  contactFilter,
  contactUpdateInput,
  mergeInput,
  noteInput,
  searchInput,
} from '../schema/contact/contact.inputs.ts';
import {
  dealContactInput,
  dealCreateInput,
  dealFilter,
  dealUpdateInput,
  moveStageInput,
} from '../schema/deal/deal.inputs.ts';
import {
  pipelineCreateInput,
  pipelineUpdateInput,
  stageCreateInput,
  stageUpdateInput,
} from '../schema/pipeline/pipeline.inputs.ts';
import { taskCompleteInput, taskCreateInput, taskFilter, taskUpdateInput } from '../schema/task/task.inputs.ts';
import { preferencesInput } from '../schema/user/preferences.rules.ts';
import { userFilter } from '../schema/user/user.inputs.ts';
import { logFilter, recoverInput, webhookCreateInput, webhookUpdateInput } from '../schema/webhook/webhook.inputs.ts';
import { eventLogFilter } from '../schema/event/event-log.inputs.ts';
import { auditLogFilter } from '../schema/audit/audit-log.inputs.ts';
import { importSettings } from '../schema/import/import.inputs.ts';
import type { ExportResource } from '../schema/export/export.sources.ts';
import { exportInput, exportQuery } from './export/export.inputs.ts';

export interface RestRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  operation: string;
  variables?: (r: RouteRequest) => Record<string, unknown>;
  /** Success status, or a function of the result (bulk answers 207 when some rows failed). */
  status?: number | ((data: { failed: number; created?: number }) => number);
  /** Every status a function `status` can answer, for the API reference. */
  statuses?: number[];
  /** The zod schema the resolver checks the JSON body with. */
  body?: z.ZodType;
  /** The zod schema of the query parameters other than paging (list filters, search `q`). */
  query?: z.ZodType;
  /** Errors of business rules (404 for ids in the body, 409, 422), beyond those every route can answer. */
  errors?: number[];
  /** Any valid key may call it: no scope check, so never a 403. */
  anyKey?: boolean;
  /** The response is a page: `data` is its nodes, `meta` its cursor fields. */
  list?: boolean;
  /** Honours `?fields=a,b` (id is always kept). */
  fields?: boolean;
  /**
   * A body list whose rows succeed or fail alone, up to `max` of them: a row not of its type fails
   * as a row (bulk-rows.ts).
   */
  rows?: { field: string; max: number };
  /**
   * Honours If-Match (a write of one versioned record): the header's version becomes the
   * operation's `$expected_version`, and a record at another version answers 412.
   */
  ifMatch?: boolean;
  /** The API reference's name for the route, where two routes run one operation (exports). */
  operationId?: string;
  /**
   * The whole filtered list as a file (rest/export): the operation is the list's, whose variables
   * check the filter; the records are read in one snapshot and streamed, not answered as JSON.
   */
  export?: ExportResource;
  /**
   * The body is a multipart upload (rest/import): its file is stored as it arrives, and its other
   * parts are the settings, which become the operation's `input` with the upload's id.
   */
  upload?: { body: z.ZodType };
  /** The answer is a file the route writes itself (rest/import) once the operation has found its record. */
  file?: 'import-failed-rows';
}

/**
 * `GET` (query-string filters) and `POST` (the filter language) `/<resource>/export`, run on the
 * list's and the query's operations: their variables check the filter exactly as the lists do.
 */
function exportRoutes(
  resource: ExportResource,
  name: string,
  filter: z.ZodObject,
  spec: Parameters<typeof queryBody>[0],
): RestRoute[] {
  return [
    {
      method: 'GET',
      path: `/${resource}/export`,
      operation: `List${name}`,
      operationId: `Export${name}`,
      variables: page(undefined, true),
      query: exportQuery(filter),
      fields: true,
      export: resource,
    },
    {
      method: 'POST',
      path: `/${resource}/export`,
      operation: `Query${name}`,
      operationId: `Export${name}ByQuery`,
      variables: queryBody(spec),
      body: exportInput(spec),
      fields: true,
      export: resource,
    },
  ];
}

/** A batch: 207 when an operation failed, else 201 when one created a record, else 200. */
const batchStatus = (d: { failed: number; created?: number }) => (d.failed ? 207 : d.created ? 201 : 200);

export const routes: RestRoute[] = [
  // Contacts
  {
    method: 'GET',
    path: '/contacts',
    operation: 'ListContacts',
    variables: page(undefined, true),
    query: contactFilter,
    list: true,
    fields: true,
  },
  ...exportRoutes('contacts', 'Contacts', contactFilter, CONTACT_WHERE),
  {
    method: 'GET',
    path: '/contacts/search',
    operation: 'SearchContacts',
    variables: page((r) => ({ q: text(r.query.q) ?? '' })),
    query: searchInput,
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/contacts/query',
    operation: 'QueryContacts',
    variables: queryBody(CONTACT_WHERE),
    body: queryInput(CONTACT_WHERE),
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/contacts/bulk',
    operation: 'BulkCreateContacts',
    variables: body,
    body: bulkInput,
    rows: { field: 'contacts', max: BULK_MAX },
    status: (d: { failed: number }) => (d.failed ? 207 : 201),
    statuses: [201, 207],
  },
  {
    method: 'POST',
    path: '/contacts/batch',
    operation: 'BatchContacts',
    variables: body,
    body: contactBatchInput,
    rows: { field: 'operations', max: BATCH_MAX },
    status: batchStatus,
    statuses: [200, 201, 207],
  },
  {
    method: 'POST',
    path: '/contacts/merge',
    operation: 'MergeContacts',
    variables: body,
    body: mergeInput,
    errors: [404, 422],
  },
  {
    method: 'POST',
    path: '/contacts',
    operation: 'CreateContact',
    variables: body,
    body: contactCreateInput,
    status: 201,
    errors: [409, 422],
  },
  { method: 'GET', path: '/contacts/:id', operation: 'GetContact', variables: id, fields: true },
  {
    method: 'PUT',
    path: '/contacts/:id',
    operation: 'UpdateContact',
    variables: idAndBody,
    body: contactUpdateInput,
    errors: [409, 422],
    ifMatch: true,
  },
  { method: 'DELETE', path: '/contacts/:id', operation: 'DeleteContact', variables: id, ifMatch: true },
  { method: 'GET', path: '/contacts/:id/notes', operation: 'ListContactNotes', variables: page(contactId), list: true },
  {
    method: 'POST',
    path: '/contacts/:id/notes',
    operation: 'CreateContactNote',
    variables: (r) => ({ contactId: r.params.id, input: r.body }),
    body: noteInput,
    status: 201,
  },
  {
    method: 'GET',
    path: '/contacts/:id/timeline',
    operation: 'ContactTimeline',
    variables: page(contactId),
    list: true,
  },

  // Companies
  {
    method: 'GET',
    path: '/companies',
    operation: 'ListCompanies',
    variables: page(undefined, true),
    query: companyFilter,
    list: true,
    fields: true,
  },
  ...exportRoutes('companies', 'Companies', companyFilter, COMPANY_WHERE),
  {
    method: 'POST',
    path: '/companies/batch',
    operation: 'BatchCompanies',
    variables: body,
    body: companyBatchInput,
    rows: { field: 'operations', max: BATCH_MAX },
    status: batchStatus,
    statuses: [200, 201, 207],
  },
  {
    method: 'POST',
    path: '/companies/query',
    operation: 'QueryCompanies',
    variables: queryBody(COMPANY_WHERE),
    body: queryInput(COMPANY_WHERE),
    list: true,
    fields: true,
  },
  {
    method: 'GET',
    path: '/companies/search',
    operation: 'SearchCompanies',
    variables: page((r) => ({ q: text(r.query.q) ?? '' })),
    query: searchInput,
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/companies/merge',
    operation: 'MergeCompanies',
    variables: body,
    body: companyMergeInput,
    errors: [404, 409, 422],
  },
  {
    method: 'POST',
    path: '/companies',
    operation: 'CreateCompany',
    variables: body,
    body: companyCreateInput,
    status: 201,
    errors: [409, 422],
  },
  { method: 'GET', path: '/companies/:id', operation: 'GetCompany', variables: id, fields: true },
  {
    method: 'PUT',
    path: '/companies/:id',
    operation: 'UpdateCompany',
    variables: idAndBody,
    body: companyUpdateInput,
    errors: [409, 422],
    ifMatch: true,
  },
  { method: 'DELETE', path: '/companies/:id', operation: 'DeleteCompany', variables: id, ifMatch: true },
  {
    method: 'GET',
    path: '/companies/:id/contacts',
    operation: 'CompanyContacts',
    variables: page((r) => ({ companyId: r.params.id })),
    list: true,
  },
  {
    method: 'GET',
    path: '/companies/:id/deals',
    operation: 'CompanyDeals',
    variables: page((r) => ({ companyId: r.params.id })),
    list: true,
  },
  {
    method: 'GET',
    path: '/companies/:id/notes',
    operation: 'ListCompanyNotes',
    variables: page((r) => ({ companyId: r.params.id })),
    list: true,
  },
  {
    method: 'POST',
    path: '/companies/:id/notes',
    operation: 'CreateCompanyNote',
    variables: (r) => ({ companyId: r.params.id, input: r.body }),
    body: noteInput,
    status: 201,
  },
  {
    method: 'GET',
    path: '/companies/:id/activities',
    operation: 'ListCompanyActivities',
    variables: page((r) => ({ companyId: r.params.id })),
    list: true,
  },
  {
    method: 'GET',
    path: '/companies/:id/timeline',
    operation: 'CompanyTimeline',
    variables: page((r) => ({ companyId: r.params.id })),
    list: true,
  },

  // Deals and pipelines
  { method: 'GET', path: '/pipelines', operation: 'ListPipelines', variables: page(), list: true },
  {
    method: 'POST',
    path: '/pipelines',
    operation: 'CreatePipeline',
    variables: body,
    body: pipelineCreateInput,
    status: 201,
  },
  { method: 'GET', path: '/pipelines/:id', operation: 'GetPipeline', variables: id },
  {
    method: 'PUT',
    path: '/pipelines/:id',
    operation: 'UpdatePipeline',
    variables: idAndBody,
    body: pipelineUpdateInput,
    errors: [422],
    ifMatch: true,
  },
  {
    method: 'DELETE',
    path: '/pipelines/:id',
    operation: 'DeletePipeline',
    variables: id,
    errors: [409],
    ifMatch: true,
  },
  {
    method: 'GET',
    path: '/pipelines/:id/stages',
    operation: 'ListPipelineStages',
    variables: page((r) => ({ pipelineId: r.params.id })),
    list: true,
  },
  {
    method: 'POST',
    path: '/pipelines/:id/stages',
    operation: 'CreateStage',
    variables: (r) => ({ pipelineId: r.params.id, input: r.body }),
    body: stageCreateInput,
    status: 201,
    errors: [422],
  },
  {
    method: 'PUT',
    path: '/pipelines/:id/stages/:stage_id',
    operation: 'UpdateStage',
    variables: (r) => ({ pipelineId: r.params.id, id: r.params.stage_id, input: r.body }),
    body: stageUpdateInput,
    ifMatch: true,
  },
  {
    method: 'DELETE',
    path: '/pipelines/:id/stages/:stage_id',
    operation: 'DeleteStage',
    variables: (r) => ({ pipelineId: r.params.id, id: r.params.stage_id }),
    errors: [409],
    ifMatch: true,
  },
  {
    method: 'GET',
    path: '/deals',
    operation: 'ListDeals',
    variables: page(undefined, true),
    query: dealFilter,
    list: true,
  },
  ...exportRoutes('deals', 'Deals', dealFilter, DEAL_WHERE),
  {
    method: 'POST',
    path: '/deals/batch',
    operation: 'BatchDeals',
    variables: body,
    body: dealBatchInput,
    rows: { field: 'operations', max: BATCH_MAX },
    status: batchStatus,
    statuses: [200, 201, 207],
  },
  {
    method: 'POST',
    path: '/deals/query',
    operation: 'QueryDeals',
    variables: queryBody(DEAL_WHERE),
    body: queryInput(DEAL_WHERE),
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/deals',
    operation: 'CreateDeal',
    variables: body,
    body: dealCreateInput,
    status: 201,
    errors: [409, 422],
  },
  { method: 'GET', path: '/deals/:id', operation: 'GetDeal', variables: id },
  {
    method: 'PUT',
    path: '/deals/:id',
    operation: 'UpdateDeal',
    variables: idAndBody,
    body: dealUpdateInput,
    errors: [409, 422],
    ifMatch: true,
  },
  { method: 'DELETE', path: '/deals/:id', operation: 'DeleteDeal', variables: id, ifMatch: true },
  {
    method: 'PUT',
    path: '/deals/:id/stage',
    operation: 'MoveDealStage',
    variables: idAndBody,
    body: moveStageInput,
    errors: [422],
    ifMatch: true,
  },
  {
    method: 'GET',
    path: '/deals/:id/contacts',
    operation: 'ListDealContacts',
    variables: page((r) => ({ dealId: r.params.id })),
    list: true,
  },
  {
    method: 'POST',
    path: '/deals/:id/contacts',
    operation: 'AddDealContact',
    variables: (r) => ({ dealId: r.params.id, input: r.body }),
    body: dealContactInput,
    status: 201,
    errors: [409, 422],
  },
  {
    method: 'DELETE',
    path: '/deals/:id/contacts/:contact_id',
    operation: 'RemoveDealContact',
    variables: (r) => ({ dealId: r.params.id, contactId: r.params.contact_id }),
  },
  { method: 'GET', path: '/contacts/:id/deals', operation: 'ContactDeals', variables: page(contactId), list: true },

  // Tasks
  {
    method: 'GET',
    path: '/tasks',
    operation: 'ListTasks',
    variables: page(undefined, true),
    query: taskFilter,
    list: true,
  },
  ...exportRoutes('tasks', 'Tasks', taskFilter, TASK_WHERE),
  {
    method: 'POST',
    path: '/tasks/batch',
    operation: 'BatchTasks',
    variables: body,
    body: taskBatchInput,
    rows: { field: 'operations', max: BATCH_MAX },
    status: batchStatus,
    statuses: [200, 201, 207],
  },
  {
    method: 'POST',
    path: '/tasks/query',
    operation: 'QueryTasks',
    variables: queryBody(TASK_WHERE),
    body: queryInput(TASK_WHERE),
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/tasks',
    operation: 'CreateTask',
    variables: body,
    body: taskCreateInput,
    status: 201,
    errors: [422],
  },
  { method: 'GET', path: '/tasks/:id', operation: 'GetTask', variables: id },
  {
    method: 'PUT',
    path: '/tasks/:id/complete',
    operation: 'CompleteTask',
    variables: idAndBody,
    body: taskCompleteInput,
    errors: [422],
    ifMatch: true,
  },
  {
    method: 'PUT',
    path: '/tasks/:id',
    operation: 'UpdateTask',
    variables: idAndBody,
    body: taskUpdateInput,
    errors: [422],
    ifMatch: true,
  },
  { method: 'DELETE', path: '/tasks/:id', operation: 'DeleteTask', variables: id, ifMatch: true },

  // Activities
  {
    method: 'GET',
    path: '/activities',
    operation: 'ListActivities',
    variables: page(undefined, true),
    query: activityFilter,
    list: true,
  },
  ...exportRoutes('activities', 'Activities', activityFilter, ACTIVITY_WHERE),
  {
    method: 'POST',
    path: '/activities/query',
    operation: 'QueryActivities',
    variables: queryBody(ACTIVITY_WHERE),
    body: queryInput(ACTIVITY_WHERE),
    list: true,
    fields: true,
  },
  {
    method: 'POST',
    path: '/activities',
    operation: 'CreateActivity',
    variables: body,
    body: activityCreateInput,
    status: 201,
    errors: [422],
  },
  { method: 'GET', path: '/activities/feed', operation: 'ActivityFeed', variables: page(), list: true },
  { method: 'GET', path: '/activities/:id', operation: 'GetActivity', variables: id },
  {
    method: 'GET',
    path: '/contacts/:id/activities',
    operation: 'ListContactActivities',
    variables: page(contactId),
    list: true,
  },
  {
    method: 'GET',
    path: '/deals/:id/activities',
    operation: 'ListDealActivities',
    variables: page((r) => ({ dealId: r.params.id })),
    list: true,
  },

  // Users
  {
    method: 'GET',
    path: '/users',
    operation: 'ListUsers',
    variables: page(undefined, true),
    query: userFilter,
    list: true,
    anyKey: true,
  },
  { method: 'GET', path: '/users/:id', operation: 'GetUser', variables: id, anyKey: true },
  {
    method: 'PUT',
    path: '/users/:id/notification-preferences',
    operation: 'UpdateNotificationPreferences',
    variables: (r) => ({ userId: r.params.id, input: r.body }),
    body: preferencesInput,
    ifMatch: true,
  },

  // The workspace's settings
  { method: 'GET', path: '/settings', operation: 'GetWorkspaceSettings', anyKey: true },
  {
    method: 'PUT',
    path: '/settings',
    operation: 'UpdateWorkspaceSettings',
    variables: body,
    body: settingsInput,
  },

  // The event log
  {
    method: 'GET',
    path: '/events',
    operation: 'ListEvents',
    variables: page(undefined, true),
    query: eventLogFilter,
    list: true,
    // Events about records the key may not read are left out, with a warning.
    anyKey: true,
  },

  // The audit log: full-access keys only.
  {
    method: 'GET',
    path: '/audit-log',
    operation: 'ListAuditLog',
    variables: page(undefined, true),
    query: auditLogFilter,
    list: true,
  },

  // Imports
  {
    method: 'POST',
    path: '/imports',
    operation: 'CreateImport',
    variables: body,
    upload: { body: importSettings },
    status: 202,
    errors: [413],
  },
  // Any key: the list holds the jobs of the kinds of record it may read.
  { method: 'GET', path: '/imports', operation: 'ListImports', variables: page(), list: true, anyKey: true },
  { method: 'GET', path: '/imports/:id', operation: 'GetImport', variables: id },
  {
    method: 'GET',
    path: '/imports/:id/failed-rows',
    operation: 'GetImport',
    operationId: 'GetImportFailedRows',
    variables: id,
    file: 'import-failed-rows',
  },

  // Webhooks
  { method: 'GET', path: '/webhooks', operation: 'ListWebhooks', variables: page(), list: true },
  {
    method: 'POST',
    path: '/webhooks',
    operation: 'CreateWebhook',
    variables: body,
    body: webhookCreateInput,
    status: 201,
    errors: [422],
  },
  { method: 'GET', path: '/webhooks/:id', operation: 'GetWebhook', variables: id },
  {
    method: 'PUT',
    path: '/webhooks/:id',
    operation: 'UpdateWebhook',
    variables: idAndBody,
    body: webhookUpdateInput,
    ifMatch: true,
  },
  { method: 'DELETE', path: '/webhooks/:id', operation: 'DeleteWebhook', variables: id, ifMatch: true },
  {
    method: 'GET',
    path: '/webhooks/:id/logs',
    operation: 'WebhookLogs',
    variables: page((r) => ({ webhookId: r.params.id }), true),
    query: logFilter,
    list: true,
  },
  { method: 'POST', path: '/webhooks/:id/test', operation: 'TestWebhook', variables: id },
  {
    method: 'POST',
    path: '/webhooks/:id/logs/:log_id/redeliver',
    operation: 'RedeliverWebhook',
    variables: (r) => ({ id: r.params.id, logId: r.params.log_id }),
    status: 202,
    errors: [409, 422],
  },
  {
    method: 'POST',
    path: '/webhooks/:id/recover',
    operation: 'RecoverWebhookEvents',
    variables: idAndBody,
    body: recoverInput,
    status: 202,
    errors: [422],
  },
];
