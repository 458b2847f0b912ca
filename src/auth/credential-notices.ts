// Credentials that end or change reach every instance at once. The instance that made the change
// drops what it cached and announces it on the event bus; each instance (this one too) then drops
// the key identities it cached and re-checks its open sockets and streams. A notice that is lost
// (Redis down) costs promptness only: the key cache's expiry and the watch's interval still bound
// how long an ended credential works (authenticate.ts, credential-watch.ts).
import { MAX_NOTICE_KEYS, type EventBus } from '../events/bus.ts';
import type { Authenticator } from './authenticate.ts';
import type { CredentialWatch } from './credential-watch.ts';

/** What resolvers call once a change to keys, users or a workspace's settings has committed. */
export interface CredentialChanges {
  /** API keys revoked or changed, by hash. */
  keysChanged(hashes: string[]): void;
  /** A workspace whose settings its keys' identities carry, or whose users' sessions ended. */
  workspaceChanged(workspaceId: string): void;
}

type KeyCache = Pick<Authenticator, 'forget' | 'forgetWorkspace'>;

/** Changes applied to `cache` at once, so this instance's next request sees them, and announced on `bus`. */
export function announcedChanges(bus: EventBus, cache: KeyCache | null): CredentialChanges {
  return {
    keysChanged: (hashes) => {
      for (const hash of hashes) cache?.forget(hash);
      for (let i = 0; i < hashes.length; i += MAX_NOTICE_KEYS)
        bus.announce({ keyHashes: hashes.slice(i, i + MAX_NOTICE_KEYS) });
    },
    workspaceChanged: (workspaceId) => {
      cache?.forgetWorkspace(workspaceId);
      bus.announce({ workspaceId });
    },
  };
}

/** Applies every notice on `bus` to this instance's key cache and open connections; returns the unsubscribe. */
export function followNotices(bus: EventBus, cache: KeyCache, watch: Pick<CredentialWatch, 'check'>): () => void {
  return bus.onNotice((notice) => {
    for (const hash of notice.keyHashes ?? []) cache.forget(hash);
    if (notice.workspaceId) cache.forgetWorkspace(notice.workspaceId);
    void watch.check();
  });
}
