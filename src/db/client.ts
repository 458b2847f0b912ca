// Opens the database: PGlite under DATA_DIR by default, PostgreSQL when DATABASE_URL is set.
import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { PrismaClient } from './generated/client/client.ts';

export type Db = PrismaClient;

export interface Database {
  prisma: PrismaClient;
  adapter: SqlMigrationAwareDriverAdapterFactory;
  kind: 'pglite' | 'postgres';
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
}

export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (opts.databaseUrl) {
    const options = opts.schema ? `-c search_path=${opts.schema}` : undefined;
    const adapter = new PrismaPg(
      { connectionString: opts.databaseUrl, max: opts.poolSize ?? 10, options },
      opts.schema ? { schema: opts.schema } : undefined,
    );
    const prisma = new PrismaClient({ adapter });
    return { prisma, adapter, kind: 'postgres', close: () => prisma.$disconnect() };
  }
  const pglite = await openPglite(opts.dataDir ?? null);
  const adapter = new PrismaPGlite(pglite);
  const prisma = new PrismaClient({ adapter });
  return {
    prisma,
    adapter,
    kind: 'pglite',
    close: async () => {
      await prisma.$disconnect();
      await pglite.close();
    },
  };
}

async function openPglite(dir: string | null): Promise<PGlite> {
  if (!dir) return PGlite.create();
  const dbDir = path.join(dir, 'pglite');
  fs.mkdirSync(dbDir, { recursive: true });
  try {
    return await PGlite.create(dbDir);
  } catch (err) {
    // A second process opening the same directory fails with a bare ErrnoError (errno 20).
    if (err && typeof err === 'object' && 'errno' in err) throw new DatabaseBusyError(dir);
    throw err;
  }
}
