import path from 'node:path';
// buildApp wires the HTTP surfaces to one schema and one database. It does not listen:
// main.ts does, and the tests call it directly.
import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type Response } from 'express';
import proxyAddr from 'proxy-addr';
import type { Redis } from 'ioredis';
import type { Plugin } from 'graphql-yoga';
import type { Logger } from 'pino';
import cookieParser from 'cookie-parser';
import { Authenticator, type Caller } from './auth/authenticate.ts';
import { CredentialWatch } from './auth/credential-watch.ts';
import { announcedChanges, followNotices } from './auth/credential-notices.ts';
import { LinkLimits, LoginLimits } from './auth/login-limits.ts';
import { DEFAULT_LINK_TIMES, type LinkTimes } from './auth/password-links.ts';
import { createTeamMailer } from './auth/team-mail.ts';
import { RateLimits } from './auth/rate-limit.ts';
import { SessionStore } from './auth/sessions.ts';
import type { Config } from './config.ts';
import type { Database } from './db/client.ts';
import { AppError } from './errors.ts';
import { authenticateAndLimit, authenticateSession, CsrfRefusal, usesSessionCookie } from './http/auth.ts';
import { dashboardImportRoutes } from './rest/dashboard-imports.ts';
import { dashboardSessionRoutes } from './rest/dashboard-session.ts';
import { dashboardPages } from './http/dashboard.ts';
import { bodyErrors, parseJson, requireJson } from './http/body.ts';
import { apiDocs, openApiDocument } from './http/docs.ts';
import { graphiqlRoutes } from './graphql/graphiql.ts';
import { asJsonForYoga, createGraphqlHandler } from './graphql/yoga.ts';
import { graphqlErrors } from './graphql/errors.ts';
import { DEFAULT_GRAPHQL_LIMITS } from './graphql/limits.ts';
import { DEFAULT_COMPILE_BUDGET_MS } from './graphql/compiled-execution.ts';
import { linkOriginOf, redirectPlainHttp } from './http/https.ts';
import { passwordLinkRoutes } from './rest/dashboard-password.ts';
import { idempotency } from './http/idempotency.ts';
import { liveStreamsPlugin } from './graphql/live-streams.ts';
import { observeRequests } from './http/observe.ts';
import { opsRoutes } from './http/ops.ts';
import { refuseNonUtf8Query } from './http/query-string.ts';
import { requestId } from './http/request-id.ts';
import { Metrics } from './metrics.ts';
import { buildOpenApi } from './rest/openapi.ts';
import { loadOperations } from './rest/operations.ts';
import { restApi } from './rest/router.ts';
import { requestOrigin } from './http/origin.ts';
import { DEFAULT_EXPORT_OPTIONS, exporter } from './rest/export/export.stream.ts';
import { failedRowsSender } from './rest/import/import.failed-rows.ts';
import { DEFAULT_IMPORT_MAX_BYTES, unlessUpload } from './rest/import/import.upload.ts';
import { bodyDeadline } from './http/body-deadline.ts';
import { restErrors, sendError } from './rest/errors.ts';
import { AnswerPool, DEFAULT_ANSWER_POOL } from './http/answer-pool.ts';
import type { Context } from './schema/context.ts';
import type { WebhookServices } from './webhooks/services.ts';
import { schema } from './schema/index.ts';
import { createEventBus, type EventBus } from './events/bus.ts';
import { deliveryQueueSample } from './webhooks/queue-stats.ts';

/** HTTP_REQUEST_TIMEOUT_MS unless configured. */
const DEFAULT_BODY_DEADLINE_MS = 30_000;

export interface AppDeps {
  db: Database;
  /** Without graphqlIntrospection / graphqlLimits / answerPool, introspection is on and the limits are the defaults. */
  config: Pick<Config, 'trustProxy' | 'graphiql'> &
    Partial<
      Pick<
        Config,
        | 'publicOrigin'
        | 'allowedHosts'
        | 'metricsToken'
        | 'graphqlIntrospection'
        | 'graphqlLimits'
        | 'graphqlCompileAfter'
        | 'graphqlCompileBudgetMs'
        | 'answerPool'
        | 'sessionIdleMinutes'
        | 'sessionMaxAgeHours'
        | 'exportMaxSeconds'
        | 'exportConcurrency'
        | 'importMaxBytes'
        | 'httpRequestTimeoutMs'
        | 'smtpUrl'
        | 'smtpFrom'
        | 'inviteLinkHours'
        | 'resetLinkMinutes'
      >
    >;
  logger: Logger;
  redis?: Redis | null;
  /** Live events for subscriptions; in memory (this instance only) unless given. */
  bus?: EventBus;
  webhooks: WebhookServices;
  /** Yoga plugins of the caller's own: they run for /graphql, WebSocket and REST operations alike. */
  plugins?: Plugin<Context>[];
  /**
   * How long a verified key is trusted, and how often open connections' credentials are re-read,
   * without a notice (authenticate.ts, credential-watch.ts); tests lengthen them to see notices alone.
   */
  credentialTimes?: { keyCacheMs?: number; checkEveryMs?: number };
}

