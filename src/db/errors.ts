/** The database's own error under a Prisma error, when a driver adapter raised it. */
interface DriverCause {
  originalCode?: unknown;
  kind?: unknown;
  constraint?: { fields?: unknown; index?: unknown };
}

function driverCause(err: unknown): DriverCause | undefined {
  return (err as { meta?: { driverAdapterError?: { cause?: DriverCause } } } | null)?.meta?.driverAdapterError?.cause;
}

/** The SQLSTATE of an error: under a Prisma error, or of the driver's own (a statement of db/sql.ts). */
function sqlState(err: unknown): string | undefined {
  const under = driverCause(err)?.originalCode;
  if (typeof under === 'string') return under;
  const own = (err as { code?: unknown }).code;
  return typeof own === 'string' && /^[0-9A-Z]{5}$/.test(own) ? own : undefined;
}

/**
 * A unique constraint violation: Prisma's P2002 from a model query, or SQLSTATE 23505 under the
 * P2010 of a raw statement (the single-statement writes) or from the driver itself.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'P2002') return true;
  return sqlState(err) === '23505';
}

/**
 * What names the unique key a unique violation is about: its columns (`['workspace_id', 'external_id']`)
 * where the driver gives them (PGlite), else its index name (`['contacts_workspace_id_external_id_key']`,
 * PostgreSQL); empty when it names neither.
 */
export function uniqueColumns(err: unknown): string[] {
  const constraint = driverCause(err)?.constraint;
  if (Array.isArray(constraint?.fields)) return constraint.fields.filter((f): f is string => typeof f === 'string');
  return typeof constraint?.index === 'string' ? [constraint.index] : [];
}

/**
 * A foreign key refused the write: a row it refers to is gone, or a row still refers to the one
 * being deleted. Prisma's P2003, or SQLSTATE 23503 under a raw statement's error.
 */
export function isForeignKeyViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'P2003') return true;
  return sqlState(err) === '23503';
}

/** A model write named a row by its key that does not exist (any more): Prisma's P2025. */
export function isRecordNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'P2025';
}

/**
 * A value the database cannot store or compare (SQLSTATE class 22, data exception), such as text
 * holding a NUL character: the request's fault, however far it got before the database said so.
 */
export function isInvalidValue(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  return sqlState(err)?.startsWith('22') ?? false;
}

/** PostgreSQL ended the transaction to break a deadlock (SQLSTATE 40P01): running it again may succeed. */
export function isDeadlock(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  return sqlState(err) === '40P01';
}
