// Keys, users and custom field definitions are created for a live workspace only: its sandbox
// twin shares them. Callers that name a workspace by id (the admin CLI) check it here first.
import type { Db } from '../../db/client.ts';
import { AppError } from '../../errors.ts';

/** The live workspace `id`; not_found for an unknown id or a sandbox's. */
export async function liveWorkspace(db: Db, id: string) {
  const ws = await db.workspace.findFirst({ where: { id, isSandbox: false } });
  if (!ws) throw new AppError('not_found', `Workspace ${id} not found`);
  return ws;
}
