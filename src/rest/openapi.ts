// The OpenAPI 3.1 document of the REST API, generated once at start from the route table: request
// bodies and filters from the zod schemas each route names (the ones its resolver validates with),
// responses from the selection sets of its GraphQL operation. Nothing here is a second copy to
// keep in step by hand.
import { STATUS_CODES } from 'node:http';
import {
  getNamedType,
  isEnumType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../schema/common/pagination.ts';
import { EXACT_UP_TO } from '../schema/common/total.ts';
import {
  commonHeaders,
  ERROR_RESPONSES,
  etagHeader,
  notModifiedResponse,
  errorResponseRef,
  sharedComponents,
  successEnvelope,
  writeSuccessHeaders,
} from './openapi/components.ts';
import type { z } from 'zod';
import { queryParameters, requestSchema, type JsonSchema, type Parameter } from './openapi/request.ts';
import { ResponseSchemas } from './openapi/response.ts';
import { webhooksSection } from './openapi/webhooks.ts';
import { routes, type RestRoute } from './routes.ts';

const INTRO = [
  'Contacts, deals in pipelines, tasks, activities and webhooks. Every path also answers under `/api/v1`.',
  '',
  '- **Authentication**: `Authorization: Bearer crm_live_…` (or `crm_test_…` for the sandbox). ' +
    'Keys carry a scope; an operation it does not allow is a 403.',
  '- **Envelopes**: `{ success: true, data, meta }`, or `{ success: false, error: { code, message, details }, meta }`.',
  `- **Lists** are pages: \`meta.total\`, \`limit\` (1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}), \`has_more\`, ` +
    '`next_cursor`; pass `?cursor=<next_cursor>` for the next page. ' +
    `For contacts and deals \`total\` is exact up to ${EXACT_UP_TO.toLocaleString('en')} matches ` +
    'and may be up to a minute old above that.',
  '- **Rate limits** per key and minute; every answer carries `X-RateLimit-Limit`, `X-RateLimit-Remaining`, ' +
    '`X-RateLimit-Reset`, and a 429 `Retry-After`.',
  '- A known path with a method it does not take answers 405 with an `Allow` header.',
  '- **Versions**: every record has `version`, raised by each write and sent as the `ETag` of single-record ' +
    'answers. `If-Match` on PUT, DELETE and stage moves applies a write only to that version (else 412 with ' +
    '`details.current_version`); `If-None-Match` on GET answers 304 while it is unchanged.',
].join('\n');

/** Paging variables an operation may declare; their help text unless the field's argument has its own. */
const PAGE_PARAMETERS: Record<string, { schema: JsonSchema; help: string }> = {
  limit: {
    schema: { type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT },
    help: `Page size, 1 to ${MAX_LIMIT}.`,
  },
  cursor: { schema: { type: 'string' }, help: '`meta.next_cursor` of the previous page.' },
  sort: { schema: { type: 'string' }, help: 'Comma-separated fields; a leading - sorts descending.' },
};

interface Operation {
  definition: OperationDefinitionNode;
  variables: Set<string>;
  /** The operation's one root field, whose value is the response. */
  field: FieldNode;
  rootField: GraphQLField<unknown, unknown>;
}

function operationOf(route: RestRoute, schema: GraphQLSchema, operations: Map<string, DocumentNode>): Operation {
  const document = operations.get(route.operation);
  const definition = document?.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const [field] = definition?.selectionSet.selections ?? [];
  const root = definition?.operation === 'mutation' ? schema.getMutationType() : schema.getQueryType();
  if (!definition || field?.kind !== Kind.FIELD || !root)
    throw new Error(`Route ${route.method} ${route.path}: operation ${route.operation} has no root field`);
  const variables = new Set(definition.variableDefinitions?.map((v) => v.variable.name.value));
  return { definition, variables, field, rootField: root.getFields()[field.name.value] };
}

/** `ListContacts` → `List contacts`. */
const summaryOf = (operation: string) =>
  operation.replace(/(?<=[a-z])([A-Z])/g, ' $1').replace(/ [A-Z]/g, (w) => w.toLowerCase());

const tagOf = (route: RestRoute) => {
  const first = route.path.split('/')[1];
  return (first.charAt(0).toUpperCase() + first.slice(1)).replace(/-/g, ' ');
};

/** One per tag (the first path segment); a route under a new segment stops the start until it has one. */
const TAG_DESCRIPTIONS: Record<string, string> = {
  Contacts: 'People and companies: create, search, merge, bulk import; their notes, timeline, deals and activities.',
  Companies:
    'Organisations as records: unique domains, merges, search; ' +
    'the contacts and deals linked to them, their notes and activities, and their timeline.',
  Pipelines: 'Sales pipelines and their ordered stages.',
  Deals: 'Opportunities moving through the stages of a pipeline, and the contacts on them.',
  Tasks:
    'To-dos with due dates, priorities and reminders, assigned to users and related to a contact, company or deal.',
  Activities:
    'Calls, emails, meetings, notes and messages logged against contacts, companies and deals, and the workspace feed.',
  Users: "The workspace's users and their notification preferences.",
  Events:
    'The event log: every change webhooks deliver, oldest first, with the same ids, for integrations that ' +
    'catch up on what they missed.',
  'Audit log':
    'Every write of the workspace, with who made it, from which request and address, and the fields it changed ' +
    '(full-access keys only).',
  Imports:
    'Files of contacts, companies or deals (CSV or JSON Lines, up to 1 GiB) imported in the background, ' +
    'with progress, and the rows that could not be imported listed with their reasons. See docs/imports.md.',
  Webhooks: 'Subscriptions that receive signed events, their delivery logs, test sends and redeliveries.',
  Settings: "The workspace's settings, such as linking new contacts to companies by e-mail domain.",
};

const EXPORT_DESCRIPTION =
  'Every record the filter matches, as one file, read in one consistent snapshot and streamed: ' +
  'oldest first (created_at, then id), the same filters as the list, no paging. ' +
  'A file cut short (a dropped connection) ends without its final chunk: download it again. See docs/exports.md.';

/** An export's file: a CSV with a header row, or one JSON record (as the record's GET answers it) per line. */
const EXPORT_CONTENT = {
  'text/csv': { schema: { type: 'string', description: 'A header row, then one row per record.' } },
  'application/x-ndjson': { schema: { type: 'string', description: 'One JSON record per line.' } },
};

/** Where a created job is read (POST /v1/imports). */
const LOCATION_HEADER = {
  Location: {
    required: true,
    description: 'The path of the job: GET it for its progress.',
    schema: { type: 'string' },
  },
};

const FILE_CONTENT = {
  'text/csv': {
    schema: {
      type: 'string',
      description: 'A header row (error, line, then the columns of the file), then one row per row not imported.',
    },
  },
};

/** A multipart upload: the file, and the settings as form fields (an object one as JSON text). */
function uploadSchema(settings: z.ZodType): JsonSchema {
  const fields = requestSchema(settings);
  return {
    ...fields,
    properties: {
      file: {
        type: 'string',
        format: 'binary',
        contentMediaType: 'application/octet-stream',
        description: 'The file: CSV with a header row, or JSON Lines; UTF-8; up to IMPORT_MAX_BYTES (1 GiB)',
      },
      ...(fields.properties as object),
    },
    required: ['file', ...((fields.required as string[] | undefined) ?? [])],
  };
}

/** The operation's description: its GraphQL root field's, which every root field has (the schema linter checks). */
function descriptionOf(route: RestRoute, op: Operation): string {
  if (op.rootField.description) return op.rootField.description;
  throw new Error(
    `Route ${route.method} ${route.path}: give the root field ${op.rootField.name} a description (the operation's)`,
  );
}

/** Paging parameters the operation declares, described by the root field's own arguments. */
function pageParameters(op: Operation, route: RestRoute, fieldNames: string[]): Parameter[] {
  const params: Parameter[] = Object.entries(PAGE_PARAMETERS)
    // An export is the whole list: it pages itself.
    .filter(([name]) => !route.export && op.variables.has(name))
    .map(([name, { schema, help }]) => {
      const arg = op.rootField.args.find((a) => a.name === name);
      const sortEnum = name === 'sort' && arg ? getNamedType(arg.type) : undefined;
      // GraphQL sorts by enum values (created_at_desc); REST by the field names they stand for (-created_at).
      const sortFields = (values: readonly { value: unknown }[]) =>
        [...new Set(values.map((v) => String(v.value).replace(/^-/, '')))].join(', ');
      const description =
        sortEnum && isEnumType(sortEnum)
          ? `Comma-separated fields, a leading - for descending: ${sortFields(sortEnum.getValues())}.`
          : (arg?.description ?? help);
      return { name, in: 'query', required: false, description, schema };
    });
  if (route.fields) {
    params.push({
      name: 'fields',
      in: 'query',
      required: false,
      description: `Comma-separated fields to return (\`id\` always is): ${fieldNames.join(', ')}.`,
      schema: { type: 'string' },
    });
  }
  return params;
}

/**
 * Error statuses a route can answer: the guard's, the database's, the body parser's, its inputs', and its own rules'.
 */
function errorStatuses(route: RestRoute, params: Parameter[]): number[] {
  const statuses = new Set([401, 429, 500, 503, ...(route.errors ?? [])]);
  const hasBody = route.method === 'POST' || route.method === 'PUT';
  if (hasBody || params.some((p) => p.in === 'query')) statuses.add(400);
  if (hasBody) [413, 415].forEach((s) => statuses.add(s));
  if (!route.anyKey) statuses.add(403);
  if (route.path.includes('/:')) statuses.add(404);
  return ERROR_RESPONSES.filter((s) => statuses.has(s));
}

/** What a route answers as `data`: a list answers its page's nodes (the page fields go to `meta`). */
function dataSchema(route: RestRoute, op: Operation, responses: ResponseSchemas): JsonSchema {
  const { rootField } = op;
  const partial = Boolean(route.fields);
  if (!route.list && !route.export) return responses.answer(rootField.type, op.field.selectionSet, partial);
  const page = getNamedType(rootField.type);
  const nodes = op.field.selectionSet?.selections.find(
    (s): s is FieldNode => s.kind === Kind.FIELD && s.name.value === 'nodes',
  );
  if (!isObjectType(page) || !nodes)
    throw new Error(`Route ${route.method} ${route.path}: a list operation must select the nodes of a page`);
  return {
    type: 'array',
    items: responses.answer(getNamedType(page.getFields().nodes.type), nodes.selectionSet, partial),
  };
}

/** Fails the start when a route's operation takes input the route table does not describe. */
function assertDescribed(route: RestRoute, op: Operation): void {
  if (op.variables.has('input') && !route.body && !route.upload)
    throw new Error(`Route ${route.method} ${route.path} takes a body: name its zod schema in routes.ts (body)`);
  if (op.variables.has('filter') && !route.query)
    throw new Error(`Route ${route.method} ${route.path} takes filters: name their zod schema in routes.ts (query)`);
  if (typeof route.status === 'function' && !route.statuses)
    throw new Error(`Route ${route.method} ${route.path}: list the statuses its status function answers (statuses)`);
}

const IDEMPOTENCY_KEY: Parameter = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Up to 255 characters. Within 24 h the same key and body replay the first answer ' +
    '(with Idempotent-Replayed: true) and change nothing; the same key with another body is a 422; ' +
    'while the first request runs, a 409.',
  schema: { type: 'string', maxLength: 255 },
};

