// `npm run worker`: the webhook delivery worker and the import runner alone, for running it apart from the API
// (start the API with WEBHOOK_WORKER=false then). Several may run against one PostgreSQL.
import { Redis } from 'ioredis';
import { config } from './config.ts';
import { openDatabase } from './db/client.ts';
import { applyMigrations } from './db/migrate.ts';
import { createLogger } from './logger.ts';
import { createWebhookServices } from './webhooks/services.ts';
import { verifyEncryptionKey } from './webhooks/key-check.ts';
import { DeliveryWorker } from './webhooks/worker.ts';
import { createOwnerNotifier } from './webhooks/notify.ts';
import { StartupError } from './startup-error.ts';
import { importRunnerOf } from './imports/import-runner.ts';
import { createEventBus } from './events/bus.ts';
import { announcedChanges } from './auth/credential-notices.ts';

const logger = createLogger(config.logLevel);

try {
  const db = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, probe: true });
  await applyMigrations(db.adapter, { client: db.prisma });
  // Caps on outbound requests are shared with every instance through Redis when it is configured.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false })
    : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable'));
  const webhooks = createWebhookServices(config, { redis });
  await verifyEncryptionKey(db.prisma, webhooks.box);
  const worker = new DeliveryWorker({
    prisma: db.prisma,
    logger,
    pollMs: config.workerPollMs,
    listen: db.listen,
    ...webhooks,
    notifyDisabled: createOwnerNotifier({ prisma: db.prisma, logger, smtpUrl: config.smtpUrl, from: config.smtpFrom }),
  });
  worker.start();
  const bus = createEventBus(config.redisUrl, { logger });
  const imports = importRunnerOf(db, {
    logger,
    bus,
    webhooks,
    // This process caches no keys; what it changes is announced to the instances that do.
    credentials: announcedChanges(bus, null),
    pollMs: config.importPollMs,
    leaseMs: config.importLeaseMs,
  });
  imports.start();
  logger.info({ pid: process.pid }, 'webhook delivery and import worker started');
  const stop = async (signal: string) => {
    logger.info({ signal, graceMs: config.shutdownGraceMs }, 'stopping delivery worker');
    // Attempts still under way after the grace period are released for other workers (see DeliveryWorker.stop).
    await Promise.all([worker.stop(config.shutdownGraceMs), imports.stop()]);
    await webhooks.sender.close();
    await bus.close();
    await redis?.quit().catch(() => {});
    await db.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
} catch (err) {
  if (err instanceof StartupError) logger.fatal(err.message);
  else logger.fatal({ err }, 'worker failed to start');
  process.exit(1);
}
