// LISTEN on a PostgreSQL channel: a connection of its own (a pooled one would be handed to queries);
// the embedded database does not listen (pgliteListen).
// Notifications only hurry work that polling would find anyway: while the connection is down
// nothing is lost, and after it comes back the listener is called once for what it may have missed.
import type net from 'node:net';
import pg from 'pg';
import type { Logger } from 'pino';

/** What new events notify (the trigger of migration event_queue_notify). */
export const EVENTS_CHANNEL = 'crm_events';

/** Starts listening; the function it resolves to stops. */
export type Listen = (channel: string, onNotify: () => void, logger?: Logger) => Promise<() => Promise<void>>;

const RETRY_MIN_MS = 1_000;
const RETRY_MAX_MS = 30_000;
/** A server that takes the connection and never answers is given up on after this, then retried. */
const CONNECT_TIMEOUT_MS = 10_000;

/**
 * The embedded database does not listen: PGlite's LISTEN shares its one connection with every
 * query, and a crash-and-restart test (test/webhooks.crash.test.ts) stalled deliveries with it on
 * a busy machine. Its worker finds new events at each poll (WEBHOOK_WORKER_POLL_MS), as before.
 */
export function pgliteListen(): Listen {
  return async () => async () => {};
}

export function postgresListen(config: pg.ClientConfig): Listen {
  return async (channel, onNotify, logger) => {
    let stopped = false;
    let client: pg.Client | null = null;
    /** Whether `client` is connected and listening (else it is still connecting). */
    let ready = false;
    let retryMs = RETRY_MIN_MS;
    let timer: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      // keepAlive: a connection whose peer vanished without a word is noticed and opened again.
      const c = new pg.Client({ connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true, ...config });
      client = c;
      ready = false;
      const lost = (err?: Error) => {
        if (stopped || client !== c) return;
        client = null;
        void c.end().catch(() => {});
        logger?.warn({ channel, err: err?.message }, 'database notifications lost; listening again');
        timer = setTimeout(() => void connect(), retryMs).unref();
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      };
      c.on('error', lost);
      c.on('end', () => lost());
      c.on('notification', (n) => {
        if (n.channel === channel) onNotify();
      });
      try {
        await c.connect();
        await c.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
        if (client !== c) return;
        ready = true;
        retryMs = RETRY_MIN_MS;
        onNotify();
      } catch (err) {
        lost(err as Error);
      }
    };
    // Not awaited: a database that never answers must not hold up the caller (nor its stop, which
    // it only gets from this), and the first LISTEN calls onNotify once it is in place anyway.
    void connect();
    return async () => {
      stopped = true;
      clearTimeout(timer);
      const c = client as pg.Client | null;
      if (!c) return;
      // A connection still being made is cut: end() would wait for a server that may never answer.
      if (!ready) return void (c as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
      // A peer that vanished never answers the goodbye either: a second at most, then cut.
      let wait: NodeJS.Timeout | undefined;
      await Promise.race([c.end().catch(() => {}), new Promise((r) => (wait = setTimeout(r, 1_000)))]);
      clearTimeout(wait);
      (c as unknown as { connection: { stream: net.Socket } }).connection.stream.destroy();
    };
  };
}
