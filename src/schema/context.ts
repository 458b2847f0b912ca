import type { Caller } from '../auth/authenticate.ts';
import type { Db } from '../db/client.ts';
import type { Actor } from '../webhooks/events.ts';

/** Everything a resolver may use. Built per request by REST and /graphql alike. */
export interface Context {
  prisma: Db;
  caller: Caller;
  requestId: string;
  /** Non-fatal notes for the client (REST `meta.warnings`, GraphQL `extensions.warnings`). */
  warnings: string[];
}

export function actorOf(ctx: Context): Actor {
  return { type: 'api_key', id: ctx.caller.keyId, name: ctx.caller.keyName };
}
