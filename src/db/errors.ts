/** The database's own error under a Prisma error, when a driver adapter raised it. */
function driverCause(err: unknown): { originalCode?: unknown; kind?: unknown } | undefined {
  return (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown; kind?: unknown } } } } | null)?.meta?.driverAdapterError?.cause;
}

/**
 * A unique constraint violation: Prisma's P2002 from a model query, or SQLSTATE 23505 under the
 * P2010 of a raw statement (the single-statement writes), however the error was wrapped.
 */
export function isUniqueViolation(err: unknown): boolean {
  if (typeof err !== 'object' || err === null) return false;
  if ((err as { code?: unknown }).code === 'P2002') return true;
  return driverCause(err)?.originalCode === '23505';
}

/**
 * A value the database cannot store or compare (SQLSTATE class 22, data exception), such as text
 * holding a NUL character: the request's fault, however far it got before the database said so.
 */
export function isInvalidValue(err: unknown): boolean {
  const cause = driverCause(err);
  return typeof cause?.originalCode === 'string' && cause.originalCode.startsWith('22');
}
