// Serves the route table: matches method and path, turns the request into GraphQL variables,
// runs the route's operation in-process and wraps the result in the API's envelopes.
// Operations run through yoga's enveloped pipeline (`getEnveloped` → `contextFactory` → `execute`,
// as the yoga sofa plugin does), so a plugin added to yoga runs for REST too; the plugins of the
// GraphQL transport leave REST operations alone (graphql/in-process.ts). What `execute` runs for
// a route's document is the function graphql-jit compiled it to at start (the plugin below).
// Each request reserves room for its answer in the process's answer pool (http/answer-pool.ts),
// estimated by the operation's cost with the request's `limit`, and gives it back once the answer
// is written; the answer's exact JSON size is counted before it is serialized: over the per-answer
// budget it is refused, over its reservation it must find room in the pool or is refused with 503.
import type { NextFunction, Request, Response } from 'express';
import {
  getNamedType,
  Kind,
  visit,
  isObjectType,
  typeFromAST,
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  type GraphQLInputType,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin, YogaServerInstance } from 'graphql-yoga';
import { AppError, internalError, validationError } from '../errors.ts';
import type { Context } from '../schema/context.ts';
import { Redacted } from '../schema/read-access.ts';
import { NOT_UTF8_MESSAGE } from '../http/query-string.ts';
import { UNSTORABLE_MESSAGE, unstorablePath } from '../schema/common/storable.ts';
import { sendData } from './envelope.ts';
import { routes, type RestRoute } from './routes.ts';
import { sendError, toAppError } from './errors.ts';
import { restVariables } from './variables.ts';
import { answerUnfitRows, rowTypeOf, setAsideUnfitRows, type BulkAnswer, type SetAside } from './bulk-rows.ts';
import { operationCost } from '../graphql/cost.ts';
import { isRecursive } from '../graphql/recursive-inputs.ts';
import { estimateOf, type AnswerPool, type Reservation } from '../http/answer-pool.ts';
import { ANSWER_WRITE_DEADLINE_MS } from '../graphql/answer-admission.ts';
import { jsonBytes } from '../http/json-bytes.ts';
import { answerVersion, etagOf, noneMatchHolds, parsePrecondition } from '../http/etag.ts';
import type { InProcessContext } from '../graphql/in-process.ts';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../schema/common/pagination.ts';
import type { SendExport } from './export/export.stream.ts';
import { discardUpload, receiveUpload, type Upload } from './import/import.upload.ts';
import type { SendFile } from './import/import.failed-rows.ts';

type Execute = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

interface CompiledRoute extends RestRoute {
  pattern: RegExp;
  paramNames: string[];
  /** The route's operation, parsed and validated at start (operations.ts). */
  document: DocumentNode;
  /** The operation compiled to a function once at start (graphql-jit): what `execute` runs for it. */
  run: Execute;
  /** Top-level field of the operation, whose value is the response. */
  field: string;
  /** For `fields=`: the names a client may ask for. */
  selectable: Set<string>;
  /** The bytes to reserve for an answer, by the request's variables (its `limit`). */
  estimate: (variables: Record<string, unknown>) => number;
  /** The request's values as the operation's typed variables, or a 400 naming each field that does not fit. */
  typed: (variables: Record<string, unknown>) => Record<string, unknown>;
  /** For a route with `rows`: the type of one row. */
  rowType?: GraphQLInputType;
}

/**
 * The estimate of a route's answer: its operation's cost (src/graphql/cost.ts) with the request's
 * `limit` (the default page size when none is given), as bytes. Only `limit` changes the cost of
 * a fixed operation, so it is computed once per page size.
 */
function estimator(
  schema: GraphQLSchema,
  document: DocumentNode,
  maxResponseBytes: number,
): (variables: Record<string, unknown>) => number {
  const byLimit = new Map<number, number>();
  return (variables) => {
    const limit = variables.limit ?? DEFAULT_LIMIT;
    // A limit out of range is refused by the operation before anything is read.
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
      return estimateOf(1, maxResponseBytes);
    let bytes = byLimit.get(limit);
    if (bytes === undefined) {
      const cost = operationCost(schema, document, { ...variables, limit });
      // Variables the operation refuses (a missing id) leave nothing to answer.
      bytes = 'cost' in cost ? estimateOf(cost.cost, maxResponseBytes) : estimateOf(1, maxResponseBytes);
      if ('cost' in cost) byLimit.set(limit, bytes);
    }
    return bytes;
  };
}

