// Opens the database: PGlite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import lockfile from 'proper-lockfile';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient, type Prisma } from './generated/client/client.ts';

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  adapter: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
  /** The embedded database itself, when that is what is open. */
  pglite?: PGlite;
  close(): Promise<void>;
}

export class DatabaseBusyError extends Error {
  constructor(dir: string) {
    super(`The embedded database in ${dir} is in use: the server is running. Stop it, or use PostgreSQL (DATABASE_URL).`);
    this.name = 'DatabaseBusyError';
  }
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
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const options = opts.schema ? `-c search_path=${opts.schema}` : undefined;
    const adapter = new PrismaPg(
      // A connection PostgreSQL ends (restart, admin shutdown) can report it more than once; pg
      // throws an 'error' event nobody listens to at that moment, which would end the process.
      // Every connection gets a listener for its whole life; the pool drops and replaces it.
      { connectionString: opts.databaseUrl, max: opts.poolSize ?? 10, options, onConnect: (client) => void client.on('error', () => {}) },
      opts.schema ? { schema: opts.schema } : undefined,
    );
    const prisma = createClient(adapter, opts.onQuery);
    return { prisma, adapter, kind: 'postgres', close: () => prisma.$disconnect() };
  }
  const { pglite, release } = await openPglite(opts.dataDir ?? null, opts.fromDump);
  const adapter = new PrismaPGlite(pglite);
  const prisma = createClient(adapter, opts.onQuery);
  return {
    prisma,
    adapter,
    kind: 'pglite',
    pglite,
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

/**
 * PGlite is single-process and does not itself stop a second process from opening the same
 * files, which would corrupt them: a lock file guards the directory. A lock left by a crashed
 * process goes stale and is taken over after STALE_MS.
 */
const STALE_MS = 10_000;

async function openPglite(dir: string | null, fromDump?: Blob): Promise<{ pglite: PGlite; release: () => Promise<void> }> {
  if (!dir) return { pglite: await PGlite.create(fromDump ? { loadDataDir: fromDump } : {}), release: async () => {} };
  const dbDir = path.join(dir, 'pglite');
  fs.mkdirSync(dbDir, { recursive: true });
  let release: () => Promise<void>;
  try {
    release = await lockfile.lock(dbDir, { stale: STALE_MS, update: STALE_MS / 2, realpath: false });
  } catch (err) {
    if ((err as { code?: string }).code === 'ELOCKED') throw new DatabaseBusyError(dir);
    throw err;
  }
  try {
    return { pglite: await PGlite.create(dbDir), release };
  } catch (err) {
    await release();
    throw err;
  }
}
