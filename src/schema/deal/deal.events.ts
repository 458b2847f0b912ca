// Deal events go to the outbox in the transaction of the change. Each names the deal's
// primary contact (or the associated one) so it shows on that contact's timeline.
import type { Prisma } from '../../db/generated/client/client.ts';
import { recordEvent, type EventName } from '../../webhooks/events.ts';
import { actorOf, type Context } from '../context.ts';
import { dealRecord, type DealWithStage } from './deal.record.ts';

type DealEventName = Extract<EventName, `deal.${string}`>;

export async function recordDealEvent(
  tx: Prisma.TransactionClient,
  ctx: Context,
  type: DealEventName,
  deal: DealWithStage,
  extra: Prisma.InputJsonObject = {},
  opts: { contactId?: string | null; record?: Prisma.InputJsonObject } = {},
): Promise<void> {
  await recordEvent(tx, {
    workspaceId: deal.workspaceId,
    type,
    entityType: 'deal',
    entityId: deal.id,
    contactId: opts.contactId !== undefined ? opts.contactId : deal.contactId,
    data: { deal: opts.record ?? dealRecord(deal), ...extra },
    actor: actorOf(ctx),
  });
}
