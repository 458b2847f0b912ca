// Starts the service: database (migrations applied), first-start workspace, HTTP(S) listeners.
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import express from 'express';
import { Redis } from 'ioredis';
import { buildApp } from './app.ts';
import { config } from './config.ts';
import { DatabaseBusyError, openDatabase } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { ensureDefaultWorkspace } from './admin/workspaces.ts';
import { drainable } from './http/drain.ts';
import { redirectEverything } from './http/https.ts';
import { attachGraphqlWs } from './http/websocket.ts';
import { createLogger } from './logger.ts';
import { createWebhookServices } from './webhooks/services.ts';
import { EncryptionKeyMismatchError, verifyEncryptionKey } from './webhooks/key-check.ts';
import { loadSecretBox } from './webhooks/secret-box.ts';
import { DeliveryWorker } from './webhooks/worker.ts';
import { createOwnerNotifier } from './webhooks/notify.ts';
import { startEventFeed } from './webhooks/event-feed.ts';
import { createEventBus } from './webhooks/pubsub.ts';
import { startTaskScheduler } from './jobs/task-scheduler.ts';

const logger = createLogger(config.logLevel);

async function start() {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }).catch((err) => {
    if (err instanceof DatabaseBusyError) {
      logger.fatal(err.message);
      process.exit(1);
    }
    throw err;
  });
  const applied = await applyMigrations(db.adapter, { client: db.prisma });
  if (applied.length) logger.info({ migrations: applied }, 'migrations applied');
  await verifyEncryptionKey(db.prisma, loadSecretBox(config.encryptionKey, config.dataDir)).catch(async (err) => {
    if (!(err instanceof EncryptionKeyMismatchError)) throw err;
    logger.fatal(err.message);
    await db.close();
    process.exit(1);
  });

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

  const redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));

  const webhooks = createWebhookServices(config, { redis });
  const bus = createEventBus(config.redisUrl, { logger });
  const { app, yoga, authenticator, sessions, metrics } = buildApp({ db, config, logger, redis, webhooks, bus });
  const worker = config.workerInProcess ? new DeliveryWorker({ prisma: db.prisma, logger, pollMs: config.workerPollMs, metrics, ...webhooks, notifyDisabled: createOwnerNotifier({ prisma: db.prisma, logger, smtpUrl: config.smtpUrl, from: config.smtpFrom }) }) : null;
  worker?.start();
  const servers: http.Server[] = [];
  if (config.tlsCertFile && config.tlsKeyFile) {
    const tls = { cert: fs.readFileSync(config.tlsCertFile), key: fs.readFileSync(config.tlsKeyFile) };
    servers.push(https.createServer(tls, app).listen(config.port, config.host));
    const plainPort = config.httpRedirectPort ?? 80;
    servers.push(http.createServer(express().use(redirectEverything(config.port))).listen(plainPort, config.host));
    logger.info(`CRM service on https://${config.host}:${config.port} (plain HTTP on ${plainPort} redirects)`);
  } else {
    servers.push(http.createServer(app).listen(config.port, config.host));
    logger.info(
      `CRM service on http://${config.host}:${config.port} (plain HTTP; set TLS_CERT_FILE/TLS_KEY_FILE or run behind a TLS proxy with TRUST_PROXY) ` +
        `using ${db.kind === 'pglite' ? `the embedded database in ${config.dataDir}` : 'PostgreSQL'}`,
    );
  }

  const drains = servers.map(drainable);
  // servers[0] serves the API (HTTPS when TLS is configured); GraphQL over WebSocket shares its port.
  const graphqlWs = attachGraphqlWs(servers[0], { yoga, authenticator, sessions, logger });
  const feed = config.eventFeedIntervalMs > 0 ? startEventFeed({ prisma: db.prisma, bus, logger, intervalMs: config.eventFeedIntervalMs }) : null;
  const scheduler = startTaskScheduler({ prisma: db.prisma, logger, intervalMs: config.schedulerIntervalMs });

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
      await Promise.all([...drains.map((d) => d.close(graceMs)), graphqlWs.dispose(), worker?.stop(graceMs)]);
      await feed?.stop();
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
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

start().catch((err) => {
  logger.fatal({ err }, 'failed to start');
  process.exit(1);
});
