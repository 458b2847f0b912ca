// Endpoints for operators and their tools: liveness, readiness, Prometheus metrics. They need
// no API key (probes and scrapers have none); /metrics takes METRICS_TOKEN when one is set.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type Request } from 'express';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import { pendingMigrations } from '../db/migrate.ts';
import { AppError } from '../errors.ts';
import type { Metrics } from '../metrics.ts';

/** A probe is answered within this long even when a dependency hangs. */
const CHECK_TIMEOUT_MS = 2_000;

export interface OpsDeps {
  db: Database;
  redis: Redis | null;
  metrics: Metrics;
  metricsToken: string | null;
  logger: Logger;
}

/** A failed check whose reason is safe to show (unlike a driver's error, which may name hosts and users). */
class NotReady extends Error {}

export function opsRoutes(deps: OpsDeps): express.Router {
  const router = express.Router();
  // Probe answers must never come from a cache.
  router.use(['/healthz', '/readyz', '/metrics'], (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const checks = await readiness(deps);
    const failed = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    res
      .status(failed.length ? 503 : 200)
      .json(failed.length ? { status: 'unavailable', failed, checks } : { status: 'ok', checks });
  });

  router.get('/metrics', async (req, res, next) => {
    if (deps.metricsToken && !bearerMatches(req, deps.metricsToken)) {
      res.setHeader('WWW-Authenticate', 'Bearer');
      return next(new AppError('unauthorized', 'Send the metrics token as Authorization: Bearer <METRICS_TOKEN>'));
    }
    res.setHeader('Content-Type', deps.metrics.registry.contentType);
    res.send(await deps.metrics.registry.metrics());
  });
  return router;
}

/** Database reachable, every migration on disk applied, Redis answering when configured: 'ok' or why not. */
async function readiness(deps: OpsDeps): Promise<Record<string, string>> {
  const { db, redis, logger } = deps;
  const [database, redisState] = await Promise.all([
    check('database', logger, () => db.prisma.$queryRaw`SELECT 1`),
    redis ? check('redis', logger, () => redis.ping()) : null,
  ]);
  const migrations =
    database === 'ok'
      ? await check('migrations', logger, async () => {
          const pending = await pendingMigrations(db.prisma);
          if (pending.length) throw new NotReady(`pending: ${pending.join(', ')}`);
        })
      : 'unknown';
  return { database, migrations, ...(redisState && { redis: redisState }) };
}

async function check(name: string, logger: Logger, run: () => Promise<unknown>): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new NotReady(`no answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  try {
    await Promise.race([run(), timeout]);
    return 'ok';
  } catch (err) {
    logger.warn({ err, check: name }, 'readiness check failed');
    return err instanceof NotReady ? err.message : 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}

/** Compares digests, so the comparison takes the same time whatever the token's length. */
function bearerMatches(req: Request, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(req.get('authorization') ?? '')?.[1] ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}
