// GraphQL over WebSocket (graphql-ws protocol) at /graphql, run through the same yoga
// instance as HTTP so its plugins (error masking, ...) apply; pattern of graphql-yoga's
// graphql-ws example. The API key comes in connectionParams: { authorization: 'Bearer <key>' };
// without one, a dashboard user is identified by the upgrade request's session cookie plus
// connectionParams: { csrf_token }, which another site cannot know.
//
// graphql-ws' server is wired to `ws` here rather than through its `useServer`, so that every
// socket is bounded (see websocket-limits.ts): message size and rate, pings, bytes waiting for a
// reader that does not read, the time to authenticate, sockets per address and per key, and
// operations per socket. Every operation draws from the caller's rate-limit bucket, the one
// HTTP requests draw from; a socket is held under its credential and closed when it ends.
// Queries and mutations reserve room in the process's answer pool as on HTTP (answer-admission.ts):
// the reservation is given back when the operation completes (its answer written) and the socket
// lets those bytes wait for the reader on top of its own unread-output limit, so an answer as large
// as the per-answer budget reaches a client that reads. When the socket closes, its operations are
// abandoned: nothing more of them resolves.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import cookieParser from 'cookie-parser';
import { GraphQLError, type DocumentNode, type ExecutionArgs } from 'graphql';
import { CloseCode, handleProtocols, makeServer } from 'graphql-ws';
import { checkMessage } from './websocket-input.ts';
import { withOrigin, type RequestOrigin } from '../events/origin.ts';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { Authenticator, Caller } from '../auth/authenticate.ts';
import type { CredentialWatch } from '../auth/credential-watch.ts';
import type { RateDecision, RateLimits } from '../auth/rate-limit.ts';
import { callerOfSession, isValidCsrfToken, SESSION_COOKIE, type SessionStore } from '../auth/sessions.ts';
import { AppError } from '../errors.ts';
import { toGraphQLError } from './errors.ts';
import type { createGraphqlHandler } from './yoga.ts';
import { releaseOperation, runsOverSocket } from './answer-admission.ts';
import { reservedBytesOf } from './response-budget.ts';
import {
  AUTH_DEADLINE_MS,
  CLOSE_GRACE_MS,
  KEEPALIVE_MS,
  MAX_BUFFERED_BYTES,
  MAX_MESSAGE_BYTES,
  MAX_OPERATIONS_PER_SOCKET,
  MAX_SOCKETS_PER_CREDENTIAL,
  MAX_UNAUTHENTICATED_MESSAGE_BYTES,
  MAX_UNAUTHENTICATED_PER_ADDRESS,
  MessageBudget,
} from './websocket-limits.ts';

type Yoga = ReturnType<typeof createGraphqlHandler>;
type Enveloped = ReturnType<Yoga['getEnveloped']>;
/** Execution args that carry yoga's enveloped execute/subscribe, so plugins wrap the run. */
type EnvelopedArgs = ExecutionArgs & { enveloped: Pick<Enveloped, 'execute' | 'subscribe'>; origin: RequestOrigin };

/** Close codes beyond graphql-ws' own (4401 unauthorized, 4403 forbidden, 4408 no connection_init in time, ...). */
const TOO_MANY = 4429;
const POLICY_VIOLATION = 1008;
const MESSAGE_TOO_BIG = 1009;

const byteLength = (data: RawData): number =>
  Array.isArray(data) ? data.reduce((n, b) => n + b.length, 0) : data.byteLength;

interface SocketExtra {
  request: IncomingMessage;
  /** The client's address (as Express sees it, behind a trusted proxy too). */
  address: string;
  close(code: number, reason: string): void;
  /** The caller of the socket, checked again for every operation; set once the socket is accepted. */
  authenticate?: () => Promise<Caller>;
  /** Ends the socket's hold on its credential. */
  release?: () => void;
  /** Counts the socket as authenticated (no longer against its address's cap). */
  accepted(): void;
  /** The context of each operation in flight, by id: what holds their reservations in the answer pool. */
  operations: Map<string, object>;
}

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

/**
 * The caller of a socket, checked again for every operation (a
 * key revoked or a session ended since starts nothing new).
 */
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
    if (!isValidCsrfToken(token, csrf))
      throw new AppError('forbidden', 'Missing or invalid csrf_token in connectionParams');
    return callerOfSession(session);
  };
}

/** The bucket HTTP requests of the same caller draw from (see http/auth.ts). */
const bucketOf = (caller: Caller) => (caller.keyId ? `key:${caller.keyId}` : `user:${caller.userId}`);

function rateLimited(d: RateDecision): GraphQLError {
  const refusal = toGraphQLError(
    new AppError('rate_limited', `Rate limit of ${d.limit} requests per minute exceeded; retry in ${d.retryAfter} s`),
  );
  return new GraphQLError(refusal.message, { extensions: { ...refusal.extensions, retry_after: d.retryAfter } });
}

