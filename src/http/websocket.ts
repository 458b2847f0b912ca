// GraphQL over WebSocket (graphql-ws protocol) at /graphql, run through the same yoga
// instance as HTTP so its plugins (error masking, ...) apply; pattern of graphql-yoga's
// graphql-ws example. The API key comes in connectionParams: { authorization: 'Bearer <key>' };
// without one, a dashboard user is identified by the upgrade request's session cookie plus
// connectionParams: { csrf_token }, which another site cannot know.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import cookieParser from 'cookie-parser';
import { GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import type { Authenticator, Caller } from '../auth/authenticate.ts';
import { callerOfSession, isValidCsrfToken, SESSION_COOKIE, type SessionStore } from '../auth/sessions.ts';
import { AppError, toGraphQLError } from '../errors.ts';
import type { createGraphqlHandler } from './graphql.ts';

type Yoga = ReturnType<typeof createGraphqlHandler>;
type Enveloped = ReturnType<Yoga['getEnveloped']>;
/** Execution args that carry yoga's enveloped execute/subscribe, so plugins wrap the run. */
type EnvelopedArgs = ExecutionArgs & { enveloped: Pick<Enveloped, 'execute' | 'subscribe'> };

/** Close code for a refused key (graphql-ws reserves 4400-4499 for such protocol-level answers). */
const UNAUTHORIZED = 4401;
/** How long clients get to answer the close handshake at shutdown before their sockets are cut. */
const CLOSE_GRACE_MS = 1_000;

function authorizationOf(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = params?.authorization ?? params?.Authorization;
  return typeof value === 'string' ? value : undefined;
}

const parseCookies = cookieParser();

function sessionTokenOf(req: IncomingMessage): string | undefined {
  const withCookies = req as IncomingMessage & { cookies?: Record<string, string> };
  // cookie-parser only reads the request's Cookie header and sets req.cookies.
  if (!withCookies.cookies) parseCookies(withCookies as never, {} as never, () => {});
  return withCookies.cookies?.[SESSION_COOKIE];
}

/** The caller of a socket, checked again for every operation (a key revoked or a session ended since starts nothing new). */
function socketAuthentication(
  deps: { authenticator: Authenticator; sessions: SessionStore },
  req: IncomingMessage,
  params: Readonly<Record<string, unknown>> | undefined,
): () => Promise<Caller> {
  const authorization = authorizationOf(params);
  const token = sessionTokenOf(req);
  if (authorization !== undefined || !token) return () => deps.authenticator.authenticate(authorization);
  const csrf = params?.csrf_token;
  return async () => {
    const session = await deps.sessions.find(token);
    if (!session) throw new AppError('unauthorized', 'The dashboard session has ended; sign in again');
    if (!isValidCsrfToken(token, csrf)) throw new AppError('forbidden', 'Missing or invalid csrf_token in connectionParams');
    return callerOfSession(session);
  };
}

export interface GraphqlWs {
  /** Closes every socket (ending its subscriptions) and stops accepting new ones. */
  dispose(): Promise<void>;
}

export function attachGraphqlWs(server: Server, deps: { yoga: Yoga; authenticator: Authenticator; sessions: SessionStore; logger: Logger }): GraphqlWs {
  const { yoga, logger } = deps;
  /** graphql-ws would put a thrown error's message in the close reason: keep internals out of it. */
  const internal = (err: unknown) => {
    logger.error({ err }, 'graphql-ws: authentication failed');
    return new Error('Internal server error');
  };
  const wss = new WebSocketServer({ server, path: yoga.graphqlEndpoint });

  const graphqlWs = useServer<Record<string, unknown>, { authenticate: () => Promise<Caller> }>(
    {
      onConnect: async (ctx) => {
        const authenticate = socketAuthentication(deps, ctx.extra.request, ctx.connectionParams);
        try {
          await authenticate();
          ctx.extra.authenticate = authenticate;
          return true;
        } catch (err) {
          if (!(err instanceof AppError) || (err.code !== 'unauthorized' && err.code !== 'forbidden')) throw internal(err);
          // graphql-ws answers 4403 Forbidden to `false` (a missing CSRF token); an unusable key or session is 4401, like HTTP's 401.
          if (err.code === 'unauthorized') ctx.extra.socket.close(UNAUTHORIZED, err.message);
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        let caller: Caller;
        try {
          // Set by onConnect: graphql-ws runs no operation before the connection was accepted.
          caller = await ctx.extra.authenticate!();
        } catch (err) {
          if (err instanceof AppError) return [toGraphQLError(err)];
          throw internal(err);
        }
        const requestId = `req_${randomUUID().replace(/-/g, '')}`;
        const { schema, execute, subscribe, contextFactory, parse, validate } = yoga.getEnveloped({
          req: ctx.extra.request,
          caller,
          requestId,
          params: payload,
        });
        let document: DocumentNode;
        try {
          document = parse(payload.query);
        } catch (err) {
          // A syntax error answers the operation; thrown, it would close the whole socket.
          if (err instanceof GraphQLError) return [err];
          throw err;
        }
        const errors = validate(schema, document);
        if (errors.length) return errors;
        const args: EnvelopedArgs = {
          schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
          contextValue: await contextFactory(),
          enveloped: { execute, subscribe },
        };
        return args;
      },
      execute: (args) => (args as EnvelopedArgs).enveloped.execute(args),
      subscribe: (args) => (args as EnvelopedArgs).enveloped.subscribe(args),
    },
    wss,
  );

  return {
    async dispose() {
      const sockets = [...wss.clients];
      await graphqlWs.dispose();
      const closed = sockets.map((s) => new Promise((resolve) => (s.readyState === s.CLOSED ? resolve(null) : s.once('close', resolve))));
      const grace = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([Promise.all(closed), grace]);
      for (const s of sockets) s.terminate();
    },
  };
}
