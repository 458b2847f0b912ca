import { assertAllowed, assertMayReadEvents } from '../../auth/scopes.ts';
import type { Prisma, WebhookSubscription } from '../../db/generated/client/client.ts';
import { auditOf } from '../common/audited.ts';
import { lockCap } from '../../db/locks.ts';
import { AppError, notFound } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { DEFAULT_RETRY_POLICY } from '../../webhooks/retry.rules.ts';
import { generateWebhookSecret } from '../../webhooks/secret-box.ts';
import { validateWebhookUrl } from '../../webhooks/url-guard.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import {
  MAX_SUBSCRIPTIONS,
  webhookCreateInput,
  webhookUpdateInput,
  type WebhookUpdateInput,
} from './webhook.inputs.ts';
import { findWebhook } from './webhook.queries.ts';
import { assertOutboundRoom, assertSecretUsable } from './webhook.caps.ts';
import { DeliveryType, WebhookType, type WithSecret } from './webhook.type.ts';
import { sendTestEvents, WebhookTestResult } from './webhook.test-send.ts';
import { zodInput } from '../common/zod-input.ts';
import { transaction, withRefusals, type Refusals } from '../../db/transaction.ts';
import { assertLockedVersion, EXPECTED_VERSION_HELP, staleVersion, versionedKey } from '../common/versions.ts';

const WebhookCreateInput = zodInput(
  'WebhookCreateInput',
  webhookCreateInput,
  'A subscription: an https URL on a public address and the events to deliver there.',
);
const WebhookUpdateInput = zodInput(
  'WebhookUpdateInput',
  webhookUpdateInput,
  'Settings to change; the secret changes only with rotate_secret: true.',
);

function retryPolicy(input: WebhookUpdateInput['retry_policy']) {
  if (!input) return undefined;
  return {
    max_retries: input.max_retries,
    intervals_seconds: input.intervals_seconds?.length
      ? input.intervals_seconds
      : DEFAULT_RETRY_POLICY.intervals_seconds,
  };
}

/** Columns for the settings present in the input (undefined ones are left alone by Prisma). */
function settings(input: WebhookUpdateInput) {
  return {
    name: input.name,
    events: input.events,
    description: input.description,
    httpMethod: input.http_method,
    contentType: input.content_type,
    headers: input.headers,
    timeoutSeconds: input.timeout_seconds,
    retryPolicy: retryPolicy(input.retry_policy),
    autoDisableAfter: input.auto_disable_after,
    payloadFormat: input.payload_format,
    filters: input.filters === null ? ({} as Prisma.InputJsonObject) : input.filters,
  };
}

const withSecret = <T extends object>(row: T, plainSecret: string | undefined): T & { plainSecret?: string } =>
  Object.assign(row, { plainSecret });

/**
 * A conditional write of a subscription (its `version` in the key) that found no row: it changed
 * since it was read (412 with its version now), or it is gone (404).
 */
function versionRefusals(ctx: Context, id: string, expected: number | null | undefined): Refusals {
  return {
    recordNotFound: async () => {
      const now = await ctx.prisma.webhookSubscription.findFirst({
        where: { id, workspaceId: ctx.caller.workspaceId },
        select: { version: true },
      });
      return now && expected !== null && expected !== undefined
        ? staleVersion(expected, now.version)
        : notFound('Webhook');
    },
  };
}

/** What the audit log keeps of a subscription: its settings, and whether its secret changed (never the secret). */
const webhookAuditFields = (w: WebhookSubscription) => ({
  name: w.name,
  url: w.url,
  events: w.events,
  description: w.description,
  active: w.active,
  http_method: w.httpMethod,
  content_type: w.contentType,
  headers: w.headers,
  timeout_seconds: w.timeoutSeconds,
  retry_policy: w.retryPolicy,
  auto_disable_after: w.autoDisableAfter,
  payload_format: w.payloadFormat,
  filters: w.filters,
  secret: w.secretEncrypted,
});

const auditWebhook = auditOf<WebhookSubscription>('webhook', webhookAuditFields, ['secret']);