/**
 * The route's operation compiled with graphql-jit. graphql-jit inlines the parsing of each
 * variable by its type and cannot do so for a recursive input type (a filter's
 * `and: [ContactWhere]`: its generator never ends). Those variables are checked and coerced by
 * their real types before the operation runs (restVariables), so the compiled copy declares them
 * as a JSON object scalar, which passes the coerced value through as it is.
 */
function precompile(route: RestRoute, schema: GraphQLSchema, document: DocumentNode) {
  const compiled = compileQuery(schema, withoutRecursiveVariables(schema, document));
  if (!isCompiledQuery(compiled))
    throw new Error(`Route ${route.method} ${route.path}: ${compiled.errors?.map((e) => e.message).join('; ')}`);
  const run: Execute = (args) =>
    compiled.query(args.rootValue, args.contextValue, args.variableValues) as ReturnType<Execute>;
  return run;
}

/** A JSON object scalar of the schema, for variables graphql-jit cannot parse by their type. */
const PASS_THROUGH = 'CustomFieldConditions';

function withoutRecursiveVariables(schema: GraphQLSchema, document: DocumentNode): DocumentNode {
  return visit(document, {
    VariableDefinition(node) {
      const type = typeFromAST(schema, node.type as never);
      if (!type || !isRecursive(type as GraphQLInputType)) return undefined;
      const scalar = { kind: Kind.NAMED_TYPE, name: { kind: Kind.NAME, value: PASS_THROUGH } } as const;
      return { ...node, type: node.type.kind === Kind.NON_NULL_TYPE ? { ...node.type, type: scalar } : scalar };
    },
  });
}

function compile(
  route: RestRoute,
  schema: GraphQLSchema,
  operations: Map<string, DocumentNode>,
  maxResponseBytes: number,
): CompiledRoute {
  const document = operations.get(route.operation);
  if (!document) throw new Error(`Route ${route.method} ${route.path} names unknown operation ${route.operation}`);
  const paramNames: string[] = [];
  const pattern = new RegExp(
    '^' + route.path.replace(/:(\w+)/g, (_m, name: string) => (paramNames.push(name), '([^/]+)')) + '/?$',
  );
  const op = document.definitions.find((d): d is OperationDefinitionNode => d.kind === 'OperationDefinition')!;
  const first = op.selectionSet.selections[0];
  const field = first.kind === 'Field' ? (first.alias ?? first.name).value : '';
  const root = op.operation === 'query' ? schema.getQueryType() : schema.getMutationType();
  let type = getNamedType(root!.getFields()[field].type);
  if ((route.list || route.export) && isObjectType(type)) type = getNamedType(type.getFields().nodes.type);
  const selectable = new Set(isObjectType(type) ? Object.keys(type.getFields()) : []);
  if (route.ifMatch && !op.variableDefinitions?.some((d) => d.variable.name.value === 'expected_version'))
    throw new Error(`Route ${route.method} ${route.path} honours If-Match: its operation must take $expected_version`);
  const run = precompile(route, schema, document);
  return {
    ...route,
    pattern,
    paramNames,
    document,
    run,
    field,
    selectable,
    estimate: estimator(schema, document, maxResponseBytes),
    typed: restVariables(schema, op, { input: route.body, filter: route.query }),
    rowType: route.rows ? rowTypeOf(schema, op, route.rows.field) : undefined,
  };
}

/**
 * A route that honours If-Match (`ifMatch` in routes.ts): the header's version as the operation's
 * `expected_version`, which the write compares inside its transaction. `*` asks only that the
 * record exist, which every write of one record does anyway.
 */
function expectedVersion(route: RestRoute, req: Request): { expected_version?: number } {
  if (!route.ifMatch) return {};
  const condition = parsePrecondition('If-Match', req.get('if-match'), true);
  return condition && !condition.any ? { expected_version: condition.versions[0] } : {};
}

/** A path parameter as text; broken percent-encoding (`%ZZ`, bytes that are not UTF-8) is the client's error. */
function decodeParam(name: string, raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw validationError({ [name]: [NOT_UTF8_MESSAGE] });
  }
}

/** A list route's answer: one page of records, with the page's cursor fields (`total` only when asked for). */
interface PageAnswer {
  nodes: Record<string, unknown>[];
  total?: number;
  limit: number;
  has_more: boolean;
  next_cursor: string | null;
}

function pickFields(value: Record<string, unknown>, fields: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = { id: value.id };
  for (const f of fields) if (f in value) out[f] = value[f];
  return out;
}

function parseFields(route: CompiledRoute, raw: unknown): string[] | null {
  if (!route.fields || raw === undefined || raw === '') return null;
  const names = String(raw)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !route.selectable.has(n));
  if (unknown.length) throw validationError({ fields: [`unknown field(s): ${unknown.join(', ')}`] });
  return names;
}

