// Bounds of GraphQL over WebSocket: what one socket, one address and one key may hold, so that no
// connection or message can take the process's memory.

/**
 * Largest message, checked by `ws` from the frame header before the
 * message is buffered: the same 1 MiB as HTTP bodies. Over it: close 1009.
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;
/**
 * Largest message before the socket is accepted: a `connection_init` carries a key or a CSRF token,
 * so nobody unauthenticated gets a megabyte parsed. Over it: close 1009, unparsed.
 */
export const MAX_UNAUTHENTICATED_MESSAGE_BYTES = 64 * 1024;
/** Time from the upgrade to a `connection_init` (graphql-ws closes with 4408 after it). */
export const AUTH_DEADLINE_MS = 3_000;
/** Sockets an address may have open that have not authenticated yet; more are refused at the upgrade with 429. */
export const MAX_UNAUTHENTICATED_PER_ADDRESS = 20;
/** Authenticated sockets per key, or per dashboard session, on one instance; more are closed with 4429. */
export const MAX_SOCKETS_PER_CREDENTIAL = 20;
/**
 * Operations in flight on one socket (subscriptions and queries not yet answered); more are answered `rate_limited`.
 */
export const MAX_OPERATIONS_PER_SOCKET = 50;
/**
 * Messages (graphql-ws messages and WebSocket pings) a socket may send:
 * a burst of this many, then MESSAGES_PER_SECOND. Past it: close 4429.
 */
export const MESSAGE_BURST = 200;
export const MESSAGES_PER_SECOND = 50;
/**
 * Bytes the server may hold for a socket that does not read what it is sent. Sends (and answers to
 * pings) beyond it close the socket with 1008: a slow or stalled reader cannot make the server buffer without end.
 */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** A socket is pinged this often and cut when it has not answered by the next ping. */
export const KEEPALIVE_MS = 12_000;
/** How long a closed socket's peer gets to finish the close handshake before the connection is cut. */
export const CLOSE_GRACE_MS = 1_000;

/** A token bucket of messages for one socket. */
export class MessageBudget {
  private tokens = MESSAGE_BURST;
  private last = Date.now();

  take(): boolean {
    const now = Date.now();
    this.tokens = Math.min(MESSAGE_BURST, this.tokens + ((now - this.last) / 1000) * MESSAGES_PER_SECOND);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
