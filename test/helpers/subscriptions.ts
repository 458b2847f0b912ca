// GraphQL subscription clients for tests, over WebSocket (graphql-ws) and over SSE (graphql-sse,
// the protocol yoga serves on /graphql): collect what a subscription receives and wait for it.
import { createClient as createSseClient } from 'graphql-sse';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { EventBus, PublishedEvent } from '../../src/events/bus.ts';

export interface TestSubscription {
  /** `data` of every result received, in order. */
  received: any[];
  /** GraphQL errors, or the CloseEvent that ended the socket (SSE: the error that ended the stream). */
  errors: any[];
  /** Resolves when the subscription ends (complete or error). */
  ended: Promise<void>;
  /** Waits until a received result matches. */
  waitFor(match: (data: any) => boolean, timeoutMs?: number): Promise<any>;
  /**
   * Publishes `probe` on the bus until this subscription receives it, then forgets it: after
   * this the server-side subscription is certainly listening. `probe` must pass its filters.
   */
  ready(bus: EventBus, probe: Omit<PublishedEvent, 'id' | 'timestamp'>): Promise<void>;
  close(): Promise<void>;
}

/** A contact.created event of a workspace for `ready`: it passes the filters of contact subscriptions. */
export const contactProbe = (workspaceId: string): Omit<PublishedEvent, 'id' | 'timestamp'> => ({
  event: 'contact.created',
  workspaceId,
  entityType: 'contact',
  entityId: 'probe',
  sequence: 1,
  data: {},
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * `connectionParams` carries the key: `{ authorization: 'Bearer <key>' }`; `headers` go with the
 * upgrade request (a dashboard session's cookie).
 */
export function subscribe(
  base: string,
  connectionParams: Record<string, unknown>,
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = {},
): TestSubscription {
  class WebSocketWithHeaders extends WebSocket {
    constructor(url: string, protocols?: string | string[]) {
      super(url, protocols, { headers });
    }
  }
  const client = createClient({
    url: `${base.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocketWithHeaders,
    connectionParams,
    retryAttempts: 0,
  });
  return track(client, query, variables);
}

/** The same over SSE: `headers` carry the key (`authorization`) or a dashboard session (cookie and X-CSRF-Token). */
export function subscribeSse(
  base: string,
  headers: Record<string, string>,
  query: string,
  variables?: Record<string, unknown>,
): TestSubscription {
  return track(createSseClient({ url: `${base}/graphql`, headers, retryAttempts: 0 }), query, variables);
}

interface AnyClient {
  subscribe(
    payload: { query: string; variables?: Record<string, unknown> },
    sink: { next(r: any): void; error(e: unknown): void; complete(): void },
  ): () => void;
  dispose(): void | Promise<void>;
}

function track(client: AnyClient, query: string, variables?: Record<string, unknown>): TestSubscription {
  const received: any[] = [];
  const errors: any[] = [];
  // Probes (see ready) are kept out of `received`, however late a copy arrives.
  const probes = new Set<string>();
  const probeArrived = new Set<string>();
  const probeId = (data: any): string | undefined =>
    Object.values(data ?? {})
      .map((v: any) => v?.id)
      .find((id) => probes.has(id));
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  const unsubscribe = client.subscribe(
    { query, variables },
    {
      next: (result) => {
        const probe = probeId(result.data);
        if (probe) probeArrived.add(probe);
        else if (result.errors) errors.push(...result.errors);
        else received.push(result.data);
      },
      error: (err) => {
        // An array of GraphQL errors for a refused operation, else the socket's CloseEvent.
        if (Array.isArray(err)) errors.push(...err);
        else errors.push(err);
        end();
      },
      complete: end,
    },
  );

  async function waitFor(match: (data: any) => boolean, timeoutMs = 5_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = received.find(match);
      if (found) return found;
      if (errors.length) throw new Error(`subscription failed: ${JSON.stringify(errors)}`);
      if (Date.now() > until)
        throw new Error(`nothing matching arrived in ${timeoutMs} ms; received ${JSON.stringify(received)}`);
      await sleep(10);
    }
  }

  return {
    received,
    errors,
    ended,
    waitFor,
    async ready(bus, probe) {
      const id = `evt_probe_${Math.random().toString(36).slice(2)}`;
      probes.add(id);
      const publishing = setInterval(() => bus.publish({ ...probe, id, timestamp: new Date().toISOString() }), 25);
      try {
        for (const until = Date.now() + 5_000; !probeArrived.has(id); await sleep(10)) {
          if (errors.length) throw new Error(`subscription failed: ${JSON.stringify(errors)}`);
          if (Date.now() > until) throw new Error('the subscription never started listening');
        }
      } finally {
        clearInterval(publishing);
      }
    },
    async close() {
      unsubscribe();
      await client.dispose();
    },
  };
}
