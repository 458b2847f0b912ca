// Live events over GraphQL subscriptions (graphql-ws).
// Run: CRM_KEY=crm_live_... npx tsx examples/subscribe.ts   (against http://127.0.0.1:3000)
import { fileURLToPath } from 'node:url';
import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export function connect(baseUrl: string, apiKey: string): Client {
  return createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${apiKey}` },
  });
}

export interface LiveEvent {
  id: string;
  event: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** Calls `onEvent` for each committed event of the given types; returns a function that stops. */
export function onEvents(client: Client, types: string[], onEvent: (e: LiveEvent) => void): () => void {
  return client.subscribe<{ events: LiveEvent }>(
    {
      query: 'subscription($types: [String!]) { events(types: $types) { id event timestamp data } }',
      variables: { types },
    },
    {
      next: (message) => message.data && onEvent(message.data.events),
      error: (err) => console.error('subscription failed', err),
      complete: () => {},
    },
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const key = process.env.CRM_KEY;
  if (!key) throw new Error('Set CRM_KEY to an API key');
  const client = connect(process.env.CRM_URL ?? 'http://127.0.0.1:3000', key);
  onEvents(client, ['contact.created', 'deal.stage_changed'], (e) => console.log(e.event, JSON.stringify(e.data)));
}