/** Text PostgreSQL cannot hold, anywhere in the path, query or body, is a 400 naming the field. */
function refuseUnstorable(variables: Record<string, unknown>): void {
  const path = unstorablePath(variables);
  if (path) throw validationError({ [path.replace(/^(input|filter)\./, '')]: [UNSTORABLE_MESSAGE] });
}

export interface RestOptions {
  schema: GraphQLSchema;
  operations: Map<string, DocumentNode>;
  onInternalError: (err: unknown, req: Request) => void;
  /** The process's pool of answer bytes, shared with GraphQL. */
  answers: AnswerPool;
  /** Bytes one answer may hold (GRAPHQL_MAX_RESPONSE_BYTES). */
  maxResponseBytes: number;
  /** Writes the file of an `export` route. */
  sendExport: SendExport;
  /** Writes the file of a `file` route. */
  sendFile: SendFile;
  /** The largest file POST /v1/imports takes (IMPORT_MAX_BYTES). */
  importMaxBytes: number;
  /** How long an upload may go without a byte (HTTP_REQUEST_TIMEOUT_MS). */
  uploadIdleMs: number;
}

/**
 * Holds a reservation until the response is done with (written, or its
 * connection gone), cutting a client that takes too long to read it.
 */
function holdUntilWritten(res: Response, reservation: Reservation): void {
  if (res.destroyed) return reservation.release();
  const deadline = setTimeout(() => res.destroy(), ANSWER_WRITE_DEADLINE_MS).unref();
  res.once('close', () => {
    clearTimeout(deadline);
    reservation.release();
  });
}

type Pipeline = YogaServerInstance<InProcessContext, Context>['getEnveloped'];

/**
 * The REST API: `handler` serves the routes, `plugin` joins them to yoga (it must be one of yoga's
 * plugins): it takes yoga's pipeline when yoga starts, and has `execute` run a route's document
 * as its precompiled function.
 */
