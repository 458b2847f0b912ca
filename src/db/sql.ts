// Plain SQL on the database's own driver (node-postgres, or PGlite), for the few statements that
// carry megabytes: a batch's rows and events travel as one JSON parameter each. Prisma turns every
// raw parameter into JSON and back again before the driver sees it, and walks every result row;
// for a 1,000-row batch that was a tenth of the request's CPU. Everything else goes through Prisma.
// The same connections serve both: Prisma's PostgreSQL adapter is built on this pool.
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';

/** One statement with `$1`-style parameters; its rows (empty for a write). */
export type SqlQuery = <R = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<R[]>;

export interface SqlClient {
  query: SqlQuery;
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (query: SqlQuery) => Promise<T>): Promise<T>;
}

export function pgSql(pool: pg.Pool): SqlClient {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await pool.query(text, params)).rows as R[],
    async transaction(fn) {
      const client = await pool.connect();
      let broken: unknown;
      try {
        await client.query('BEGIN');
        const result = await fn(async <R>(text: string, params?: unknown[]) => {
          return (await client.query(text, params)).rows as R[];
        });
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((rollbackErr: unknown) => (broken = rollbackErr));
        throw err;
      } finally {
        // A connection that could not even roll back is closed instead of going back to the pool.
        client.release(broken instanceof Error ? broken : undefined);
      }
    },
  };
}

export function pgliteSql(pglite: PGlite): SqlClient {
  return {
    query: async <R>(text: string, params?: unknown[]) => (await pglite.query<R>(text, params)).rows,
    transaction: (fn) =>
      pglite.transaction((tx) =>
        fn(async <R>(text: string, params?: unknown[]) => (await tx.query<R>(text, params)).rows),
      ),
  };
}
