// /graphql over HTTP (graphql-yoga), sharing the schema, context and errors with REST.
// graphql-ws operations run through the same yoga (see websocket.ts).
import type { IncomingMessage } from 'node:http';
import type { Request, Response } from 'express';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Caller } from '../auth/authenticate.ts';
import { AppError, internalError, toGraphQLError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';
import type { Context } from '../schema/context.ts';
import { graphqlLimitPlugins, type GraphqlLimits } from './graphql-limits.ts';
import { requestIdOf, telemetryPlugin } from './graphql-telemetry.ts';

type HttpContext = { req: Request; res: Response };
/** A WebSocket operation has no Express response: its caller was authenticated when the socket connected. */
export type SocketContext = { req: IncomingMessage; caller: Caller; requestId: string };
type ServerContext = HttpContext | SocketContext;

/** A document or variables error (syntax, unknown field, wrong variable type) is the client's: a coded validation error. */
function withCode(error: GraphQLError): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, code: 'validation_error', status: 400 },
  });
}

function maskError(error: unknown): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original instanceof AppError) {
      const masked = toGraphQLError(original);
      return new GraphQLError(masked.message, { nodes: error.nodes, path: error.path, extensions: masked.extensions });
    }
    if (!original || original instanceof GraphQLError) return withCode(error);
  }
  const unexpected = internalError(error instanceof GraphQLError ? error.originalError : error);
  return new GraphQLError(unexpected.message, { extensions: { code: unexpected.code, status: unexpected.status } });
}

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

export function createGraphqlHandler(opts: {
  schema: GraphQLSchema;
  contextOf: (caller: Caller, requestId: string) => Context;
  graphiql: boolean;
  /** Whether `__schema` / `__type` may be queried (config GRAPHQL_INTROSPECTION). */
  introspection: boolean;
  limits: GraphqlLimits;
  logger: Logger;
  metrics: Metrics;
}) {
  return createYoga<ServerContext, Context>({
    schema: opts.schema,
    graphqlEndpoint: '/graphql',
    graphiql: opts.graphiql ? { title: 'CRM GraphQL', headers: JSON.stringify({ Authorization: 'Bearer crm_live_...' }) } : false,
    landingPage: false,
    // Any origin may call with an API key; none may read answers sent with the dashboard's
    // cookie (the dashboard itself is same-origin).
    cors: { credentials: false },
    context: (init) =>
      'caller' in init ? opts.contextOf(init.caller, init.requestId) : opts.contextOf(init.res.locals.caller!, init.res.locals.requestId),
    maskedErrors: {
      maskError: (error) => {
        const masked = maskError(error);
        if ((masked as GraphQLError).extensions?.code === 'internal_error') opts.logger.error({ err: error, requestId: requestIdOf(error) }, 'graphql resolver failed');
        return masked;
      },
    },
    plugins: [...graphqlLimitPlugins(opts.limits, { introspection: opts.introspection }), warningsPlugin, telemetryPlugin(opts.metrics)],
    logging: false,
  });
}
