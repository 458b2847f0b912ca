// /graphql over HTTP (graphql-yoga), sharing the schema, context and errors with REST.
// graphql-ws operations run through the same yoga (see websocket.ts).
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import type { GraphQLError, GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Caller } from '../auth/authenticate.ts';
import { AppError } from '../errors.ts';
import { parseStrictJson } from '../http/strict-json.ts';
import type { Metrics } from '../metrics.ts';
import type { Context } from '../schema/context.ts';
import { graphqlLimitPlugins, type GraphqlLimits } from './limits.ts';
import type { AnswerPool } from '../http/answer-pool.ts';
import { responseBudgetPlugin, withResponseBudget } from './response-budget.ts';
import { requestIdOf, telemetryPlugin } from './telemetry.ts';
import { storableInputPlugin } from './storable-input.ts';
import { maskError, sendGraphqlError } from './errors.ts';
import { compiledExecutionPlugin } from './compiled-execution.ts';
import { answeredInProcess, graphqlOnly, inProcessErrorsPlugin, type InProcessContext } from './in-process.ts';

type HttpContext = { req: Request; res: Response };
/** A WebSocket operation has no Express response: its caller was authenticated when the socket connected. */
export type SocketContext = { req: IncomingMessage; caller: Caller; requestId: string };
type ServerContext = HttpContext | SocketContext | InProcessContext;

/** Adds `extensions.warnings` when a resolver left notes for the client. */
const warningsPlugin: Plugin<Context> = {
  onExecute: ({ args }) => ({
    onExecuteDone: ({ result, setResult }) => {
      const warnings = (args.contextValue as Context).warnings;
      if (!warnings?.length || !result || Symbol.asyncIterator in result) return;
      setResult({ ...result, extensions: { ...result.extensions, warnings } });
    },
  }),
};

/** What yoga can answer a GraphQL request with. */
const ANSWER_TYPES = ['application/graphql-response+json', 'application/json', 'multipart/mixed', 'text/event-stream'];

/**
 * Requests yoga would fail in ways this service otherwise does not (all found by the security
 * fuzz tests), made into the answers the rest of the API gives:
 * - an Accept naming none of the types yoga produces (`application/xml`, or `text/html` on a POST)
 *   is an empty 406 from yoga: like REST, which answers JSON whatever Accept says, it is answered
 *   as if it accepted `application/json`;
 * - a JSON body sent as `application/*+json` (admitted and parsed by requireJson and parseJson) is
 *   an empty 415 from yoga: yoga is told it is `application/json`, which it is;
 * - on GET, `variables` or `extensions` that are not JSON (or given twice, which yoga joins with a
 *   comma) make yoga's JSON.parse throw: an internal_error, logged as a server failure. Like a
 *   POST body that is not JSON, they are a 400 malformed_request; and they are read as strictly as
 *   bodies (strict-json.ts).
 * The error answers have the GraphQL error shape with a code, as every /graphql error does.
 */
export function asJsonForYoga(req: Request, res: Response, next: () => void): void {
  const q = req.originalUrl.indexOf('?');
  if (req.method === 'GET' && q >= 0) {
    const params = new URLSearchParams(req.originalUrl.slice(q + 1));
    for (const name of ['variables', 'extensions']) {
      const values = params.getAll(name);
      if (values.length === 0 || (values.length === 1 && values[0] === '')) continue;
      if (values.length > 1) {
        const twice = new AppError('malformed_request', `The ${name} query parameter must be given once, as JSON`);
        return sendGraphqlError(res, twice);
      }
      try {
        parseStrictJson(values[0], `The ${name} query parameter`);
      } catch (err) {
        return sendGraphqlError(res, err as AppError);
      }
    }
  }
  if (!req.accepts(ANSWER_TYPES)) req.headers.accept = 'application/json';
  if (req.is('application/*+json')) req.headers['content-type'] = 'application/json';
  next();
}

export function createGraphqlHandler(opts: {
  schema: GraphQLSchema;
  /** `req`: the HTTP request (none over WebSocket). */
  contextOf: (caller: Caller, requestId: string, req?: Request) => Context;
  /** Whether `__schema` / `__type` may be queried (config GRAPHQL_INTROSPECTION). */
  introspection: boolean;
  limits: GraphqlLimits;
  /**
   * Runs of a document interpreted before it runs compiled, and the CPU time compiling may take per
   * minute (config GRAPHQL_COMPILE_AFTER, GRAPHQL_COMPILE_BUDGET_MS).
   */
  compile: { interpretedRuns: number; budgetMsPerMinute: number };
  /**
   * The process's pool of answer bytes, shared with REST (answer-pool.ts); none: operations are not admitted by size.
   */
  answers?: AnswerPool;
  logger: Logger;
  metrics: Metrics;
  /** Plugins of the caller's own, run after these, for REST operations too (in-process.ts). */
  plugins?: Plugin<Context>[];
}) {
  return createYoga<ServerContext, Context>({
    // A copy whose resolvers count the answer's bytes (response-budget.ts); REST keeps the original.
    schema: withResponseBudget(opts.schema, opts.limits.maxResponseBytes),
    graphqlEndpoint: '/graphql',
    // GraphiQL is served from installed files by graphiql.ts (yoga's own page loads a CDN).
    graphiql: false,
    landingPage: false,
    // Any origin may call with an API key; none may read answers sent with the dashboard's
    // cookie (the dashboard itself is same-origin).
    cors: { credentials: false },
    context: (init) =>
      'caller' in init
        ? opts.contextOf(init.caller, init.requestId)
        : opts.contextOf(init.res.locals.caller!, init.res.locals.requestId, init.req),
    maskedErrors: {
      maskError: (error) => {
        // Another surface's operation: that surface translates its errors (in-process.ts).
        if (answeredInProcess(error)) return error as Error;
        const masked = maskError(error);
        if ((masked as GraphQLError).extensions?.code === 'internal_error')
          opts.logger.error({ err: error, requestId: requestIdOf(error) }, 'graphql resolver failed');
        return masked;
      },
    },
    plugins: [
      inProcessErrorsPlugin,
      ...[
        ...graphqlLimitPlugins(opts.limits, { introspection: opts.introspection, pool: opts.answers }),
        storableInputPlugin,
        responseBudgetPlugin,
        warningsPlugin,
        telemetryPlugin(opts.metrics),
        compiledExecutionPlugin(opts.compile, opts.metrics),
      ].map((plugin) => graphqlOnly(plugin as Plugin<Context>)),
      ...(opts.plugins ?? []),
    ],
    logging: false,
  });
}
