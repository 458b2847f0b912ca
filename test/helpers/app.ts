// Starts the real app on 127.0.0.1 against a real database: an in-memory PGlite per test
// file by default, or this run's PostgreSQL schema when DATABASE_URL is set.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { inject } from 'vitest';
import { Redis } from 'ioredis';
import pg from 'pg';
import { buildApp, type AppDeps } from '../../src/app.ts';
import { openDatabase, type Database, type OpenOptions } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import {
  createApiKey,
  createCustomField,
  createUser,
  createWorkspace,
  type KeyInput,
} from '../../src/admin/workspaces.ts';
import { createLogger } from '../../src/logger.ts';
import { attachGraphqlWs } from '../../src/graphql/websocket.ts';
import type { EventBus } from '../../src/events/bus.ts';
import type { CredentialWatch } from '../../src/auth/credential-watch.ts';
import type { Config } from '../../src/config.ts';
import { createWebhookServices, type WebhookServices } from '../../src/webhooks/services.ts';
import type { UrlPolicy } from '../../src/webhooks/url-guard.ts';
import { DeliveryWorker } from '../../src/webhooks/worker.ts';
import { importRunnerOf, type ImportRunner } from '../../src/imports/import-runner.ts';
import { DEFAULT_OUTBOUND_CAPS, type OutboundCaps } from '../../src/webhooks/outbound-limits.ts';
import fs from 'node:fs';
import os from 'node:os';

export interface Res<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export type Client = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Res>;

export function client(base: string, key?: string): Client {
  return async (method, path, body, headers = {}) => {
    const h: Record<string, string> = { ...headers };
    if (key) h.authorization = `Bearer ${key}`;
    let payload: string | FormData | undefined;
    // A form (an import's upload) goes as multipart/form-data, with the boundary fetch chooses.
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      h['content-type'] ??= 'application/json';
      payload = typeof body === 'string' ? body : JSON.stringify(body);
    }
    const r = await fetch(base + path, { method, headers: h, body: payload, redirect: 'manual' });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: r.status, headers: r.headers, body: parsed, text };
  };
}

/**
 * The run's database. `isolated` gives PostgreSQL runs a schema of their own (dropped on close),
 * for tests that damage the database on purpose.
 */
export async function openTestDatabase(
  opts: { isolated?: boolean; onQuery?: OpenOptions['onQuery'] } = {},
): Promise<Database> {
  const url = process.env.DATABASE_URL;
  const { onQuery } = opts;
  if (url && !opts.isolated)
    return openDatabase({ databaseUrl: url, schema: inject('pgSchema') ?? undefined, poolSize: 4, onQuery });
  if (url) {
    const schema = `crm_iso_${process.pid}_${Date.now().toString(36)}`;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`CREATE SCHEMA ${schema}`);
    const db = await openDatabase({ databaseUrl: url, schema, poolSize: 2, onQuery });
    await applyMigrations(db.adapter);
    return {
      ...db,
      close: async () => {
        await db.close();
        await admin.query(`DROP SCHEMA ${schema} CASCADE`);
        await admin.end();
      },
    };
  }
  const dump = inject('pgliteDump');
  if (dump) return openDatabase({ fromDump: new Blob([fs.readFileSync(dump)]), onQuery });
  const db = await openDatabase({ onQuery });
  await applyMigrations(db.adapter);
  return db;
}

export interface TestApp {
  base: string;
  db: Database;
  /** A new live workspace with a full-access key, plus helpers to add keys and users to it. */
  workspace(opts?: { plan?: string }): Promise<TestWorkspace>;
  webhooks: WebhookServices;
  /** The live event bus; tests publish to it with startEventFeed. GraphQL over WebSocket answers at ws://…/graphql. */
  bus: EventBus;
  /** What the app holds open under each credential (sockets, subscriptions, exports), and its checks. */
  watch: CredentialWatch;
  /** A delivery worker on this app's database; stopped by close(). Tests usually drive runOnce(). */
  /** `listen`: new events wake it at once (LISTEN crm_events), as in the service. */
  worker(opts?: { pollMs?: number; concurrency?: number; listen?: boolean }): DeliveryWorker;
  /** An import runner on this app's database, started; stopped by close(). */
  importRunner(opts?: { leaseMs?: number }): ImportRunner;
  close(): Promise<void>;
}

