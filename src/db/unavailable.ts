// Failures meaning "the database cannot be reached right now" (down, restarting, connections
// cut), as opposed to a fault in the request or the code: the API answers them with 503 and
// Retry-After so clients retry, and the pool reconnects by itself once the server is back.

/** Prisma: can't reach the server, timed out reaching it, server closed the connection, no pool connection in time. */
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1017', 'P2024']);
/** Driver adapter error kinds for the same situations. */
const ADAPTER_KINDS = new Set(['DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout', 'TooManyConnections']);
/** SQLSTATE: connection exceptions (class 08), admin/crash shutdown, starting up, too many connections. */
const SQLSTATE = /^(08...|57P01|57P02|57P03|53300)$/;
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT']);
/** Prisma's P2028 covers several transaction failures; this one is waiting for a pool connection in vain. */
const NO_CONNECTION_FOR_TRANSACTION = /Unable to start a transaction in the given time/;
/** node-postgres reports a dropped connection, and a client that lost one, by message only. */
const DROPPED = /^Connection terminated|^Client has encountered a connection error/;

interface ErrorLike {
  code?: unknown;
  kind?: unknown;
  originalCode?: unknown;
  message?: unknown;
  cause?: unknown;
  originalError?: unknown;
  meta?: { driverAdapterError?: { cause?: unknown } };
}

export function isDatabaseUnavailable(err: unknown, depth = 0): boolean {
  if (!err || typeof err !== 'object' || depth > 5) return false;
  const e = err as ErrorLike;
  const code = typeof e.code === 'string' ? e.code : '';
  const original = typeof e.originalCode === 'string' ? e.originalCode : '';
  if (PRISMA_CODES.has(code) || SOCKET_CODES.has(code) || SQLSTATE.test(code) || SQLSTATE.test(original)) return true;
  if (typeof e.kind === 'string' && ADAPTER_KINDS.has(e.kind)) return true;
  if (
    typeof e.message === 'string' &&
    (DROPPED.test(e.message) || (code === 'P2028' && NO_CONNECTION_FOR_TRANSACTION.test(e.message)))
  )
    return true;
  return [e.meta?.driverAdapterError?.cause, e.cause, e.originalError].some((inner) =>
    isDatabaseUnavailable(inner, depth + 1),
  );
}
