// Webhook subscription bodies: the spec's fields plus the settings of the product decisions.
import { z } from 'zod';
import { ACCEPTED_EVENTS } from '../../events/outbox.ts';
import { filtersSchema } from '../../webhooks/filters.ts';
import { inputNamed, scalarNamed } from '../common/graphql-names.ts';
import { isoDateOrTime, name255, optionalText } from '../common/validation.ts';

export const MAX_SUBSCRIPTIONS = 100;
export const HTTP_METHODS = ['POST', 'PUT', 'PATCH'] as const;
export const PAYLOAD_FORMATS = ['event', 'record'] as const;
/** What a subscription stores; requests may also name the media types. */
export const WEBHOOK_CONTENT_TYPES = ['json', 'form'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
/** Headers the service sets itself; a subscription may not override them. */
const RESERVED_HEADER =
  /^(host|content-length|content-type|transfer-encoding|connection|user-agent|x-service-.*|webhook-.*)$/i;

const eventName = z
  .string()
  .refine((e) => (ACCEPTED_EVENTS as readonly string[]).includes(e), { message: 'is not a known event name' })
  .meta({ enum: [...ACCEPTED_EVENTS] });

const headers = scalarNamed(
  z
    .record(
      z.string().regex(HEADER_NAME, 'header names are HTTP tokens'),
      z
        .string()
        .max(2048)
        .regex(/^[\t\x20-\x7e]*$/, 'header values are one line of printable ASCII (no control characters)'),
    )
    .refine((h) => Object.keys(h).length <= 20, 'at most 20 headers')
    .refine(
      (h) => !Object.keys(h).some((k) => RESERVED_HEADER.test(k)),
      'cannot set Host, Content-*, User-Agent, X-Service-* or webhook-* headers',
    ),
  'WebhookHeaders',
);

// The filters' shape is the dispatcher's (webhooks/filters.ts); its GraphQL name is given here.
scalarNamed(filtersSchema.unwrap(), 'WebhookFilters');

const contentType = z
  .enum(['json', 'form', 'application/json', 'application/x-www-form-urlencoded'])
  .transform((v) => (v === 'form' || v === 'application/x-www-form-urlencoded' ? 'form' : 'json'));

export const retryPolicyInput = inputNamed(
  z.object({
    max_retries: z.number().int().min(0).max(10),
    intervals_seconds: z.array(z.number().int().min(1).max(86_400)).max(10).optional(),
  }),
  'RetryPolicyInput',
  'How often a failed delivery is retried, and after how long.',
);

const fields = {
  url: z.string().trim().min(1, 'is required').meta({ format: 'uri' }),
  events: z
    .array(eventName)
    .min(1, 'must name at least one event')
    .max(100)
    .transform((e) => [...new Set(e)]),
  secret: z.string().min(16, 'must be at least 16 characters').max(256).optional(),
  name: name255.nullable().optional(),
  description: optionalText(10_000),
  active: z.boolean().optional(),
  http_method: z.enum(HTTP_METHODS).optional(),
  content_type: contentType.optional(),
  headers: headers.optional(),
  timeout_seconds: z.number().int().min(5).max(60).optional(),
  retry_policy: retryPolicyInput.optional(),
  auto_disable_after: z.number().int().min(1).max(1000).optional(),
  payload_format: z.enum(PAYLOAD_FORMATS).optional(),
  filters: filtersSchema.optional(),
};

export const webhookCreateInput = z.object(fields);
// The secret is chosen once, at creation. An update ignores a `secret` in its body like any other
// read-only field, so a body replayed from a create or copied between tools cannot swap the key
// receivers verify with; `rotate_secret: true` asks for a new generated one instead.
const { secret: _createOnly, ...updatable } = fields;
export const webhookUpdateInput = z
  .object(updatable)
  .partial()
  .extend({
    rotate_secret: z
      .boolean()
      .optional()
      .meta({ description: 'true: replace the signing secret with a new generated one, returned once in this answer' }),
  });
export type WebhookUpdateInput = z.output<typeof webhookUpdateInput>;

export const logFilter = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: z.string().optional(),
});

/** POST /v1/webhooks/:id/recover: the window whose events to send again. */
export const recoverInput = z
  .object({
    since: isoDateOrTime.meta({ description: 'Events at or after this time (ISO 8601)' }),
    until: isoDateOrTime.meta({ description: 'Events before this time (ISO 8601); at most now' }),
  })
  .refine((w) => w.since < w.until, { path: ['until'], message: 'must be after since' });
