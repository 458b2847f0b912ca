// Deal events go to the outbox in the transaction of the change. Each names the deal's
// primary contact (or the associated one) so it shows on that contact's timeline.
import type { Prisma } from '../../db/generated/client/client.ts';
import type { BuiltEvent } from '../../events/catalogue/define.ts';
import { recordEvent } from '../../events/outbox.ts';
import { actorOf, type Context } from '../context.ts';
import type { DealWithStage } from '../../records/deal.ts';

/** `event` comes from a deal builder of the catalogue (src/events/catalogue/deal.events.ts). */
export async function recordDealEvent(
  tx: Prisma.TransactionClient,
  ctx: Context,
  event: BuiltEvent,
  deal: DealWithStage,
  opts: { contactId?: string | null } = {},
): Promise<void> {
  await recordEvent(tx, {
    ...event,
    workspaceId: deal.workspaceId,
    contactId: opts.contactId !== undefined ? opts.contactId : deal.contactId,
    actor: actorOf(ctx),
  });
}
