// Options of the service's HTTP(S) servers that bound what one connection can hold: a client
// that connects and sends nothing, or sends its headers or its body slowly (slow loris), is cut
// off, so connections cannot be held open for free. Header size: Node's default, 16 KiB for the
// request line and headers together (431 past it); bodies: src/http/body.ts.
import type { Server } from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';

/** Config's HTTP_HEADERS_TIMEOUT_MS and HTTP_REQUEST_TIMEOUT_MS. */
interface Limits {
  httpHeadersTimeoutMs: number;
  httpRequestTimeoutMs: number;
}

/**
 * `bodiesTimedByApp`: the app bounds each body itself (src/http/body-deadline.ts), so that an
 * upload is timed by silence rather than length; other servers leave it to Node.
 */
export function serverOptions(config: Limits, { bodiesTimedByApp = false } = {}) {
  return {
    // From the first byte of a request to the end of its headers.
    headersTimeout: config.httpHeadersTimeoutMs,
    // To the end of its body; at least headersTimeout, as Node requires (0: the app times it).
    requestTimeout: bodiesTimedByApp ? 0 : Math.max(config.httpRequestTimeoutMs, config.httpHeadersTimeoutMs),
    // How often Node looks for requests past these timeouts (its default, 30 s, would let them run that much longer).
    connectionsCheckingInterval: 1_000,
    // HTTPS: the TLS handshake too.
    handshakeTimeout: config.httpHeadersTimeoutMs,
  };
}

/**
 * Node's headersTimeout counts from a request's first byte: a connection that sends none stays
 * open for ever. It gets as long as headers would, then is closed; a request that arrives lifts
 * this (the request and keep-alive timeouts take over; WebSockets clear it themselves).
 */
export function closingSilentConnections<S extends Server>(server: S, config: Limits): S {
  const opened = server instanceof https.Server ? 'secureConnection' : 'connection';
  server.on(opened, (socket: Socket) => socket.setTimeout(config.httpHeadersTimeoutMs));
  server.on('request', (req) => req.socket.setTimeout(0));
  return server;
}