export interface TestWorkspace {
  id: string;
  key: string;
  api: Client;
  addKey(opts: Partial<KeyInput>): Promise<{ id: string; key: string; api: Client }>;
  addUser(name: string, email?: string): Promise<{ id: string }>;
  addCustomField(key: string, type: string, options?: string[]): Promise<void>;
}

export interface TestAppOptions {
  trustProxy?: string;
  /** PUBLIC_URL's origin, where https redirects go. */
  publicOrigin?: string;
  allowedHosts?: string[];
  isolated?: boolean;
  webhooks?: Partial<Pick<Config, 'webhookAllowHttp' | 'webhookAllowPrivateUrls' | 'webhookCaps'>>;
  /** DNS for webhook URLs (save-time check and connect-time guard), stubbed by SSRF tests. */
  resolve?: UrlPolicy['resolve'];
  /** A shared (Redis) bus for multi-instance tests; in memory otherwise. Closed by close(). */
  bus?: EventBus;
  /** Where the app logs; silent by default. */
  logger?: Logger;
  /** Redis to use instead of REDIS_URL's. */
  redisUrl?: string;
  metricsToken?: string;
  /** GraphQL introspection and document limits; on and the defaults unless given. */
  graphql?: Partial<
    Pick<Config, 'graphqlIntrospection' | 'graphqlLimits' | 'graphqlCompileAfter' | 'graphqlCompileBudgetMs'>
  >;
  /** Sees every SQL statement the app sends, for tests that count them. */
  onQuery?: OpenOptions['onQuery'];
  /** IMPORT_MAX_BYTES; the default unless given. */
  importMaxBytes?: number;
  /** HTTP_REQUEST_TIMEOUT_MS: how long a body may take (an upload: how long it may be silent). */
  httpRequestTimeoutMs?: number;
  /** SMTP_URL: where invitations and password links are e-mailed. */
  smtpUrl?: string;
  /** Yoga plugins of the test's own (AppDeps.plugins). */
  plugins?: AppDeps['plugins'];
  /** Key cache period and credential check interval (AppDeps.credentialTimes). */
  credentialTimes?: AppDeps['credentialTimes'];
}

/**
 * Test files send to one host (127.0.0.1), through one Redis in CI: the caps per destination
 * host and on background deliveries are lifted unless a test sets them, so files do not
 * throttle each other. Test-send and redelivery caps keep their defaults.
 */
const UNCAPPED_DELIVERIES: OutboundCaps = {
  ...DEFAULT_OUTBOUND_CAPS,
  hostSendsPerMinute: 1_000_000,
  workspaceDeliveriesPerMinute: 1_000_000,
};