export interface GraphqlWs {
  /** Closes every socket (ending its subscriptions) and stops accepting new ones. */
  dispose(): Promise<void>;
}

export interface GraphqlWsDeps {
  yoga: Yoga;
  authenticator: Authenticator;
  sessions: SessionStore;
  /** The rate-limit buckets HTTP draws from: every operation over a socket draws from its caller's. */
  limits: RateLimits;
  /** Closes sockets whose credential ended. */
  watch: CredentialWatch;
  /** The client's address of an upgrade request; the socket's peer address unless given. */
  clientAddress?: (req: IncomingMessage) => string;
  logger: Logger;
}

export function attachGraphqlWs(server: Server, deps: GraphqlWsDeps): GraphqlWs {
  const { yoga, logger, limits, watch } = deps;
  const addressOf = deps.clientAddress ?? ((req: IncomingMessage) => req.socket.remoteAddress ?? 'unknown');
  /** graphql-ws would put a thrown error's message in the close reason: keep internals out of it. */
  const internal = (err: unknown) => {
    logger.error({ err }, 'graphql-ws: authentication failed');
    return new Error('Internal server error');
  };
  const waiting = new Map<string, number>();
  const wss = new WebSocketServer({
    server,
    path: yoga.graphqlEndpoint,
    maxPayload: MAX_MESSAGE_BYTES,
    perMessageDeflate: false,
    // Pings are answered below, after the same checks as messages.
    autoPong: false,
    handleProtocols,
    verifyClient: ({ req }, accept) => {
      if ((waiting.get(addressOf(req)) ?? 0) < MAX_UNAUTHENTICATED_PER_ADDRESS) return accept(true);
      accept(false, 429, 'Too many connections from this address waiting to authenticate', {
        'Retry-After': String(Math.ceil(AUTH_DEADLINE_MS / 1000)),
      });
    },
  });

  const graphqlWs = makeServer<Record<string, unknown>, SocketExtra>({
    connectionInitWaitTimeout: AUTH_DEADLINE_MS,
    onConnect: async (ctx) => {
      const { extra } = ctx;
      const authenticate = socketAuthentication(deps, extra.request, ctx.connectionParams);
      let caller: Caller;
      try {
        caller = await authenticate();
      } catch (err) {
        if (!(err instanceof AppError) || (err.code !== 'unauthorized' && err.code !== 'forbidden'))
          throw internal(err);
        // A refused key costs its address, as on HTTP: guessing keys over sockets is throttled too.
        const d = await limits.consume('standard', `ip:${extra.address}`);
        if (!d.allowed) extra.close(TOO_MANY, `Too many failed attempts; retry in ${d.retryAfter} s`);
        // graphql-ws answers 4403 Forbidden to `false` (a missing CSRF
        // token); an unusable key or session is 4401, like HTTP's 401.
        else if (err.code === 'unauthorized') extra.close(CloseCode.Unauthorized, err.message);
        return false;
      }
      if (watch.count('socket', caller) >= MAX_SOCKETS_PER_CREDENTIAL) {
        extra.close(
          TOO_MANY,
          `At most ${MAX_SOCKETS_PER_CREDENTIAL} connections may be open at once with one key or sign-in`,
        );
        return false;
      }
      // The client may have gone while the key was checked: nothing to hold then.
      if (ctx.extra.request.socket.destroyed) return false;
      extra.authenticate = authenticate;
      extra.release = watch.hold('socket', caller, (why) =>
        extra.close(why.code === 'forbidden' ? CloseCode.Forbidden : CloseCode.Unauthorized, why.message),
      );
      extra.accepted();
      return true;
    },
    onSubscribe: async (ctx, id, payload) => {
      if (Object.keys(ctx.subscriptions).length > MAX_OPERATIONS_PER_SOCKET) {
        return [
          toGraphQLError(
            new AppError(
              'rate_limited',
              `At most ${MAX_OPERATIONS_PER_SOCKET} operations may run at once on one connection`,
            ),
          ),
        ];
      }
      let caller: Caller;
      try {
        // Set by onConnect: graphql-ws runs no operation before the connection was accepted.
        caller = await ctx.extra.authenticate!();
      } catch (err) {
        if (err instanceof AppError) return [toGraphQLError(err)];
        throw internal(err);
      }
      const d = await limits.consume(caller.plan, bucketOf(caller));
      if (!d.allowed) return [rateLimited(d)];
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
      const contextValue = await contextFactory();
      // Its reservation in the answer pool is given back by onComplete, or when the socket closes.
      runsOverSocket(contextValue);
      ctx.extra.operations.set(id, contextValue);
      const args: EnvelopedArgs = {
        schema,
        document,
        operationName: payload.operationName,
        variableValues: payload.variables,
        contextValue,
        enveloped: { execute, subscribe },
        origin: {
          via: caller.sessionId ? 'dashboard' : 'graphql',
          requestId,
          ip: addressOf(ctx.extra.request),
        },
      };
      return args;
    },
    // Called once the answer was sent (the send resolves when it is written) or the operation ended.
    onComplete: (ctx, id) => {
      const context = ctx.extra.operations.get(id);
      if (!context) return;
      ctx.extra.operations.delete(id);
      releaseOperation(context);
    },
    // A mutation's writes are recorded with the operation's origin (the audit log).
    execute: (args) =>
      withOrigin((args as EnvelopedArgs).origin, () => (args as EnvelopedArgs).enveloped.execute(args)),
    subscribe: (args) => (args as EnvelopedArgs).enveloped.subscribe(args),
  });

  wss.on('connection', (socket: WebSocket, request: IncomingMessage) => {
    const address = addressOf(request);
    waiting.set(address, (waiting.get(address) ?? 0) + 1);
    let counted = true;
    const accepted = () => {
      if (!counted) return;
      counted = false;
      const n = waiting.get(address)! - 1;
      if (n > 0) waiting.set(address, n);
      else waiting.delete(address);
    };
    let cut: NodeJS.Timeout | null = null;
    /**
     * Closes, and cuts the connection if the peer does not finish
     * the close handshake soon: a refused socket must not linger.
     */
    const close = (code: number, reason: string) => {
      if (socket.readyState === socket.OPEN) socket.close(code, reason);
      cut ??= setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
    };
    const operations = new Map<string, object>();
    /**
     * Answers being delivered may wait for the reader on top of the unread-output
     * limit: the answer pool holds their bytes, and bounds them across sockets.
     */
    const answerBytes = () => {
      let bytes = 0;
      for (const context of operations.values()) bytes += reservedBytesOf(context);
      return bytes;
    };
    const backedUp = () =>
      socket.bufferedAmount > MAX_BUFFERED_BYTES && socket.bufferedAmount > MAX_BUFFERED_BYTES + answerBytes();
    const tooSlow = () => close(POLICY_VIOLATION, 'Too slow: messages sent to this connection are not being read');
    const budget = new MessageBudget();
    const extra: SocketExtra = { request, address, close, accepted, operations };

    const closed = graphqlWs.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            if (backedUp()) {
              tooSlow();
              return resolve();
            }
            // A send that fails closes the socket; the operation then simply ends.
            socket.send(data, () => resolve());
          }),
        close,
        onMessage: (cb) =>
          socket.on('message', (data) => {
            if (!budget.take()) return close(TOO_MANY, 'Too many messages');
            if (counted && byteLength(data) > MAX_UNAUTHENTICATED_MESSAGE_BYTES)
              return close(MESSAGE_TOO_BIG, 'Message too big before authentication');
            const checked = checkMessage(data);
            if ('close' in checked) return close(...checked.close);
            if ('reply' in checked) return void socket.send(checked.reply);
            cb(checked.text).catch((err: unknown) => {
              logger.error({ err }, 'graphql-ws: message handling failed');
              close(CloseCode.InternalServerError, 'Internal server error');
            });
          }),
      },
      extra,
    );
    socket.on('ping', (data) => {
      if (!budget.take()) return close(TOO_MANY, 'Too many messages');
      if (backedUp()) return tooSlow();
      socket.pong(data);
    });
    // `ws` closes the socket itself on a protocol error (1009 for a message over MAX_MESSAGE_BYTES, unbuffered).
    socket.on('error', (err) => {
      logger.debug({ err: err.message }, 'graphql-ws: socket error');
      close(POLICY_VIOLATION, 'Protocol error');
    });
    let answered = true;
    socket.on('pong', () => (answered = true));
    const keepAlive = setInterval(() => {
      if (!answered) return socket.terminate();
      answered = false;
      if (backedUp()) return tooSlow();
      socket.ping();
    }, KEEPALIVE_MS).unref();
    socket.once('close', (code, reason) => {
      clearInterval(keepAlive);
      if (cut) clearTimeout(cut);
      accepted();
      extra.release?.();
      for (const context of operations.values()) releaseOperation(context, true);
      operations.clear();
      void closed(code, String(reason));
    });
  });

  return {
    async dispose() {
      const sockets = [...wss.clients];
      for (const s of sockets) s.close(1001, 'Going away');
      await new Promise((resolve) => wss.close(resolve));
      const ended = sockets.map(
        (s) => new Promise((resolve) => (s.readyState === s.CLOSED ? resolve(null) : s.once('close', resolve))),
      );
      const grace = new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([Promise.all(ended), grace]);
      for (const s of sockets) s.terminate();
    },
  };
}