builder.mutationFields((t) => ({
  createWebhook: t.field({
    type: WebhookType,
    description: 'Subscribes a URL to events. The secret (generated when omitted) is returned only here.',
    args: { input: t.arg({ type: WebhookCreateInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      const input = parseInput(webhookCreateInput, args.input);
      // A subscription delivers its events' records: only those the key may read itself.
      assertMayReadEvents(ctx.caller, input.events);
      const url = await validateWebhookUrl(input.url, ctx.webhooks.policy);
      const secret = input.secret ?? generateWebhookSecret();
      // Counted and created under the workspace's lock, so parallel creates cannot pass the cap together.
      const row = await transaction(ctx.prisma, async (tx) => {
        await lockCap(tx, 'webhook_subscriptions', ctx.caller.workspaceId);
        const count = await tx.webhookSubscription.count({ where: { workspaceId: ctx.caller.workspaceId } });
        if (count >= MAX_SUBSCRIPTIONS)
          throw new AppError(
            'unprocessable_entity',
            `A workspace has at most ${MAX_SUBSCRIPTIONS} webhook subscriptions`,
          );
        const created = await tx.webhookSubscription.create({
          data: {
            ...settings(input),
            id: newId('wh'),
            workspaceId: ctx.caller.workspaceId,
            url,
            events: input.events,
            active: input.active ?? true,
            secretEncrypted: ctx.webhooks.box.seal(secret),
            retryPolicy: retryPolicy(input.retry_policy) ?? { ...DEFAULT_RETRY_POLICY },
          },
        });
        await auditWebhook(tx, ctx, 'created', null, created);
        return created;
      });
      return withSecret(row, secret);
    },
  }),
  updateWebhook: t.field({
    type: WebhookType,
    description: 'Changes settings. Setting active to true resumes deliveries kept while it was inactive.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: WebhookUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      const input = parseInput(webhookUpdateInput, args.input);
      const sub = await findWebhook(ctx.prisma, ctx, String(args.id));
      assertLockedVersion(sub, args.expected_version);
      // Deliveries still queued for the events it has now go to the settings it will have: the
      // key must be able to read both what it has and what it will have.
      assertMayReadEvents(ctx.caller, [...new Set([...sub.events, ...(input.events ?? [])])]);
      const url = input.url === undefined ? undefined : await validateWebhookUrl(input.url, ctx.webhooks.policy);
      const reactivated = input.active === true && !sub.active;
      const secret = input.rotate_secret ? generateWebhookSecret() : undefined;
      // One conditional statement: a change since the check above is refused, not overwritten.
      const row = await withRefusals(versionRefusals(ctx, sub.id, args.expected_version), () =>
        ctx.prisma.$transaction(async (tx) => {
          const updated = await tx.webhookSubscription.update({
            where: versionedKey(sub.id, args.expected_version),
            data: {
              ...settings(input),
              url,
              active: input.active,
              secretEncrypted: secret ? ctx.webhooks.box.seal(secret) : undefined,
              ...(reactivated ? { consecutiveFailures: 0, disabledAt: null } : {}),
            },
          });
          await auditWebhook(tx, ctx, 'updated', sub, updated);
          return updated;
        }),
      );
      return withSecret(row, secret) as WithSecret;
    },
  }),
  deleteWebhook: t.field({
    type: DeleteResult,
    description: 'Deletes the subscription and its delivery log.',
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      const sub = await findWebhook(ctx.prisma, ctx, String(args.id));
      await withRefusals(versionRefusals(ctx, sub.id, args.expected_version), () =>
        ctx.prisma.$transaction(async (tx) => {
          await tx.webhookSubscription.delete({ where: versionedKey(sub.id, args.expected_version) });
          await auditWebhook(tx, ctx, 'deleted', sub, null);
        }),
      );
      return { id: sub.id, deleted: true as const };
    },
  }),
  testWebhook: t.field({
    type: [WebhookTestResult],
    description:
      'Sends one sample payload per subscribed event now, signed like real deliveries; logged with test: true. ' +
      'Counts one test send per event against the workspace and destination host caps (rate_limited when spent).',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      const sub = await findWebhook(ctx.prisma, ctx, String(args.id));
      assertMayReadEvents(ctx.caller, sub.events);
      await assertOutboundRoom(ctx, 'test', sub, sub.events.length);
      return sendTestEvents(ctx, sub);
    },
  }),
  redeliverWebhook: t.field({
    type: DeliveryType,
    description:
      'Queues a delivered or failed event again: same event id, a new attempt and log entry. ' +
      'Capped per workspace (rate_limited when spent).',
    args: { id: t.arg.id({ required: true }), logId: t.arg.id({ required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'webhooks', 'write');
      return redeliver(ctx, String(args.id), String(args.logId));
    },
  }),
}));

async function redeliver(ctx: Context, webhookId: string, logId: string) {
  const sub = await findWebhook(ctx.prisma, ctx, webhookId);
  const log = await ctx.prisma.webhookDelivery.findFirst({ where: { id: logId, subscriptionId: sub.id } });
  if (!log) throw notFound('Delivery log entry');
  assertMayReadEvents(ctx.caller, [log.event], 'log_id');
  if (!log.eventId)
    throw new AppError('unprocessable_entity', 'Test deliveries cannot be redelivered; send a new test instead');
  if (log.status === 'pending')
    throw new AppError('conflict', 'This delivery is still scheduled; it will be attempted again by itself');
  assertSecretUsable(ctx, sub);
  await assertOutboundRoom(ctx, 'redeliver', sub, 1);
  return ctx.prisma.webhookDelivery.create({
    data: {
      id: newId('dlv'),
      workspaceId: sub.workspaceId,
      subscriptionId: sub.id,
      eventId: log.eventId,
      event: log.event,
      redelivery: true,
      nextAttemptAt: new Date(),
    },
  });
}