export async function startTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = await openTestDatabase({ isolated: opts.isolated, onQuery: opts.onQuery });
  const redisUrl = opts.redisUrl ?? process.env.REDIS_URL;
  const redis = redisUrl ? new Redis(redisUrl, { maxRetriesPerRequest: 1 }) : null;
  // An unreachable Redis is a case under test (readiness), not a crash.
  redis?.on('error', () => {});
  // Local receivers live on 127.0.0.1, so tests allow private http targets unless they test the guard.
  const webhooks = createWebhookServices(
    {
      encryptionKey: 'test-encryption-key',
      dataDir: os.tmpdir(),
      webhookAllowHttp: true,
      webhookAllowPrivateUrls: true,
      webhookCaps: UNCAPPED_DELIVERIES,
      ...opts.webhooks,
    },
    { resolve: opts.resolve, redis },
  );
  const logger = opts.logger ?? createLogger('silent');
  const config = {
    trustProxy: opts.trustProxy ?? null,
    publicOrigin: opts.publicOrigin ?? null,
    allowedHosts: opts.allowedHosts ?? null,
    graphiql: true,
    metricsToken: opts.metricsToken ?? null,
    importMaxBytes: opts.importMaxBytes,
    httpRequestTimeoutMs: opts.httpRequestTimeoutMs,
    // Every /graphql operation of the tests runs compiled from its first run, as the service runs
    // a document from its second (test/graphql.compiled.test.ts covers the first, interpreted run).
    graphqlCompileAfter: 0,
    smtpUrl: opts.smtpUrl ?? null,
    ...opts.graphql,
  };
  const { app, yoga, authenticator, credentials, sessions, bus, metrics, limits, watch, clientAddress } = buildApp({
    db,
    redis,
    webhooks,
    bus: opts.bus,
    logger,
    config,
    plugins: opts.plugins,
    credentialTimes: opts.credentialTimes,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
    // The server never drops an idle connection: the client (fetch) does, after its own 4 s. A
    // server timeout tells fetch to keep connections that long less a second (its Keep-Alive
    // hint), so on a busy machine a late timer on either side could close one just as fetch reuses
    // it (ECONNRESET). Without the hint only the client lets go.
    s.keepAliveTimeout = 0;
  });
  const graphqlWs = attachGraphqlWs(server, { yoga, authenticator, sessions, limits, watch, clientAddress, logger });
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  let n = 0;
  const workers: DeliveryWorker[] = [];
  const runners: ImportRunner[] = [];
  return {
    base,
    db,
    async workspace(wsOpts = {}) {
      const ws = await createWorkspace(db.prisma, { name: `Test ${++n}`, plan: wsOpts.plan ?? 'enterprise' });
      const addKey = async (k: Partial<KeyInput>) => {
        const created = await createApiKey(db.prisma, { workspace: ws.id, name: 'test key', scope: 'full', ...k });
        return { id: created.id, key: created.key, api: client(base, created.key) };
      };
      const main = await addKey({});
      return {
        id: ws.id,
        key: main.key,
        api: main.api,
        addKey,
        addUser: (name, email) =>
          createUser(db.prisma, {
            workspace: ws.id,
            name,
            email: email ?? `${name.replace(/\W/g, '').toLowerCase()}.${Date.now()}${n}@example.com`,
          }),
        addCustomField: async (key, type, options) => {
          await createCustomField(db.prisma, { workspace: ws.id, key, type, options });
        },
      };
    },
    webhooks,
    bus,
    watch,
    worker(workerOpts = {}) {
      const w = new DeliveryWorker({
        prisma: db.prisma,
        logger,
        pollMs: workerOpts.pollMs ?? 50,
        concurrency: workerOpts.concurrency,
        listen: workerOpts.listen ? db.listen : undefined,
        metrics,
        ...webhooks,
      });
      workers.push(w);
      return w;
    },
    importRunner(runnerOpts = {}) {
      const r = importRunnerOf(db, {
        logger,
        bus,
        webhooks,
        credentials,
        pollMs: 50,
        leaseMs: runnerOpts.leaseMs ?? 30_000,
        // Several runners of one test share the database: none may take another's running job.
        exclusive: false,
      });
      r.start();
      runners.push(r);
      return r;
    },
    async close() {
      await Promise.all([...workers.map((w) => w.stop(1000)), ...runners.map((r) => r.stop())]);
      await graphqlWs.dispose();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await bus.close();
      await webhooks.sender.close();
      await redis?.quit();
      await db.close();
    },
  };
}

/** Unique email addresses for a test file. */
export const uniqueEmail = (() => {
  const run = Date.now().toString(36);
  let i = 0;
  return (name = 'c') => `${name}.${run}.${++i}@example.com`;
})();

/** POST /graphql with a key; returns `{ data, errors }`. */
export async function gql(base: string, key: string, query: string, variables?: Record<string, unknown>) {
  const r = await client(base, key)('POST', '/graphql', { query, variables });
  return r.body as {
    data?: any;
    errors?: { message: string; extensions?: Record<string, any> }[];
    extensions?: Record<string, any>;
  };
}
