// Caps that are checked by counting (webhooks, custom fields per workspace; at least one
// pipeline) hold only if no two requests count at once. A transaction-scoped advisory lock,
// one per cap and workspace, makes them take turns: released at commit or rollback, and
// touching no row, so other writes of the workspace never wait on it.
import type { Prisma } from './generated/client/client.ts';

/** Holds the lock named by `cap` and `workspaceId` until the transaction ends. */
export async function lockCap(tx: Prisma.TransactionClient, cap: string, workspaceId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`${cap}:${workspaceId}`}, 0))`;
}
