// Where a write came from, for the audit log: the surface (REST, GraphQL, the dashboard, the admin
// CLI or the service itself), the request id and the client's address. Held for the length of a
// request or operation in async-local storage, so every write the request makes is recorded with
// it (outbox.ts, audit.ts) without each resolver passing it down.
import { AsyncLocalStorage } from 'node:async_hooks';

export const VIAS = ['rest', 'graphql', 'dashboard', 'cli', 'system'] as const;
export type Via = (typeof VIAS)[number];

export interface RequestOrigin {
  via: Via;
  requestId: string | null;
  ip: string | null;
}

const storage = new AsyncLocalStorage<RequestOrigin>();

/** Runs `work` with `origin` as the origin of every write it makes. */
export function withOrigin<T>(origin: RequestOrigin, work: () => T): T {
  return storage.run(origin, work);
}

/** The origin of the write under way: the service's own work (a scheduler, a job) outside any request. */
export function currentOrigin(): RequestOrigin {
  return storage.getStore() ?? { via: 'system', requestId: null, ip: null };
}
