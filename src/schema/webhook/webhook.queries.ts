import { assertAllowed } from '../../auth/scopes.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { notFound } from '../../errors.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { logFilter } from './webhook.inputs.ts';
import { DeliveryPage, WebhookPage, WebhookType } from './webhook.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { sortArg } from '../common/sort.ts';

const WebhookDeliveryFilter = zodInput('WebhookDeliveryFilter', logFilter, 'Conditions every listed delivery meets.');

const WEBHOOK_SORT: SortSpec = { default: '-created_at', fields: { created_at: { field: 'createdAt', type: 'date' } } };
const LOG_SORT: SortSpec = { default: '-created_at', fields: { created_at: { field: 'createdAt', type: 'date' } } };

export async function findWebhook(db: Pick<Context['prisma'], 'webhookSubscription'>, ctx: Context, id: string) {
  const sub = await db.webhookSubscription.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
  if (!sub) throw notFound('Webhook');
  return sub;
}

builder.queryFields((t) => ({
  webhooks: t.field({
    type: WebhookPage,
    description: 'Webhook subscriptions of the workspace.',
    args: { limit: t.arg.int(), cursor: t.arg.string(), sort: sortArg(t, 'WebhookSort', WEBHOOK_SORT) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'read');
      return findPage(args, WEBHOOK_SORT, {
        list: 'webhooks',
        where: { workspaceId: ctx.caller.workspaceId },
        fetch: (q) => ctx.prisma.webhookSubscription.findMany(q as Prisma.WebhookSubscriptionFindManyArgs),
        count: (where) => ctx.prisma.webhookSubscription.count({ where }),
      });
    },
  }),
  webhook: t.field({
    description: 'One subscription by id, without its secret; not_found when the workspace has none with that id.',
    type: WebhookType,
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'read');
      return findWebhook(ctx.prisma, ctx, String(args.id));
    },
  }),
  webhookLogs: t.field({
    type: DeliveryPage,
    description: 'Delivery log of a subscription, newest first.',
    args: {
      webhookId: t.arg.id({ required: true }),
      filter: t.arg({ type: WebhookDeliveryFilter }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
      sort: sortArg(t, 'WebhookDeliverySort', LOG_SORT),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'read');
      const sub = await findWebhook(ctx.prisma, ctx, String(args.webhookId));
      const f = parseInput(logFilter, args.filter ?? {});
      return findPage(args, LOG_SORT, {
        list: `webhook_logs:${sub.id}`,
        where: {
          subscriptionId: sub.id,
          ...(f.status ? { status: f.status } : {}),
          ...(f.event ? { event: f.event } : {}),
        },
        fetch: (q) => ctx.prisma.webhookDelivery.findMany(q as Prisma.WebhookDeliveryFindManyArgs),
        count: (where) => ctx.prisma.webhookDelivery.count({ where }),
      });
    },
  }),
}));
