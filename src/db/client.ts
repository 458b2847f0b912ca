// Opens the database: PGlite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient, type Prisma } from './generated/client/client.ts';
import { StartupError } from '../startup-error.ts';
import { prepareDataDir } from './data-dir.ts';
import { DatabaseBusyError, lockDirectory } from './dir-lock.ts';
import { pgliteSql, pgSql, type SqlClient } from './sql.ts';
import { pgliteListen, postgresListen, type Listen } from './notifications.ts';

export { DatabaseBusyError };

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  /** What migrations connect with (applyMigrations). */
  adapter: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
  /** The embedded database itself, when that is what is open. */
  pglite?: PGlite;
  /** The embedded database's directory (DATA_DIR), when it is on disk. */
  dataDir?: string;
  /** Plain SQL on the same database and connections, for statements with very large parameters (sql.ts). */
  sql: SqlClient;
  /** LISTEN on a channel (notifications.ts). */
  listen: Listen;
  close(): Promise<void>;
}

export interface OpenOptions {
  databaseUrl?: string | null;
  /** Directory for the embedded database; null or undefined with no URL means in memory. */
  dataDir?: string | null;
  /** PostgreSQL schema to use instead of public (tests use one per run). */
  schema?: string;
  poolSize?: number;
  /** In memory only: start from this dump (PGlite `dumpDataDir`) instead of an empty database. */
  fromDump?: Blob;
  /** Called with every SQL statement the client sends; tests count them to catch N+1 queries. */
  onQuery?: (event: Prisma.QueryEvent) => void;
  /** PostgreSQL: connect once before anything else (a start); an instance already serving rides out outages instead. */
  probe?: boolean;
}

/** How long a start waits for PostgreSQL to accept a connection. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * One connection before anything else: a wrong or unreachable DATABASE_URL ends the start with one line, never a hang.
 */
async function checkPostgres(url: string): Promise<void> {
  let where: string;
  try {
    const parsed = new URL(url);
    if (!/^postgres(ql)?:$/.test(parsed.protocol)) throw new Error('not postgres');
    where = `${parsed.hostname || 'localhost'}:${parsed.port || 5432}${parsed.pathname}`;
  } catch {
    throw new StartupError('DATABASE_URL is not a postgresql:// URL');
  }
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
  } catch (err) {
    throw new StartupError(
      `Cannot use PostgreSQL at ${where} (DATABASE_URL): ` +
        `${(err as Error).message || (err as NodeJS.ErrnoException).code}`,
      { cause: err },
    );
  } finally {
    await client.end().catch(() => {});
  }
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    if (opts.probe) await checkPostgres(opts.databaseUrl);
    const options = opts.schema ? `-c search_path=${opts.schema}` : undefined;
    // A connection PostgreSQL ends (restart, admin shutdown) can report it more than once; pg
    // throws an 'error' event nobody listens to at that moment, which would end the process.
    // Every connection gets a listener for its whole life; the pool drops and replaces it.
    const config = {
      connectionString: opts.databaseUrl,
      max: opts.poolSize ?? 10,
      options,
      onConnect: (client: pg.ClientBase) => void client.on('error', () => {}),
    };
    const pool = new pg.Pool(config);
    // An idle connection's error is the pool's to handle (it drops the connection), also before
    // Prisma first connects and adds its own listener.
    pool.on('error', () => {});
    const schemaOption = opts.schema ? { schema: opts.schema } : undefined;
    const prisma = createClient(new PrismaPg(pool, schemaOption), opts.onQuery);
    // Migrations get connections of their own, closed when they finish: the schema engine takes a
    // session advisory lock, which on a connection returned to the shared pool would outlive them
    // and hold every other instance's migrations back.
    const adapter = new PrismaPg(config, schemaOption);
    let closing: Promise<void> | undefined;
    const close = () =>
      (closing ??= (async () => {
        await prisma.$disconnect();
        await pool.end();
      })());
    const listen = postgresListen({ connectionString: opts.databaseUrl, options });
    return { prisma, adapter, kind: 'postgres', sql: pgSql(pool), listen, close };
  }
  const { pglite, release } = await openPglite(opts.dataDir ?? null, opts.fromDump);
  const adapter = new PrismaPGlite(pglite);
  const prisma = createClient(adapter, opts.onQuery);
  return {
    prisma,
    adapter,
    kind: 'pglite',
    pglite,
    ...(opts.dataDir ? { dataDir: opts.dataDir } : {}),
    sql: pgliteSql(pglite),
    listen: pgliteListen(),
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
      await release();
    },
  };
}

function createClient(adapter: PrismaPg | PrismaPGlite, onQuery: OpenOptions['onQuery']): PrismaClient {
  if (!onQuery) return new PrismaClient({ adapter });
  const prisma = new PrismaClient({ adapter, log: [{ emit: 'event', level: 'query' }] });
  prisma.$on('query', onQuery);
  return prisma;
}

async function openPglite(
  dir: string | null,
  fromDump?: Blob,
): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  if (!dir) return { pglite: await PGlite.create(fromDump ? { loadDataDir: fromDump } : {}), release: async () => {} };
  const dbDir = path.join(dir, 'pglite');
  prepareDataDir(dir, dbDir);
  const unlock = lockDirectory(dbDir, dir);
  try {
    return { pglite: await PGlite.create(dbDir), release: async () => unlock() };
  } catch (err) {
    unlock();
    const reason = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new StartupError(
      `The embedded database in ${dir} cannot be opened (${reason}): ` +
        'restore the directory from a backup, or move it away to start empty',
      { cause: err },
    );
  }
}
