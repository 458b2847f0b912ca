// Liveness and readiness: no key needed, and readiness names the dependency that is missing.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, describe, expect } from 'vitest';
import { buildApp } from '../src/app.ts';
import { openDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/logger.ts';
import { client } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';
import { freePort } from './helpers/processes.ts';

/** Servers a test builds by hand, closed after the file. */
const cleanup: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const fn of cleanup) await fn();
});

describe('health', () => {
  it('GET /healthz answers 200 without a key', async ({ app }) => {
    const r = await client(app.base)('GET', '/healthz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'ok' });
    expect(r.headers.get('cache-control')).toBe('no-store');
  });

  it('GET /readyz answers 200 when the database is reachable and migrated (and Redis, when configured)', async ({
    app,
  }) => {
    const r = await client(app.base)('GET', '/readyz');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      checks: { database: 'ok', migrations: 'ok', ...(process.env.REDIS_URL ? { redis: 'ok' } : {}) },
    });
  });

  it('503 naming the migrations not applied', async ({ startApp }) => {
    const iso = await startApp({ isolated: true });
    const [{ migration_name: last }] = await iso.db.prisma.$queryRawUnsafe<{ migration_name: string }[]>(
      'SELECT migration_name FROM _prisma_migrations ORDER BY migration_name DESC LIMIT 1',
    );
    await iso.db.prisma.$executeRawUnsafe(`DELETE FROM _prisma_migrations WHERE migration_name = '${last}'`);
    const r = await client(iso.base)('GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toMatchObject({
      status: 'unavailable',
      failed: ['migrations'],
      checks: { database: 'ok', migrations: `pending: ${last}` },
    });
  });

  it('503 when Redis is configured but does not answer', async ({ startApp }) => {
    const noRedis = await startApp({ redisUrl: `redis://127.0.0.1:${await freePort()}` });
    const r = await client(noRedis.base)('GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.body.failed).toEqual(['redis']);
    expect(r.body.checks).toMatchObject({ database: 'ok', migrations: 'ok' });
    expect(r.body.checks.redis).not.toBe('ok');
  });

  it('503 when the database does not answer, without its error text', async ({ app }) => {
    const db = await openDatabase({ databaseUrl: `postgresql://nobody:hunter2@127.0.0.1:${await freePort()}/none` });
    const { app: express } = buildApp({
      db,
      webhooks: app.webhooks,
      logger: createLogger('silent'),
      config: { trustProxy: null, graphiql: false },
    });
    const server: Server = await new Promise((resolve) => {
      const s = express.listen(0, '127.0.0.1', () => resolve(s));
    });
    cleanup.push(
      () => new Promise((r) => server.close(r)),
      () => db.close(),
    );
    const r = await client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)('GET', '/readyz');
    expect(r.status).toBe(503);
    expect(r.body).toEqual({
      status: 'unavailable',
      failed: ['database', 'migrations'],
      checks: { database: 'unreachable', migrations: 'unknown' },
    });
    expect(r.text).not.toContain('hunter2');
  });

  it('API requests get a retryable 503 with the error envelope while the database is unreachable', async ({ app }) => {
    const db = await openDatabase({ databaseUrl: `postgresql://nobody:hunter2@127.0.0.1:${await freePort()}/none` });
    const { app: express } = buildApp({
      db,
      webhooks: app.webhooks,
      logger: createLogger('silent'),
      config: { trustProxy: null, graphiql: false },
    });
    const server: Server = await new Promise((resolve) => {
      const s = express.listen(0, '127.0.0.1', () => resolve(s));
    });
    cleanup.push(
      () => new Promise((r) => server.close(r)),
      () => db.close(),
    );
    const api = client(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, `crm_live_${'a'.repeat(32)}`);
    for (const r of [await api('GET', '/v1/contacts'), await api('POST', '/v1/contacts', { first_name: 'Down' })]) {
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toMatchObject({
        success: false,
        error: { code: 'service_unavailable' },
        meta: { request_id: expect.any(String) },
      });
      expect(r.text).not.toContain('hunter2');
    }
  });
});