const IF_MATCH: Parameter = {
  name: 'If-Match',
  in: 'header',
  required: false,
  description:
    'The ETag of the version the change is based on (`"3"`; `W/"3"` counts as 3), or `*` for any version. ' +
    'When the record is at another version nothing is changed and the answer is 412 with ' +
    '`details.current_version`. A value of another form is a 400. Without it the write applies to the current version.',
  schema: { type: 'string' },
};

const IF_NONE_MATCH: Parameter = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'ETags the client holds (`"3"`, `W/"3"`, a comma-separated list) or `*`: when the record is at one of those ' +
    'versions the answer is 304 without a body. A value of another form is a 400.',
  schema: { type: 'string' },
};

/** Whether a single-record answer carries `version`, which the router sends as its ETag. */
function carriesVersion(route: RestRoute, data: JsonSchema, responses: ResponseSchemas): boolean {
  if (route.list) return false;
  const ref = typeof data.$ref === 'string' ? data.$ref.split('/').pop() : undefined;
  const schema = ref ? responses.components[ref] : data;
  return Boolean((schema?.properties as Record<string, unknown> | undefined)?.version);
}

/** The OpenAPI operation of one route; its request body schema is added to `bodies`. */
function describeRoute(
  route: RestRoute,
  op: Operation,
  responses: ResponseSchemas,
  bodies: Record<string, JsonSchema>,
) {
  const data = dataSchema(route, op, responses);
  const item = route.list || route.export ? (data.items as JsonSchema) : data;
  const fieldNames = Object.keys((item.properties as object | undefined) ?? {});
  const pathParams: Parameter[] = [...route.path.matchAll(/:(\w+)/g)].map(([, name]) => ({
    name,
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const parameters = [
    ...pathParams,
    ...(route.query ? queryParameters(route.query) : []),
    ...pageParameters(op, route, fieldNames),
  ];
  // Every POST and PUT takes an Idempotency-Key (src/http/idempotency.ts): a replay, or 409/422.
  // (Not an upload: its file is read as it arrives, and a key's replay would need it kept whole.)
  const writes = (route.method === 'POST' || route.method === 'PUT') && !route.export && !route.upload;
  if (writes) parameters.push(IDEMPOTENCY_KEY);
  // A record's version is its ETag; writes of one record may be conditional, reads of one may answer 304.
  const tagged = carriesVersion(route, data, responses);
  const notModified = tagged && route.method === 'GET';
  if (route.ifMatch) parameters.push(IF_MATCH);
  if (notModified) parameters.push(IF_NONE_MATCH);
  const operationId = route.operationId ?? route.operation;
  const operation: Record<string, unknown> = {
    operationId,
    summary: summaryOf(operationId),
    description: route.export ? EXPORT_DESCRIPTION : descriptionOf(route, op),
    tags: [tagOf(route)],
    ...(parameters.length ? { parameters } : {}),
  };
  if (route.body) {
    const name = `${route.operation}Body`;
    bodies[name] = requestSchema(route.body);
    const required = ((bodies[name].required as string[] | undefined) ?? []).length > 0;
    operation.requestBody = {
      required,
      content: { 'application/json': { schema: { $ref: `#/components/schemas/${name}` } } },
    };
  }
  if (route.upload) {
    const name = `${route.operation}Body`;
    bodies[name] = uploadSchema(route.upload.body);
    operation.requestBody = {
      required: true,
      content: {
        'multipart/form-data': {
          schema: { $ref: `#/components/schemas/${name}` },
          encoding: {
            file: { contentType: 'text/csv, application/x-ndjson, application/octet-stream' },
            mapping: { contentType: 'application/json' },
          },
        },
      },
    };
  }
  const success = route.statuses ?? [typeof route.status === 'number' ? route.status : 200];
  const content = route.export
    ? EXPORT_CONTENT
    : route.file
      ? FILE_CONTENT
      : { 'application/json': { schema: successEnvelope(data, Boolean(route.list)) } };
  const headers = {
    ...(writes ? writeSuccessHeaders : commonHeaders),
    ...(tagged ? etagHeader : {}),
    ...(route.upload ? LOCATION_HEADER : {}),
  };
  const preconditions = route.ifMatch || notModified ? [400] : [];
  operation.responses = {
    ...Object.fromEntries(success.map((s) => [String(s), { description: STATUS_CODES[s], headers, content }])),
    ...(notModified ? { '304': notModifiedResponse } : {}),
    ...Object.fromEntries(
      [
        ...new Set([
          ...errorStatuses(route, parameters),
          ...(writes ? [409, 422] : []),
          ...(route.ifMatch ? [412] : []),
          ...preconditions,
        ]),
      ]
        .sort()
        .map((s) => [String(s), errorResponseRef(s)]),
    ),
  };
  return operation;
}

export interface OpenApiOptions {
  /** PUBLIC_URL: named as the first server, so a client generated from the served document has a full URL. */
  publicOrigin?: string | null;
}

/**
 * Paths start with /v1, so a server is an origin. `/` is the one the document was read from;
 * contract/openapi.json is built without a public origin and has only that one.
 */
function serversOf(publicOrigin: string | null | undefined) {
  const here = { url: '/', description: 'The origin this document was read from.' };
  return publicOrigin ? [{ url: publicOrigin, description: 'This instance (PUBLIC_URL).' }, here] : [here];
}

export function buildOpenApi(
  schema: GraphQLSchema,
  operations: Map<string, DocumentNode>,
  options: OpenApiOptions = {},
) {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const document of operations.values()) {
    for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  }
  const responses = new ResponseSchemas(fragments);
  const bodies: Record<string, JsonSchema> = {};
  const paths: Record<string, Record<string, unknown>> = {};

  for (const route of routes) {
    const op = operationOf(route, schema, operations);
    assertDescribed(route, op);
    const path = '/v1' + route.path.replace(/:(\w+)/g, '{$1}');
    (paths[path] ??= {})[route.method.toLowerCase()] = describeRoute(route, op, responses, bodies);
  }

  const tags = [...new Set(routes.map(tagOf))].map((name) => {
    if (!TAG_DESCRIPTIONS[name]) throw new Error(`Tag ${name} has no description (TAG_DESCRIPTIONS)`);
    return { name, description: TAG_DESCRIPTIONS[name] };
  });
  const events = webhooksSection();
  return {
    openapi: '3.1.0',
    info: { title: 'CRM API', version: 'v1', description: INTRO },
    servers: serversOf(options.publicOrigin),
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    webhooks: events.webhooks,
    components: {
      ...sharedComponents,
      schemas: { ...sharedComponents.schemas, ...responses.components, ...bodies, ...events.schemas },
    },
  };
}
