// Who an import job writes as: the API key or dashboard user that sent the file, as they are
// now. A job outlives its request, so it is checked again before every batch: a revoked or expired
// key, or a deactivated user, stops the job (status failed, the reason in its error).
import { callerOfKey, KEY_WORKSPACE, type Caller } from '../auth/authenticate.ts';
import type { Db } from '../db/client.ts';
import type { Import } from '../db/generated/client/client.ts';
import { AppError } from '../errors.ts';
import type { Actor } from '../events/outbox.ts';

const stopped = (message: string) => new AppError('forbidden', message);

export async function importCaller(prisma: Db, job: Import): Promise<Caller> {
  if (job.keyId) {
    const key = await prisma.apiKey.findUnique({ where: { id: job.keyId }, include: KEY_WORKSPACE });
    const caller = key ? callerOfKey(key) : null;
    if (!caller) throw stopped('The API key that started the import was revoked');
    if (caller.expiresAt && caller.expiresAt.getTime() <= Date.now())
      throw stopped('The API key that started the import has expired');
    return caller;
  }
  const user = job.userId
    ? await prisma.user.findUnique({
        where: { id: job.userId },
        include: { workspace: { select: { id: true, plan: true, currency: true, linkContactsByDomain: true } } },
      })
    : null;
  if (!user?.active) throw stopped('The user who started the import was deactivated');
  const sandbox = job.workspaceId !== user.workspaceId;
  const data = sandbox
    ? await prisma.workspace.findUnique({ where: { id: job.workspaceId }, select: { linkContactsByDomain: true } })
    : user.workspace;
  if (!data) throw stopped('The workspace of the import is gone');
  return {
    keyId: null,
    keyName: null,
    scope: 'full',
    permissions: [],
    workspaceId: job.workspaceId,
    accountId: user.workspaceId,
    plan: user.workspace.plan,
    currency: user.workspace.currency,
    sandbox,
    linkContactsByDomain: data.linkContactsByDomain,
    userId: user.id,
    sessionId: null,
    expiresAt: null,
    user: { id: user.id, name: user.name },
  };
}

/** Who the job's events name, whether or not the key or user may still write. */
export async function importActor(prisma: Db, job: Import): Promise<Actor | null> {
  if (job.keyId) {
    const key = await prisma.apiKey.findUnique({ where: { id: job.keyId }, select: { name: true } });
    return key ? { type: 'api_key', id: job.keyId, name: key.name } : null;
  }
  const user = job.userId ? await prisma.user.findUnique({ where: { id: job.userId }, select: { name: true } }) : null;
  return user ? { type: 'user', id: job.userId!, name: user.name } : null;
}
