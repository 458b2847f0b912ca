import type { WebhookSubscription } from '../../db/generated/client/client.ts';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../webhooks/retry.rules.ts';
import { builder } from '../builder.ts';
import { DeliveryStatus, WebhookContentType, WebhookHttpMethod, WebhookPayloadFormat } from '../common/enums.ts';
import { pageType } from '../common/page.ts';
import { storedEnum } from '../common/stored-enum.ts';
import { versionDescription } from '../common/versions.ts';

/** A subscription as just created: the only time its secret is shown. */
export type WithSecret = WebhookSubscription & { plainSecret?: string };

const EVENT_NAMES =
  'Event names such as contact.created (strings: GraphQL enum values cannot hold dots; docs/webhooks.md lists them)';

/** The stored policy, with the default schedule where a row holds none. */
function retryPolicyOf(stored: unknown): RetryPolicy {
  const policy = (stored ?? {}) as Partial<RetryPolicy>;
  return {
    max_retries: policy.max_retries ?? DEFAULT_RETRY_POLICY.max_retries,
    intervals_seconds: policy.intervals_seconds?.length
      ? policy.intervals_seconds
      : DEFAULT_RETRY_POLICY.intervals_seconds,
  };
}

const RetryPolicyType = builder.objectRef<RetryPolicy>('RetryPolicy').implement({
  description: 'How often, and after how long, a failed delivery is tried again.',
  fields: (t) => ({
    max_retries: t.exposeInt('max_retries', { description: 'Attempts after the first, 0 to 10' }),
    intervals_seconds: t.exposeIntList('intervals_seconds', {
      description: 'Seconds before each retry; the last one repeats for later retries',
    }),
  }),
});

export const WebhookType = builder.prismaObject('WebhookSubscription', {
  name: 'Webhook',
  description: 'A subscription: events of the listed names are delivered to its URL, signed with its secret.',
  fields: (t) => ({
    id: t.exposeID('id'),
    name: t.exposeString('name', { nullable: true, description: 'Null when not given' }),
    url: t.exposeString('url', { description: 'Where deliveries are sent' }),
    events: t.exposeStringList('events', { description: EVENT_NAMES }),
    secret: t.string({
      nullable: true,
      description:
        'The signing secret; answered only when it is set (create, or an update that rotates it), null otherwise.',
      resolve: (w) => (w as WithSecret).plainSecret ?? null,
    }),
    description: t.exposeString('description', { nullable: true, description: 'Null when not given' }),
    active: t.exposeBoolean('active', {
      description:
        'Whether events are delivered now; an inactive subscription keeps its deliveries until it is active again',
    }),
    http_method: t.expose('httpMethod', { type: storedEnum(WebhookHttpMethod) }),
    content_type: t.expose('contentType', { type: storedEnum(WebhookContentType) }),
    headers: t.field({ type: 'WebhookHeaders', resolve: (w) => w.headers as object }),
    timeout_seconds: t.exposeInt('timeoutSeconds', { description: 'How long an attempt waits for an answer' }),
    retry_policy: t.field({ type: RetryPolicyType, resolve: (w) => retryPolicyOf(w.retryPolicy) }),
    auto_disable_after: t.exposeInt('autoDisableAfter', {
      description: 'The subscription turns inactive after more than this many failed attempts in a row',
    }),
    payload_format: t.expose('payloadFormat', { type: storedEnum(WebhookPayloadFormat) }),
    filters: t.field({ type: 'WebhookFilters', nullable: true, resolve: (w) => (w.filters as object | null) ?? null }),
    consecutive_failures: t.exposeInt('consecutiveFailures', {
      description: 'Failed attempts in a row; a delivered one resets it',
    }),
    disabled_at: t.expose('disabledAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it was turned inactive after failures; null otherwise',
    }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

export const WebhookPage = pageType('WebhookPage', WebhookType);

export const DeliveryType = builder.prismaObject('WebhookDelivery', {
  name: 'WebhookDelivery',
  description: 'One event sent, or to be sent, to a subscription: an entry of its delivery log.',
  fields: (t) => ({
    id: t.exposeID('id'),
    webhook_id: t.exposeString('subscriptionId'),
    event: t.exposeString('event', {
      description: 'The event name, e.g. contact.created (a string: GraphQL enum values cannot hold dots)',
    }),
    event_id: t.exposeString('eventId', {
      nullable: true,
      description: "The event's id; null for test sends, whose events were never recorded",
    }),
    status: t.expose('status', { type: storedEnum(DeliveryStatus) }),
    test: t.exposeBoolean('test', { description: 'Whether it is a test send' }),
    attempts: t.exposeInt('attempts', { description: 'Attempts made so far' }),
    retries: t.int({ description: 'Attempts after the first', resolve: (d) => Math.max(0, d.attempts - 1) }),
    response_code: t.exposeInt('responseCode', {
      nullable: true,
      description: 'HTTP status of the last attempt; null before the first or when no answer came',
    }),
    response_time_ms: t.exposeInt('responseTimeMs', {
      nullable: true,
      description: 'Duration of the last attempt; null before the first',
    }),
    response_body: t.exposeString('responseBody', {
      nullable: true,
      description:
        'First 1000 characters of the last answer; ' +
        'null when there was none or the key may not read what the event holds',
    }),
    request_body: t.exposeString('requestBody', {
      nullable: true,
      description: 'The body as sent; null before the first attempt or when the key may not read what the event holds',
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: 'Why the last attempt failed; null when it did not',
    }),
    next_attempt_at: t.expose('nextAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When it is tried next; null once delivered or failed',
    }),
    last_attempt_at: t.expose('lastAttemptAt', {
      type: 'DateTime',
      nullable: true,
      description: 'Null before the first attempt',
    }),
    delivered_at: t.expose('deliveredAt', { type: 'DateTime', nullable: true, description: 'Null until delivered' }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
  }),
});

export const DeliveryPage = pageType('WebhookDeliveryPage', DeliveryType);
