// GraphQL subscriptions over graphql-ws. The socket is authenticated by the session cookie of the
// upgrade request plus the CSRF token in connectionParams, so another site cannot open one.
import { createClient, type Client } from 'graphql-ws/client';
import { currentCsrfToken, sessionEnded } from './session.ts';

let client: Client | null = null;
let connected = false;
const connectionListeners = new Set<(up: boolean) => void>();

function liveClient(): Client {
  if (client) return client;
  // graphql-ws retries dropped connections with back-off, but not refusals such as 4401.
  client = createClient({
    url: `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/graphql`,
    connectionParams: () => ({ csrf_token: currentCsrfToken() }),
    lazy: true,
    retryAttempts: 20,
  });
  const announce = (up: boolean) => {
    connected = up;
    for (const listener of connectionListeners) listener(up);
  };
  client.on('connected', () => announce(true));
  client.on('closed', (event) => {
    announce(false);
    // The session ended (signed out elsewhere, expired, the user deactivated): back to sign-in at once.
    if ((event as CloseEvent | undefined)?.code === 4401) sessionEnded();
  });
  return client;
}

export interface LiveHandlers<T> {
  onData(data: T): void;
  onError?(message: string): void;
  /** Whether the socket is up; called at once when it already is. */
  onConnection?(up: boolean): void;
}

/** Runs `onData` for every event until the returned function is called. */
export function subscribe<T>(query: string, variables: Record<string, unknown>, handlers: LiveHandlers<T>): () => void {
  const { onConnection } = handlers;
  if (onConnection) connectionListeners.add(onConnection);
  const stop = liveClient().subscribe<T>(
    { query, variables },
    {
      next: (result) => {
        if (result.errors?.length) handlers.onError?.(result.errors[0].message);
        else if (result.data) handlers.onData(result.data as T);
      },
      error: (err) => handlers.onError?.(err instanceof Error ? err.message : 'the live connection was refused'),
      complete: () => {},
    },
  );
  if (connected) onConnection?.(true);
  return () => {
    if (onConnection) connectionListeners.delete(onConnection);
    stop();
  };
}

/** Closes the socket: the next subscription connects again with the current session. */
export function resetLive(): void {
  void client?.dispose();
  client = null;
  connected = false;
}
