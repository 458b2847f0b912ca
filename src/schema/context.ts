import type { Caller } from '../auth/authenticate.ts';
import type { CredentialChanges } from '../auth/credential-notices.ts';
import type { Db } from '../db/client.ts';
import type { SqlClient } from '../db/sql.ts';
import type { Actor } from '../events/outbox.ts';
import type { EventBus } from '../events/bus.ts';
import type { WebhookServices } from '../webhooks/services.ts';
import type { LinkTimes } from '../auth/password-links.ts';
import type { TeamMailer } from '../auth/team-mail.ts';

/** What the Team mutations need: how long password links work, where they point, how they are e-mailed. */
export interface TeamServices {
  linkTimes: LinkTimes;
  mail: TeamMailer;
  /** The origin links are built on (PUBLIC_URL, else the request's own): null over WebSocket without PUBLIC_URL. */
  linkOrigin: string | null;
}

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
  /** Tells every instance that keys or a workspace's settings changed (auth/credential-notices.ts). */
  credentials: CredentialChanges;
  /** The Team page's services (app.ts sets them; contexts built outside a request may leave them out). */
  team?: TeamServices;
}

export function actorOf(ctx: Context): Actor {
  const { user, keyId, keyName } = ctx.caller;
  if (user) return { type: 'user', id: user.id, name: user.name };
  return { type: 'api_key', id: keyId!, name: keyName! };
}
