import type { WebhookSubscription } from '../../db/generated/client/client.ts';
import { DEFAULT_RETRY_POLICY } from '../../webhooks/retry.rules.ts';
import { builder } from '../builder.ts';
import { pageType } from '../common/page.ts';

/** A subscription as just created: the only time its secret is shown. */
export type WithSecret = WebhookSubscription & { plainSecret?: string };

export const WebhookType = builder.prismaObject('WebhookSubscription', {
  name: 'Webhook',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true }),
    url: t.exposeString('url'),
    events: t.exposeStringList('events'),
    secret: t.string({
      nullable: true,
      description: 'The signing secret; returned only when it is set (create, or an update that sets it).',
      resolve: (w) => (w as WithSecret).plainSecret ?? null,
    }),
    description: t.exposeString('description', { nullable: true }),
    active: t.exposeBoolean('active'),
    http_method: t.exposeString('httpMethod'),
    content_type: t.exposeString('contentType', { description: 'json or form' }),
    headers: t.field({ type: 'JSONObject', resolve: (w) => w.headers as object }),
    timeout_seconds: t.exposeInt('timeoutSeconds'),
    retry_policy: t.field({ type: 'JSONObject', resolve: (w) => (w.retryPolicy as object | null) ?? DEFAULT_RETRY_POLICY }),
    auto_disable_after: t.exposeInt('autoDisableAfter'),
    payload_format: t.exposeString('payloadFormat', { description: 'event (envelope with id) or record' }),
    filters: t.field({ type: 'JSONObject', nullable: true, resolve: (w) => (w.filters as object | null) ?? null }),
    consecutive_failures: t.exposeInt('consecutiveFailures'),
    disabled_at: t.expose('disabledAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const WebhookPage = pageType('WebhookPage', WebhookType);

export const DeliveryType = builder.prismaObject('WebhookDelivery', {
  name: 'WebhookDelivery',
  fields: (t) => ({
    id: t.exposeID('id'),
    webhook_id: t.exposeString('subscriptionId'),
    event: t.exposeString('event'),
    event_id: t.exposeString('eventId', { nullable: true }),
    status: t.exposeString('status', { description: 'pending, delivered or failed' }),
    test: t.exposeBoolean('test'),
    attempts: t.exposeInt('attempts'),
    retries: t.int({ resolve: (d) => Math.max(0, d.attempts - 1) }),
    response_code: t.exposeInt('responseCode', { nullable: true }),
    response_time_ms: t.exposeInt('responseTimeMs', { nullable: true }),
    response_body: t.exposeString('responseBody', { nullable: true, description: 'First 1000 characters' }),
    request_body: t.exposeString('requestBody', { nullable: true }),
    error: t.exposeString('error', { nullable: true }),
    next_attempt_at: t.expose('nextAttemptAt', { type: 'DateTime', nullable: true }),
    last_attempt_at: t.expose('lastAttemptAt', { type: 'DateTime', nullable: true }),
    delivered_at: t.expose('deliveredAt', { type: 'DateTime', nullable: true }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const DeliveryPage = pageType('WebhookDeliveryPage', DeliveryType);
