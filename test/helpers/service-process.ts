// The API (src/main.ts) and the delivery worker (src/worker.ts) as child processes on a given
// database, with workspaces and keys made directly in that database.
import { createApiKey, createWorkspace } from '../../src/admin/workspaces.ts';
import { openDatabase } from '../../src/db/client.ts';
import { applyMigrations } from '../../src/db/migrate.ts';
import { client, type Client } from './app.ts';
import { freePort, runEntry, waitForHttp, type Child } from './processes.ts';

/** Local receivers live on 127.0.0.1: the URL guard is relaxed as for local development. */
export const serviceEnv = {
  NODE_ENV: 'production',
  ENCRYPTION_KEY: 'reliability-test-key',
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  WEBHOOK_WORKER_POLL_MS: '50',
  EVENT_FEED_INTERVAL_MS: '50',
  SCHEDULER_INTERVAL_MS: '0',
  SHUTDOWN_GRACE_MS: '1000',
  // These suites measure delivery and recovery, not the outbound caps (tested in-process).
  WEBHOOK_HOST_REQUESTS_PER_MINUTE: '1000000',
  WEBHOOK_WORKSPACE_DELIVERIES_PER_MINUTE: '1000000',
};

export interface ServiceProcess extends Child {
  base: string;
  /** A client of this instance with the given key. */
  api(key: string): Client;
  stop(): Promise<void>;
}

export async function startApi(databaseUrl: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  // No Redis unless the test gives its own: not the one of the shell (CI's shared Redis).
  const child = runEntry('src/main.ts', {
    ...serviceEnv,
    REDIS_URL: '',
    DATA_DIR: `/tmp/crm-reliability-${port}`,
    ...env,
    DATABASE_URL: databaseUrl,
    PORT: String(port),
  });
  const base = `http://127.0.0.1:${port}`;
  await waitForHttp(`${base}/healthz`, child, 90_000);
  return { ...child, base, api: (key) => client(base, key), stop: () => stopChild(child) };
}

export function startWorker(databaseUrl: string, env: Record<string, string> = {}): Child & { stop(): Promise<void> } {
  const child = runEntry('src/worker.ts', {
    ...serviceEnv,
    REDIS_URL: '',
    DATA_DIR: '/tmp/crm-reliability-worker',
    ...env,
    DATABASE_URL: databaseUrl,
  });
  return { ...child, stop: () => stopChild(child) };
}

async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
  child.proc.kill('SIGTERM');
  const timer = setTimeout(() => child.proc.kill('SIGKILL'), 5_000);
  await child.exited;
  clearTimeout(timer);
}

/** Migrates the database and makes a workspace with a full-access key in it. */
export async function seedWorkspace(databaseUrl: string, plan = 'enterprise'): Promise<{ id: string; key: string }> {
  const db = await openDatabase({ databaseUrl, poolSize: 1 });
  try {
    await applyMigrations(db.adapter, { client: db.prisma });
    const ws = await createWorkspace(db.prisma, { name: `Reliability ${plan}`, plan });
    const key = await createApiKey(db.prisma, { workspace: ws.id, name: 'reliability', scope: 'full' });
    return { id: ws.id, key: key.key };
  } finally {
    await db.close();
  }
}
