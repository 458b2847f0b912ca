// The audit entry of a write that records no event, made through a resolver (src/events/audit.ts):
// the caller's workspace and actor, and the changes between the record's audited fields before and
// after. One per kind of record: `auditOf('pipeline', fieldsOf)`.
import type { Prisma } from '../../db/generated/client/client.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import { actorOf, type Context } from '../context.ts';

export function auditOf<R extends { id: string }>(
  resource: string,
  fieldsOf: (record: R) => Record<string, unknown>,
  secret: readonly string[] = [],
) {
  return (tx: Prisma.TransactionClient, ctx: Context, action: string, before: R | null, after: R | null) =>
    recordAudit(tx, {
      workspaceId: ctx.caller.workspaceId,
      actor: actorOf(ctx),
      resource,
      recordId: (after ?? before)!.id,
      action,
      changes: diff(before && fieldsOf(before), after && fieldsOf(after), secret),
    });
}
