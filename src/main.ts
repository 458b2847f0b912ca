// Starts the service: database (migrations applied), first-start workspace, HTTP(S) listeners.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import express from 'express';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { startEventRetention } from './jobs/event-retention.ts';
import { ensureDefaultWorkspace } from './admin/workspaces.ts';
import { drainable } from './http/drain.ts';
import { listen } from './http/listen.ts';
import { redirectEverything } from './http/https.ts';
import { restErrors } from './rest/errors.ts';
import { closingSilentConnections as bounded, serverOptions } from './http/server-options.ts';
import { attachGraphqlWs } from './graphql/websocket.ts';
import { createLogger } from './logger.ts';
import { createWebhookServices } from './webhooks/services.ts';
import { EncryptionKeyMismatchError, verifyEncryptionKey } from './webhooks/key-check.ts';
import { loadSecretBox } from './webhooks/secret-box.ts';
import { DeliveryWorker } from './webhooks/worker.ts';
import { importRunnerOf } from './imports/import-runner.ts';
import { createOwnerNotifier } from './webhooks/notify.ts';
import { startEventFeed } from './events/feed.ts';
import { createEventBus } from './events/bus.ts';
import { startTaskScheduler } from './jobs/task-scheduler.ts';
import { StartupError } from './startup-error.ts';
import { openControlSocket } from './backup/control-socket.ts';

const logger = createLogger(config.logLevel);

/** Requests that arrive while the database opens wait for the app rather than finding no one. */
function deferredHandler(ready: Promise<http.RequestListener>): http.RequestListener {
  return (req, res) => void ready.then((handle) => handle(req, res));
}

