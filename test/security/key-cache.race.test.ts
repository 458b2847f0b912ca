// A key revoked while a request of it is being authenticated: the lookup that read the key before
// the revocation must not put it back in the cache after the revocation's notice dropped it, or the
// revoked key keeps working on that instance for the cache's whole period.
import { describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/auth/authenticate.ts';
import type { Db } from '../../src/db/client.ts';
import { generateApiKey, hashApiKey } from '../../src/auth/keys.ts';

describe('key cache: a revocation notice racing a lookup', () => {
  it('a lookup that began before the notice does not cache the key past it', async () => {
    const key = generateApiKey(false);
    let revoked = false;
    let release!: () => void;
    const slow = new Promise<void>((r) => (release = r));
    let lookups = 0;
    const prisma = {
      apiKey: {
        findUnique: async () => {
          lookups++;
          // The first lookup reads the row before the revocation and answers after it.
          const row = {
            id: 'key_1',
            name: 'k',
            hash: hashApiKey(key),
            scope: 'full',
            permissions: [],
            workspaceId: 'ws_1',
            sandbox: false,
            userId: null,
            expiresAt: null,
            revokedAt: revoked ? new Date() : null,
            workspace: { id: 'ws_1', plan: 'standard', currency: 'USD', linkContactsByDomain: false, sandbox: null },
          };
          if (lookups === 1) await slow;
          return row;
        },
        update: async () => ({}),
      },
    } as unknown as Db;
    const auth = new Authenticator(prisma, 600_000);
    const first = auth.authenticate(`Bearer ${key}`);
    await new Promise((r) => setTimeout(r, 10));
    // The revocation commits and its notice arrives while the first lookup is still under way.
    revoked = true;
    auth.forget(hashApiKey(key));
    release();
    await first;
    await expect(auth.authenticate(`Bearer ${key}`)).rejects.toMatchObject({ code: 'unauthorized' });
  });
});
