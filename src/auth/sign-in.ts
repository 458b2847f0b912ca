// Which user rows an e-mail and password open. A person in several workspaces has one user row
// per workspace (same e-mail); every row whose password matches is a workspace they may use.
import type { Db } from '../db/client.ts';
import { verifyPassword } from './passwords.ts';

/** The matching active user ids, ordered by workspace name (the first is the default choice). */
export async function matchCredentials(prisma: Db, email: string, password: string): Promise<string[]> {
  const users = await prisma.user.findMany({
    where: { email: { equals: email.trim(), mode: 'insensitive' }, active: true, workspace: { isSandbox: false } },
    select: { id: true, passwordHash: true },
    orderBy: [{ workspace: { name: 'asc' } }, { workspaceId: 'asc' }],
  });
  const withPassword = users.filter((u) => u.passwordHash);
  if (withPassword.length === 0) {
    await verifyPassword(null, password);
    return [];
  }
  const matched: string[] = [];
  for (const u of withPassword) if (await verifyPassword(u.passwordHash, password)) matched.push(u.id);
  return matched;
}