async function start() {
  // While starting, a signal ends the process at once (nothing is served or owed yet).
  const quit = () => process.exit(1);
  process.once('SIGTERM', quit).once('SIGINT', quit);

  // Every listener is bound before anything else is opened or created: a port that cannot be had
  // ends the start with one line, before the database exists and before a first key is printed.
  let serve!: (app: http.RequestListener) => void;
  const handler = deferredHandler(new Promise((resolve) => (serve = resolve)));
  const tls =
    config.tlsCertFile && config.tlsKeyFile
      ? { cert: readTlsFile('TLS_CERT_FILE', config.tlsCertFile), key: readTlsFile('TLS_KEY_FILE', config.tlsKeyFile) }
      : null;
  const servers: http.Server[] = [
    bounded(
      tls
        ? createTlsServer(tls, handler)
        : http.createServer(serverOptions(config, { bodiesTimedByApp: true }), handler),
      config,
    ),
  ];
  await listen(servers[0], config.port, config.host, 'PORT');
  const plainPort = config.httpRedirectPort ?? 80;
  if (tls) {
    const redirect = express().use(
      redirectEverything(config.port, config),
      restErrors((err) => logger.error({ err }, 'request failed')),
    );
    servers.push(bounded(http.createServer(serverOptions(config), redirect), config));
    await listen(servers[1], plainPort, config.host, 'HTTP_REDIRECT_PORT');
  }

  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, probe: true });
  const applied = await applyMigrations(db.adapter, { client: db.prisma });
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  await verifyEncryptionKey(db.prisma, loadSecretBox(config.encryptionKey, config.dataDir)).catch(async (err) => {
    if (!(err instanceof EncryptionKeyMismatchError)) throw err;
    logger.fatal(err.message);
    await db.close();
    process.exit(1);
  });

  // The embedded database is this process's alone: `npm run cli -- backup` asks it for a copy.
  const control = db.pglite ? await openControlSocket({ dataDir: config.dataDir, pglite: db.pglite, logger }) : null;

  const first = await ensureDefaultWorkspace(db.prisma);
  if (first) {
    // Printed once, on the first start only: the key is not stored in a readable form.
    process.stdout.write(
      `\nCreated workspace "${first.workspace.name}" (${first.workspace.id}) with user ${first.user.email}.\n` +
        `Full-access API key (shown only this once):\n\n    ${first.key.key}\n\n` +
        `To sign in to the dashboard (/dashboard), stop the service and set a password first:\n\n` +
        `    npm run cli -- user set-password --email ${first.user.email}\n\n`,
    );
  }

  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));

  const webhooks = createWebhookServices(config, { redis });
  const bus = createEventBus(config.redisUrl, { logger });
  const { app, yoga, authenticator, credentials, sessions, metrics, limits, watch, clientAddress } = buildApp({
    db,
    config,
    logger,
    redis,
    webhooks,
    bus,
  });
  const worker = config.workerInProcess
    ? new DeliveryWorker({
        prisma: db.prisma,
        logger,
        pollMs: config.workerPollMs,
        listen: db.listen,
        metrics,
        ...webhooks,
        notifyDisabled: createOwnerNotifier({
          prisma: db.prisma,
          logger,
          smtpUrl: config.smtpUrl,
          from: config.smtpFrom,
        }),
      })
    : null;
  worker?.start();
  // Import jobs run where webhook deliveries do: on every instance with the in-process worker, and on `npm run worker`.
  const imports = config.workerInProcess
    ? importRunnerOf(db, {
        logger,
        bus,
        webhooks,
        credentials,
        pollMs: config.importPollMs,
        leaseMs: config.importLeaseMs,
      })
    : null;
  imports?.start();
  serve(app);
  if (tls) {
    logger.info(`CRM service on https://${config.host}:${config.port} (plain HTTP on ${plainPort} redirects)`);
  } else {
    logger.info(
      `CRM service on http://${config.host}:${config.port} ` +
        '(plain HTTP; set TLS_CERT_FILE/TLS_KEY_FILE or run behind a TLS proxy with TRUST_PROXY) ' +
        `using ${db.kind === 'pglite' ? `the embedded database in ${config.dataDir}` : 'PostgreSQL'}`,
    );
  }

  const drains = servers.map(drainable);
  // servers[0] serves the API (HTTPS when TLS is configured); GraphQL over WebSocket shares its port.
  const graphqlWs = attachGraphqlWs(servers[0], {
    yoga,
    authenticator,
    sessions,
    limits,
    watch,
    clientAddress,
    logger,
  });
  const feed =
    config.eventFeedIntervalMs > 0
      ? startEventFeed({ sql: db.sql, bus, logger, intervalMs: config.eventFeedIntervalMs })
      : null;
  const scheduler = startTaskScheduler({ prisma: db.prisma, logger, intervalMs: config.schedulerIntervalMs });
  const retention = startEventRetention({
    sql: db.sql,
    logger,
    retentionDays: config.eventRetentionDays,
    onPruned: (n) => metrics.eventsPruned.inc(n),
  });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const graceMs = config.shutdownGraceMs;
    logger.info({ signal, graceMs }, 'shutting down');
    // Whatever hangs past the grace period (a database that does not answer) must not keep the process.
    setTimeout(() => {
      logger.error('shutdown did not finish in time');
      process.exit(1);
    }, graceMs + 5_000).unref();
    try {
      // Nothing new is accepted; requests, WebSockets (closed with 1001) and delivery attempts
      // under way share one grace period. Unsent deliveries are released for other workers.
      await Promise.all([
        ...drains.map((d) => d.close(graceMs)),
        graphqlWs.dispose(),
        worker?.stop(graceMs),
        imports?.stop(),
        control?.close(),
      ]);
      await feed?.stop();
      await retention.stop();
      await bus.close();
      await webhooks.sender.close();
      await scheduler.stop();
      await redis?.quit().catch(() => {});
      await db.close();
    } catch (err) {
      logger.error({ err }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.off('SIGTERM', quit).off('SIGINT', quit);
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

function createTlsServer(tls: { cert: Buffer; key: Buffer }, handler: http.RequestListener): https.Server {
  try {
    return https.createServer({ ...tls, ...serverOptions(config, { bodiesTimedByApp: true }) }, handler);
  } catch (err) {
    throw new StartupError(
      `TLS_CERT_FILE and TLS_KEY_FILE are not a certificate and its key: ${(err as Error).message}`,
      { cause: err },
    );
  }
}

function readTlsFile(setting: string, file: string): Buffer {
  try {
    return fs.readFileSync(file);
  } catch (err) {
    throw new StartupError(`Cannot read ${setting} ${file}: ${(err as Error).message}`, { cause: err });
  }
}

start().catch((err) => {
  // An operator's problem is one line; anything else keeps its stack for a bug report.
  if (err instanceof StartupError) logger.fatal(err.message);
  else logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
