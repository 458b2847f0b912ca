/** Prisma's code for a unique constraint violation (P2002), however the error was wrapped. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && (err as { code: unknown }).code === 'P2002';
}

/**
 * A value the database cannot store or compare (SQLSTATE class 22, data exception), such as text
 * holding a NUL character: the request's fault, however far it got before the database said so.
 */
export function isInvalidValue(err: unknown): boolean {
  const cause = (err as { meta?: { driverAdapterError?: { cause?: { originalCode?: unknown } } } } | null)?.meta?.driverAdapterError?.cause;
  return typeof cause?.originalCode === 'string' && cause.originalCode.startsWith('22');
}
