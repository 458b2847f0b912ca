// Which user rows an e-mail and password open. A person in several workspaces has one user row
// per workspace (same e-mail) and one password for all of them (`user set-password` sets every
// row), so a sign-in checks the password once, however many rows the address has.
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
  // Rows set before passwords were one per person may hold another hash: only the rows sharing
  // the first one's are opened, until the password is set again.
  const hash = users.find((u) => u.passwordHash)?.passwordHash ?? null;
  if (!(await verifyPassword(hash, password))) return [];
  return users.filter((u) => u.passwordHash === hash).map((u) => u.id);
}
