/** Prisma's code for a unique constraint violation (P2002), however the error was wrapped. */
export function isUniqueViolation(err: unknown): boolean {
  return typeof err === 'object' && err !== null && 'code' in err && (err as { code: unknown }).code === 'P2002';
}
