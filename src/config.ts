// The only reader of process.env: every setting the service understands, typed, with defaults.
import path from 'node:path';
import { DEFAULT_GRAPHQL_LIMITS, type GraphqlLimits } from './graphql/limits.ts';
import { DEFAULT_COMPILE_BUDGET_MS } from './graphql/compiled-execution.ts';
import { DEFAULT_ANSWER_POOL, type AnswerPoolLimits } from './http/answer-pool.ts';
import { DEFAULT_OUTBOUND_CAPS, type OutboundCaps } from './webhooks/outbound-limits.ts';

function bool(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

function int(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
}

function positive(name: string, v: string | undefined, fallback: number): number {
  const n = int(name, v, fallback);
  if (n === 0) throw new Error(`${name} must be at least 1`);
  return n;
}

/** An https:// origin (scheme, host, port; no path, query or credentials), or null when unset. */
function origin(name: string, v: string | undefined): string | null {
  if (v === undefined || v.trim() === '') return null;
  let url: URL;
  try {
    url = new URL(v.trim());
  } catch {
    throw new Error(`${name} must be a URL such as https://crm.example.com, got "${v}"`);
  }
  if (url.protocol !== 'https:' || url.username || url.password || url.search || url.hash || url.pathname !== '/') {
    throw new Error(
      `${name} must be an https:// origin with no path, query or credentials, such as https://crm.example.com, ` +
        `got "${v}"`,
    );
  }
  return url.origin;
}

function hostList(name: string, v: string | undefined): string[] | null {
  if (v === undefined || v.trim() === '') return null;
  const hosts = v
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const bad = hosts.filter(
    (h) => !/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/.test(h),
  );
  if (bad.length)
    throw new Error(
      `${name} must list host names without ports, such as crm.example.com,api.example.com; got "${bad.join(', ')}"`,
    );
  return hosts;
}

export interface Config {
  env: string;
  production: boolean;
  host: string;
  port: number;
  /** Plain-HTTP port that only redirects, used when TLS is configured. */
  httpRedirectPort: number | null;
  dataDir: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  trustProxy: string | null;
  /** The origin clients reach the service at (PUBLIC_URL), e.g. https://crm.example.com: where https redirects go. */
  publicOrigin: string | null;
  /**
   * Host names (ALLOWED_HOSTS, comma-separated) an https redirect
   * may name when PUBLIC_URL is unset; null: the request's own Host.
   */
  allowedHosts: string[] | null;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  logLevel: string;
  graphiql: boolean;
  /** `__schema` / `__type` queries; off in production unless GRAPHQL_INTROSPECTION turns them on. */
  graphqlIntrospection: boolean;
  /**
   * Runs of a /graphql document interpreted before it runs as compiled code (graphql-jit): a
   * document sent once is never compiled.
   */
  graphqlCompileAfter: number;
  /** CPU time compiling /graphql documents may take per minute; 0 runs every document interpreted. */
  graphqlCompileBudgetMs: number;
  /** Shape limits of GraphQL documents, checked before anything runs (see src/graphql/limits.ts). */
  graphqlLimits: GraphqlLimits;
  /**
   * Bytes of answers in flight at once over every transport, and how many
   * operations may wait for room and how long (see src/http/answer-pool.ts).
   */
  answerPool: AnswerPoolLimits;
  /** Key that encrypts webhook secrets at rest; a key file under dataDir is made when unset. */
  encryptionKey: string | null;
  /** Local development only: webhook URLs may use plain http / private addresses. */
  webhookAllowHttp: boolean;
  webhookAllowPrivateUrls: boolean;
  /** Caps on what is sent to webhook receivers (see src/webhooks/outbound-limits.ts). */
  webhookCaps: OutboundCaps;
  /** Mail server for owner notifications (e.g. smtp://user:pass@mail:587); the log only when unset. */
  smtpUrl: string | null;
  smtpFrom: string;
  /** Run the webhook delivery worker inside the API process (`npm run worker` runs it alone). */
  workerInProcess: boolean;
  /** Pause of the delivery worker when it found nothing to do. */
  workerPollMs: number;
  /** Pause between task scheduler runs (overdue events, reminders); 0 disables the scheduler. */
  schedulerIntervalMs: number;
  /** Pause between reads of the event log for live subscriptions (their latency); 0 turns them off. */
  eventFeedIntervalMs: number;
  /** Days the event log keeps events (GET /v1/events, recovery, resumed subscriptions); 0 keeps all. */
  eventRetentionDays: number;
  /** Longest an export's snapshot transaction may stay open (and so its file take to read). */
  exportMaxSeconds: number;
  /** Exports one instance runs at once; more are answered 429. */
  exportConcurrency: number;
  /** The largest file POST /v1/imports takes, in bytes. */
  importMaxBytes: number;
  /** How long a worker holds an import job without renewing its lease: a dead worker's job resumes after it. */
  importLeaseMs: number;
  /** Pause of the import runner when no job waits. */
  importPollMs: number;
  /** Bearer token that /metrics requires; when unset /metrics is open and should be firewalled. */
  metricsToken: string | null;
  /** How long SIGTERM waits for requests and webhook attempts in flight before cutting them. */
  shutdownGraceMs: number;
  /**
   * A request's headers must arrive within this long, its whole body
   * within httpRequestTimeoutMs (see src/http/server-options.ts).
   */
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
  /** Dashboard sign-ins end after this long unused, and this long after sign-in at the latest. */
  sessionIdleMinutes: number;
  sessionMaxAgeHours: number;
  /** How long an invitation's password link works (hours), and a password reset link (minutes). */
  inviteLinkHours: number;
  resetLinkMinutes: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const nodeEnv = env.NODE_ENV || 'development';
  const production = nodeEnv === 'production';
  return {
    env: nodeEnv,
    production,
    host: env.HOST || '127.0.0.1',
    port: int('PORT', env.PORT, 3000),
    httpRedirectPort: env.HTTP_REDIRECT_PORT ? int('HTTP_REDIRECT_PORT', env.HTTP_REDIRECT_PORT, 0) : null,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    databaseUrl: env.DATABASE_URL || null,
    redisUrl: env.REDIS_URL || null,
    trustProxy: env.TRUST_PROXY || null,
    publicOrigin: origin('PUBLIC_URL', env.PUBLIC_URL),
    allowedHosts: hostList('ALLOWED_HOSTS', env.ALLOWED_HOSTS),
    tlsCertFile: env.TLS_CERT_FILE || null,
    tlsKeyFile: env.TLS_KEY_FILE || null,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    graphiql: env.GRAPHIQL !== undefined ? bool(env.GRAPHIQL) : !production,
    graphqlIntrospection: env.GRAPHQL_INTROSPECTION !== undefined ? bool(env.GRAPHQL_INTROSPECTION) : !production,
    graphqlCompileAfter: int('GRAPHQL_COMPILE_AFTER', env.GRAPHQL_COMPILE_AFTER, 1),
    graphqlCompileBudgetMs: int('GRAPHQL_COMPILE_BUDGET_MS', env.GRAPHQL_COMPILE_BUDGET_MS, DEFAULT_COMPILE_BUDGET_MS),
    graphqlLimits: {
      maxDepth: int('GRAPHQL_MAX_DEPTH', env.GRAPHQL_MAX_DEPTH, DEFAULT_GRAPHQL_LIMITS.maxDepth),
      maxAliases: int('GRAPHQL_MAX_ALIASES', env.GRAPHQL_MAX_ALIASES, DEFAULT_GRAPHQL_LIMITS.maxAliases),
      maxCost: int('GRAPHQL_MAX_COST', env.GRAPHQL_MAX_COST, DEFAULT_GRAPHQL_LIMITS.maxCost),
      maxTokens: int('GRAPHQL_MAX_TOKENS', env.GRAPHQL_MAX_TOKENS, DEFAULT_GRAPHQL_LIMITS.maxTokens),
      maxDirectives: int('GRAPHQL_MAX_DIRECTIVES', env.GRAPHQL_MAX_DIRECTIVES, DEFAULT_GRAPHQL_LIMITS.maxDirectives),
      maxResponseBytes: positive(
        'GRAPHQL_MAX_RESPONSE_BYTES',
        env.GRAPHQL_MAX_RESPONSE_BYTES,
        DEFAULT_GRAPHQL_LIMITS.maxResponseBytes,
      ),
    },
    answerPool: {
      maxBytes: positive('ANSWER_POOL_BYTES', env.ANSWER_POOL_BYTES, DEFAULT_ANSWER_POOL.maxBytes),
      maxWaiting: int('ANSWER_POOL_MAX_WAITING', env.ANSWER_POOL_MAX_WAITING, DEFAULT_ANSWER_POOL.maxWaiting),
      maxWaitMs: int('ANSWER_POOL_MAX_WAIT_MS', env.ANSWER_POOL_MAX_WAIT_MS, DEFAULT_ANSWER_POOL.maxWaitMs),
    },
    encryptionKey: env.ENCRYPTION_KEY || null,
    webhookAllowHttp: bool(env.WEBHOOK_ALLOW_HTTP),
    webhookAllowPrivateUrls: bool(env.WEBHOOK_ALLOW_PRIVATE_URLS),
    webhookCaps: {
      testSendsPerMinute: positive(
        'WEBHOOK_TEST_SENDS_PER_MINUTE',
        env.WEBHOOK_TEST_SENDS_PER_MINUTE,
        DEFAULT_OUTBOUND_CAPS.testSendsPerMinute,
      ),
      redeliveriesPerMinute: positive(
        'WEBHOOK_REDELIVERIES_PER_MINUTE',
        env.WEBHOOK_REDELIVERIES_PER_MINUTE,
        DEFAULT_OUTBOUND_CAPS.redeliveriesPerMinute,
      ),
      workspaceDeliveriesPerMinute: positive(
        'WEBHOOK_WORKSPACE_DELIVERIES_PER_MINUTE',
        env.WEBHOOK_WORKSPACE_DELIVERIES_PER_MINUTE,
        DEFAULT_OUTBOUND_CAPS.workspaceDeliveriesPerMinute,
      ),
      hostSendsPerMinute: positive(
        'WEBHOOK_HOST_REQUESTS_PER_MINUTE',
        env.WEBHOOK_HOST_REQUESTS_PER_MINUTE,
        DEFAULT_OUTBOUND_CAPS.hostSendsPerMinute,
      ),
    },
    smtpUrl: env.SMTP_URL || null,
    smtpFrom: env.SMTP_FROM || 'CRM <no-reply@localhost>',
    workerInProcess: env.WEBHOOK_WORKER !== undefined ? bool(env.WEBHOOK_WORKER) : true,
    workerPollMs: int('WEBHOOK_WORKER_POLL_MS', env.WEBHOOK_WORKER_POLL_MS, 250),
    schedulerIntervalMs: int('SCHEDULER_INTERVAL_MS', env.SCHEDULER_INTERVAL_MS, 30_000),
    eventFeedIntervalMs: int('EVENT_FEED_INTERVAL_MS', env.EVENT_FEED_INTERVAL_MS, 200),
    eventRetentionDays: int('EVENT_RETENTION_DAYS', env.EVENT_RETENTION_DAYS, 90),
    exportMaxSeconds: positive('EXPORT_MAX_SECONDS', env.EXPORT_MAX_SECONDS, 600),
    exportConcurrency: positive('EXPORT_CONCURRENCY', env.EXPORT_CONCURRENCY, 2),
    importMaxBytes: positive('IMPORT_MAX_BYTES', env.IMPORT_MAX_BYTES, 1024 ** 3),
    importLeaseMs: positive('IMPORT_LEASE_SECONDS', env.IMPORT_LEASE_SECONDS, 30) * 1000,
    importPollMs: positive('IMPORT_POLL_MS', env.IMPORT_POLL_MS, 1000),
    metricsToken: env.METRICS_TOKEN || null,
    shutdownGraceMs: int('SHUTDOWN_GRACE_MS', env.SHUTDOWN_GRACE_MS, 10_000),
    httpHeadersTimeoutMs: positive('HTTP_HEADERS_TIMEOUT_MS', env.HTTP_HEADERS_TIMEOUT_MS, 10_000),
    httpRequestTimeoutMs: positive('HTTP_REQUEST_TIMEOUT_MS', env.HTTP_REQUEST_TIMEOUT_MS, 30_000),
    sessionIdleMinutes: positive('SESSION_IDLE_MINUTES', env.SESSION_IDLE_MINUTES, 720),
    sessionMaxAgeHours: positive('SESSION_MAX_AGE_HOURS', env.SESSION_MAX_AGE_HOURS, 168),
    inviteLinkHours: positive('INVITE_LINK_HOURS', env.INVITE_LINK_HOURS, 72),
    resetLinkMinutes: positive('RESET_LINK_MINUTES', env.RESET_LINK_MINUTES, 60),
  };
}

/** A bad setting is the operator's to fix: one line naming it, exit 1, no stack trace. */
function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    process.stderr.write(`Invalid configuration: ${(err as Error).message}\n`);
    process.exit(1);
  }
}

export const config = loadConfigOrExit();
