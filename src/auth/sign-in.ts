// Which user rows an e-mail and password open. A person in several workspaces has one user row
// per workspace (same e-mail). Each row has its own password: `user set-password` sets the same one
// on every row, and a one-time link of a workspace sets its own row's only, so a link's holder never
// chooses the password of another workspace's user (nor claims an address that workspace has yet to
// invite). A sign-in opens every row whose password it matches: one check per distinct password
// among the address's rows (rows share a hash when set together), at least one for any address.
import type { Db } from '../db/client.ts';
import { normalizeEmail } from './email.ts';
import { verifyPassword } from './passwords.ts';

/** The matching active user ids, ordered by workspace name (the first is the default choice). */
export async function matchCredentials(prisma: Db, email: string, password: string): Promise<string[]> {
  const users = await prisma.user.findMany({
    where: { email: normalizeEmail(email), active: true, workspace: { isSandbox: false } },
    select: { id: true, passwordHash: true },
    orderBy: [{ workspace: { name: 'asc' } }, { workspaceId: 'asc' }],
  });
  const hashes = [...new Set(users.flatMap((u) => (u.passwordHash ? [u.passwordHash] : [])))];
  if (hashes.length === 0) {
    // An address without a password costs the same check as a wrong password.
    await verifyPassword(null, password);
    return [];
  }
  const matched = new Set<string>();
  for (const hash of hashes) if (await verifyPassword(hash, password)) matched.add(hash);
  return users.filter((u) => u.passwordHash && matched.has(u.passwordHash)).map((u) => u.id);
}
