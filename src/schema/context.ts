import type { Authenticator, Caller } from '../auth/authenticate.ts';
import type { Db } from '../db/client.ts';
import type { SqlClient } from '../db/sql.ts';
import type { Actor } from '../events/outbox.ts';
import type { EventBus } from '../events/bus.ts';
import type { WebhookServices } from '../webhooks/services.ts';

/** Everything a resolver may use. Built per request by REST and /graphql, per operation over WebSocket. */
export interface Context {
  prisma: Db;
  /** Plain SQL on the same database, for statements with very large parameters (batches). */
  sql: SqlClient;
  caller: Caller;
  requestId: string;
  /** Non-fatal notes for the client (REST `meta.warnings`, GraphQL `extensions.warnings`). */
  warnings: string[];
  /** Live committed events, for GraphQL subscriptions. */
  bus: EventBus;
  /** Sending, signing and URL rules for webhook test sends and subscription checks. */
  webhooks: WebhookServices;
  /** This instance's cache of verified API keys: a revocation drops its entry. */
  keyCache: Pick<Authenticator, 'forget' | 'forgetWorkspace'>;
}

export function actorOf(ctx: Context): Actor {
  const { user, keyId, keyName } = ctx.caller;
  if (user) return { type: 'user', id: user.id, name: user.name };
  return { type: 'api_key', id: keyId!, name: keyName! };
}