export function restApi(opts: RestOptions): {
  handler: (req: Request, res: Response, next: NextFunction) => Promise<void>;
  plugin: Plugin<Context>;
} {
  const { answers, maxResponseBytes } = opts;
  const compiled = routes.map((r) => compile(r, opts.schema, opts.operations, maxResponseBytes));
  const precompiled = new Map(compiled.map((r) => [r.document, r.run]));
  let pipeline: Pipeline | undefined;
  const plugin: Plugin<Context> = {
    onYogaInit: ({ yoga }) => {
      pipeline = yoga.getEnveloped as Pipeline;
    },
    onExecute: ({ args, setExecuteFn }) => {
      const run = precompiled.get(args.document);
      if (run) setExecuteFn(run);
    },
  };

  const handler = async function handleRest(req: Request, res: Response, _next: NextFunction): Promise<void> {
    const path = req.path;
    let route: CompiledRoute | undefined;
    let match: RegExpExecArray | null = null;
    const allowed = new Set<string>();
    for (const r of compiled) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (r.method === req.method) {
        route = r;
        match = m;
        break;
      }
      allowed.add(r.method);
    }
    if (!route || !match) {
      if (allowed.size) {
        res.setHeader('Allow', [...allowed].join(', '));
        return sendError(
          res,
          new AppError('method_not_allowed', `${req.method} is not allowed on ${req.originalUrl.split('?')[0]}`),
        );
      }
      return sendError(res, new AppError('not_found', `No route ${req.method} ${req.originalUrl.split('?')[0]}`));
    }
    res.locals.route = req.baseUrl + route.path;
    let upload: Upload | null = null;
    let context: Context | null = null;
    try {
      const params = Object.fromEntries(route.paramNames.map((n, i) => [n, decodeParam(n, match![i + 1])]));
      if (!pipeline) throw new Error("The REST plugin is not one of yoga's plugins");
      const enveloped = pipeline({ req, res, inProcess: true });
      const contextOf = async () => (context ??= (await enveloped.contextFactory()) as Context);
      let body: unknown = req.body;
      // An upload's file is stored first; its settings are the body from there on.
      if (route.upload) {
        upload = await receiveUpload(req, await contextOf(), opts.importMaxBytes, opts.uploadIdleMs);
        body = { ...upload.settings, upload_id: upload.uploadId, filename: upload.filename ?? undefined };
      }
      if (route.method === 'POST' || route.method === 'PUT') {
        if (body === undefined) body = {};
        if (typeof body !== 'object' || body === null || Array.isArray(body)) {
          throw new AppError('malformed_request', 'The request body must be a JSON object');
        }
      }
      // A query (POST …/query) names its fields in the body, as a list or as the query string does.
      const bodyFields =
        route.method === 'POST' && (route.list || route.export) ? (body as Record<string, unknown>).fields : undefined;
      const fields = parseFields(
        route,
        req.query.fields ?? (Array.isArray(bodyFields) ? bodyFields.join(',') : bodyFields),
      );
      const given = route.variables
        ? route.variables({ params, query: req.query as Record<string, unknown>, body })
        : {};
      Object.assign(given, expectedVersion(route, req));
      // A read of one record may be answered 304 (its tags are checked before anything is read).
      const noneMatch =
        route.method === 'GET' && !route.list ? parsePrecondition('If-None-Match', req.get('if-none-match')) : null;
      refuseUnstorable(given);
      let aside: SetAside | null = null;
      let variableValues: Record<string, unknown>;
      try {
        variableValues = route.typed(given);
      } catch (err) {
        // A row that is no row of its type fails alone (bulk-rows.ts): set such rows aside and check
        // the rest. Only looked for when the body does not fit, so a fitting body is coerced once.
        aside =
          route.rows && route.rowType
            ? setAsideUnfitRows(opts.schema, route.rowType, given.input, route.rows.field, route.rows.max)
            : null;
        if (!aside) throw err;
        variableValues = route.typed({ ...given, input: aside.body });
      }
      const ctx = await contextOf();
      // An export checks the list's variables as the list does, then streams its file itself.
      if (route.export) {
        await opts.sendExport(req, res, ctx, route.export, variableValues, fields);
        return;
      }
      const reserving = answers.reserve(route.estimate(variableValues));
      const reservation = reserving instanceof Promise ? await reserving : reserving;
      holdUntilWritten(res, reservation);
      const args = { schema: opts.schema, document: route.document, variableValues, contextValue: ctx };
      // Queries and mutations: one result, never a stream.
      const result = (await enveloped.execute(args)) as ExecutionResult;
      // Fields left null for data the key may not read are no failure: the answer carries a warning.
      const failure = result.errors?.find((e) => !(e.originalError instanceof Redacted));
      if (failure) throw toAppError(failure);
      // The field's object as the operation's selection shaped it: a record, a page (`list`) or a bulk answer.
      const value = (result.data as Record<string, Record<string, unknown>>)[route.field];
      if (route.file) {
        await opts.sendFile(res, ctx, route.file, value);
        return;
      }
      if (upload) res.setHeader('Location', `${req.baseUrl}/imports/${encodeURIComponent(String(value.id))}`);
      if (aside) answerUnfitRows(value as unknown as BulkAnswer, aside);
      // A single record's answer names its version as the ETag; an unchanged one is a 304 without a body.
      const version = route.list ? undefined : answerVersion(value);
      if (version !== undefined) {
        res.setHeader('ETag', etagOf(version));
        if (noneMatch && noneMatchHolds(noneMatch, version)) {
          res.status(304).end();
          return;
        }
      }
      const bytes = jsonBytes(value);
      if (bytes > maxResponseBytes) {
        throw new AppError(
          'validation_error',
          `The answer would be larger than ${maxResponseBytes} bytes; ask for a smaller limit or fewer fields`,
        );
      }
      if (!reservation.growTo(bytes)) throw answers.busy();
      const extra: Record<string, unknown> = {};
      if (ctx.warnings.length) extra.warnings = ctx.warnings;
      const status =
        typeof route.status === 'function'
          ? route.status(value as { failed: number; created?: number })
          : (route.status ?? 200);
      if (route.list) {
        const page = value as unknown as PageAnswer;
        const nodes = fields ? page.nodes.map((n) => pickFields(n, fields)) : page.nodes;
        return sendData(res, status, nodes, {
          total: page.total,
          limit: page.limit,
          has_more: page.has_more,
          next_cursor: page.next_cursor,
          ...extra,
        });
      }
      return sendData(res, status, fields ? pickFields(value, fields) : value, extra);
    } catch (err) {
      // A refused upload is not kept (createImport discards one it refuses; this, one refused before it ran).
      if (upload && context) await discardUpload(context, upload.uploadId);
      const appErr = err instanceof AppError ? err : internalError(err);
      if (appErr.code === 'internal_error') opts.onInternalError(appErr.cause ?? err, req);
      // A streamed export that failed after its first bytes has cut its connection already.
      if (res.headersSent) return;
      return sendError(res, appErr);
    }
  };
  return { handler, plugin };
}
