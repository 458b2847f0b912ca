// Checks of what a deal body refers to. An id that is well-formed but names nothing in the
// workspace is a business-rule error (422), not a missing resource (404).
import type { Prisma } from '../../db/generated/client/client.ts';
import type { Refusals } from '../../db/transaction.ts';
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { externalIdTaken, onExternalId } from '../common/external-id.ts';

type Tx = Prisma.TransactionClient;

/**
 * What the database's refusals mean in a deal's transaction. Rows are checked before they are
 * written; when a concurrent request removes one in between, the database refuses the write.
 * That is a conflict with the current state (or, for the deal itself, a missing deal), not a
 * server error.
 */
export const DEAL_REFUSALS: Refusals = {
  foreignKeyViolation: () =>
    new AppError('conflict', 'Something the deal refers to was removed meanwhile; retry the request'),
  recordNotFound: () => new AppError('not_found', 'Deal not found'),
};

/** DEAL_REFUSALS, and a unique violation: the external_id is another deal's, named in the answer. */
export function dealRefusals(ctx: Context, externalId: string | null | undefined): Refusals {
  return {
    ...DEAL_REFUSALS,
    uniqueViolation: (columns) =>
      onExternalId(columns) && externalId
        ? externalIdTaken('deal', () =>
            ctx.prisma.deal.findFirst({
              where: { workspaceId: ctx.caller.workspaceId, externalId },
              select: { id: true },
            }),
          )
        : new AppError('conflict', 'The deal conflicts with another'),
  };
}

const unknownRef = (field: string, what: string) =>
  new AppError('unprocessable_entity', `${field} does not name ${what} of this workspace`, {
    [field]: [`unknown ${what}`],
  });

export async function assertContactExists(
  tx: Tx,
  ctx: Context,
  contactId: string | null | undefined,
  field = 'contact_id',
): Promise<void> {
  if (contactId === null || contactId === undefined) return;
  const contact = await tx.contact.findFirst({
    where: { id: contactId, workspaceId: ctx.caller.workspaceId },
    select: { id: true },
  });
  if (!contact) throw unknownRef(field, 'a contact');
}

/** The stages of a pipeline of the workspace, in position order. */
export async function pipelineStages(tx: Tx, ctx: Context, pipelineId: string) {
  const pipeline = await tx.pipeline.findFirst({
    where: { id: pipelineId, workspaceId: ctx.caller.workspaceId },
    include: { stages: { orderBy: [{ position: 'asc' }, { id: 'asc' }] } },
  });
  if (!pipeline) throw unknownRef('pipeline_id', 'a pipeline');
  return pipeline.stages;
}