export function buildApp(deps: AppDeps) {
  const { db, config, logger } = deps;
  const authenticator = new Authenticator(db.prisma, deps.credentialTimes?.keyCacheMs);
  const limits = new RateLimits(deps.redis ?? null);
  const sessions = new SessionStore(db.prisma, {
    idleMs: (config.sessionIdleMinutes ?? 720) * 60_000,
    maxAgeMs: (config.sessionMaxAgeHours ?? 168) * 3600_000,
  });
  // Ends open sockets, subscription streams and exports in flight when their key or session ends.
  const watch = new CredentialWatch(db.prisma, {
    sessionTimes: sessions.times,
    logger,
    intervalMs: deps.credentialTimes?.checkEveryMs,
    forgetKey: (hash) => authenticator.forget(hash),
  });
  const bus = deps.bus ?? createEventBus(null);
  // Keys revoked and users deactivated on any instance end here at once, not at the next check.
  const credentials = announcedChanges(bus, authenticator);
  followNotices(bus, authenticator, watch);
  // This instance's metrics; main.ts hands them to the in-process delivery worker too.
  const metrics = new Metrics(() => deliveryQueueSample(db.prisma));
  const linkTimes: LinkTimes = {
    inviteMs: config.inviteLinkHours ? config.inviteLinkHours * 3600_000 : DEFAULT_LINK_TIMES.inviteMs,
    resetMs: config.resetLinkMinutes ? config.resetLinkMinutes * 60_000 : DEFAULT_LINK_TIMES.resetMs,
  };
  const mail = createTeamMailer({
    smtpUrl: config.smtpUrl ?? null,
    from: config.smtpFrom ?? 'CRM <no-reply@localhost>',
    logger,
  });
  const hostPolicy = { publicOrigin: config.publicOrigin ?? null, allowedHosts: config.allowedHosts ?? null };
  const contextOf = (caller: Caller, requestId: string, req?: Request): Context => ({
    prisma: db.prisma,
    sql: db.sql,
    caller,
    requestId,
    warnings: [],
    bus,
    webhooks: deps.webhooks,
    credentials,
    team: { linkTimes, mail, linkOrigin: req ? linkOriginOf(req, hostPolicy) : hostPolicy.publicOrigin },
  });
  const onInternalError = (err: unknown, req: Request) =>
    logger.error({ err, requestId: req.res?.locals.requestId, path: req.path }, 'request failed');
  // Shared middleware refuses by passing an AppError on; each surface answers in its own shape.
  const envelopeAnswer = restErrors(onInternalError);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.trustProxy)
    app.set('trust proxy', /^\d+$/.test(config.trustProxy) ? Number(config.trustProxy) : config.trustProxy);

  app.use(bodyDeadline(config.httpRequestTimeoutMs ?? DEFAULT_BODY_DEADLINE_MS));
  app.use(requestId);
  app.use(observeRequests(logger, metrics));
  // Before the https redirect: probes and scrapers often talk plain HTTP to the instance itself.
  app.use(opsRoutes({ db, redis: deps.redis ?? null, metrics, metricsToken: config.metricsToken ?? null, logger }));
  // Refused before any surface is reached: the envelope, on every path.
  if (config.trustProxy) {
    const policy = { publicOrigin: config.publicOrigin ?? null, allowedHosts: config.allowedHosts ?? null };
    app.use(redirectPlainHttp(policy), envelopeAnswer);
  }

  const operations = loadOperations(schema);
  const graphqlLimits = config.graphqlLimits ?? DEFAULT_GRAPHQL_LIMITS;
  // One pool of answer bytes for REST, GraphQL over HTTP/SSE and over WebSocket.
  const answers = new AnswerPool(config.answerPool ?? DEFAULT_ANSWER_POOL);
  const guard = authenticateAndLimit(authenticator, limits, metrics);
  // The REST API first, as one mount: most traffic is here, and every layer Express tries
  // before the one that answers costs time on every request.
  const v1 = express.Router();
  // Its operations run through yoga's pipeline (rest.plugin, below), with REST's own answers.
  const { maxResponseBytes } = graphqlLimits;
  const sendExport = exporter(db.prisma, {
    // The embedded database has one connection: an export must not hold it at a slow client's pace.
    spool: db.kind === 'pglite',
    // Under DATA_DIR, which this process alone holds: what a crash left there is swept at start.
    spoolDir: db.dataDir ? path.join(db.dataDir, 'exports') : null,
    maxSeconds: config.exportMaxSeconds ?? DEFAULT_EXPORT_OPTIONS.maxSeconds,
    concurrency: config.exportConcurrency ?? DEFAULT_EXPORT_OPTIONS.concurrency,
    // An export in flight ends with its credential, as subscriptions do.
    watch,
  });
  const rest = restApi({
    schema,
    operations,
    onInternalError,
    answers,
    maxResponseBytes,
    sendExport,
    sendFile: failedRowsSender(watch),
    importMaxBytes: config.importMaxBytes ?? DEFAULT_IMPORT_MAX_BYTES,
    uploadIdleMs: config.httpRequestTimeoutMs ?? DEFAULT_BODY_DEADLINE_MS,
  });
  v1.use(
    openApiDocument(buildOpenApi(schema, operations, { publicOrigin: config.publicOrigin })),
    guard,
    requestOrigin(() => 'rest'),
    refuseNonUtf8Query,
    // An import's file is a multipart body, which its route reads as it arrives.
    unlessUpload(requireJson),
    parseJson,
    bodyErrors,
    idempotency(db.prisma, logger, deps.webhooks.box),
    rest.handler,
  );
  app.use(['/v1', '/api/v1'], v1, envelopeAnswer);

  const yoga = createGraphqlHandler({
    schema,
    contextOf,
    introspection: config.graphqlIntrospection ?? true,
    limits: graphqlLimits,
    compile: {
      interpretedRuns: config.graphqlCompileAfter ?? 1,
      budgetMsPerMinute: config.graphqlCompileBudgetMs ?? DEFAULT_COMPILE_BUDGET_MS,
    },
    answers,
    logger,
    metrics,
    plugins: [liveStreamsPlugin(watch), rest.plugin, ...(deps.plugins ?? [])],
  });
  const sessionGuard = authenticateSession(sessions, limits, metrics);
  // The GraphiQL page and its files need no key; the queries it sends do.
  if (config.graphiql) app.use(graphiqlRoutes());
  app.use(
    '/graphql',
    cookieParser(),
    (req: Request, res: Response, next: NextFunction) =>
      usesSessionCookie(req) ? sessionGuard(req, res, next) : guard(req, res, next),
    // The dashboard reads a refused CSRF token as the error envelope, here too.
    (err: unknown, _req: Request, res: Response, next: NextFunction) =>
      err instanceof CsrfRefusal ? sendError(res, err) : next(err),
    requestOrigin((req) => (usesSessionCookie(req) ? 'dashboard' : 'graphql')),
    // As on REST, a body that is not JSON is a 415 with an error the client can read; it is
    // parsed here too (same size and depth limits), and yoga takes the parsed body as it is.
    requireJson,
    parseJson,
    bodyErrors,
    refuseNonUtf8Query,
    asJsonForYoga,
    (req: Request, res: Response) => yoga(req, res),
    graphqlErrors(onInternalError),
  );
  // Mounted before the dashboard's pages, which own the rest of /dashboard.
  app.use(
    '/dashboard/api',
    cookieParser(),
    // Before the sign-in routes, which take JSON only: an import's file is a multipart body.
    dashboardImportRoutes({ sessions, limits, metrics, rest: rest.handler }),
    // A password link's page (invitation, reset) is used signed out.
    passwordLinkRoutes({ sessions, linkLimits: new LinkLimits(deps.redis ?? null) }),
    dashboardSessionRoutes({ sessions, loginLimits: new LoginLimits(deps.redis ?? null) }),
  );
  app.use('/dashboard', dashboardPages());

  // The API reference needs no key.
  app.use(apiDocs());

  app.use((req: Request, _res: Response, next: NextFunction) =>
    next(new AppError('not_found', `No route ${req.method} ${req.path}`)),
  );
  app.use(envelopeAnswer);

  /** The client's address of a raw request (a WebSocket upgrade), by the same proxy rules as Express's req.ip. */
  const clientAddress = (req: IncomingMessage) => proxyAddr(req, app.get('trust proxy fn'));
  return { app, yoga, authenticator, credentials, sessions, bus, metrics, limits, watch, clientAddress, answers };
}
