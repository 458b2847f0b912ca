// The only reader of process.env: every setting the service understands, typed, with defaults.
import path from 'node:path';

function bool(v: string | undefined): boolean {
  return v !== undefined && /^(1|true|yes|on)$/i.test(v.trim());
}

function int(name: string, v: string | undefined, fallback: number): number {
  if (v === undefined || v.trim() === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${v}"`);
  return n;
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
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  logLevel: string;
  graphiql: boolean;
  /** Pause between task scheduler runs (overdue events, reminders); 0 disables the scheduler. */
  schedulerIntervalMs: number;
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
    tlsCertFile: env.TLS_CERT_FILE || null,
    tlsKeyFile: env.TLS_KEY_FILE || null,
    logLevel: env.LOG_LEVEL || (env.NODE_ENV === 'test' ? 'silent' : 'info'),
    graphiql: env.GRAPHIQL !== undefined ? bool(env.GRAPHIQL) : !production,
    schedulerIntervalMs: int('SCHEDULER_INTERVAL_MS', env.SCHEDULER_INTERVAL_MS, 30_000),
  };
}

export const config = loadConfig();
