// The OpenAPI 3.1 `webhooks` section: every event type a subscription can receive, with its body
// in both payload formats and both content types, the signature headers and the answer expected.
// The schemas come from the event catalogue (src/events/catalogue), like real deliveries.
import {
  componentName,
  deliveredEvents,
  eventComponentSchemas,
  type JsonSchema,
} from '../../events/catalogue/envelopes.ts';
import type { Parameter } from './request.ts';

const header = (name: string, description: string, schema: JsonSchema): Parameter => ({
  name,
  in: 'header',
  required: true,
  description,
  schema,
});

/** The headers every delivery carries (src/webhooks/signing.ts); the subscription's own headers come on top. */
function deliveryHeaders(event: string): Parameter[] {
  return [
    header(
      'X-Service-Signature',
      'Hex HMAC-SHA256 of the raw body, keyed with the UTF-8 bytes of the subscription secret exactly as the API ' +
        'returned it. Compute it over the raw, unparsed body and compare in constant time.',
      { type: 'string', pattern: '^[0-9a-f]{64}$' },
    ),
    header('X-Service-Event', 'The event name.', { type: 'string', const: event }),
    header('X-Service-Event-Id', 'The event id: the same on every retry and redelivery.', { type: 'string' }),
    header('X-Service-Timestamp', 'When this attempt was signed, in Unix seconds.', {
      type: 'string',
      pattern: '^[0-9]+$',
    }),
    header('webhook-id', 'Standard Webhooks: the event id (as X-Service-Event-Id).', { type: 'string' }),
    header('webhook-timestamp', 'Standard Webhooks: when this attempt was signed, in Unix seconds.', {
      type: 'string',
      pattern: '^[0-9]+$',
    }),
    header(
      'webhook-signature',
      'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<raw body>`, ' +
        "keyed with the base64-decoded part after `whsec_` of the secret (or the secret's UTF-8 bytes when it has " +
        'no such prefix). Verifiable with the `standardwebhooks` libraries.',
      { type: 'string', pattern: '^v1,[A-Za-z0-9+/]+={0,2}$' },
    ),
  ];
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function body(event: string): JsonSchema {
  const either = { oneOf: [ref(componentName(event, 'event')), ref(componentName(event, 'record'))] };
  return {
    required: true,
    description:
      'Envelope A (`payload_format: event`, the default) or envelope B (`payload_format: record`), ' +
      'as the subscription says. With `content_type: form` the same JSON is the `payload` field of a form; ' +
      'the signatures cover the raw form body.',
    content: {
      'application/json': { schema: either },
      'application/x-www-form-urlencoded': {
        schema: {
          type: 'object',
          required: ['payload'],
          properties: {
            payload: {
              type: 'string',
              description: 'The JSON body, as with application/json',
              contentMediaType: 'application/json',
              contentSchema: either,
            },
          },
        },
      },
    },
  };
}

function operation(event: string, description: string) {
  return {
    operationId: componentName(event, 'event').replace(/^Webhook/, 'receive'),
    summary: event,
    description:
      `${description}\n\nSent with the subscription's \`http_method\` (POST unless set to PUT or PATCH), ` +
      'at least once: drop repeated event ids, and keep the highest `sequence` per record to drop older deliveries.',
    tags: ['Webhooks'],
    // Deliveries are authenticated by their signature headers, not by an API key.
    security: [],
    parameters: deliveryHeaders(event),
    requestBody: body(event),
    responses: {
      '2XX': {
        description:
          "Any 2xx within the subscription's timeout (default 30 s) acknowledges the delivery; " +
          'answer first, work afterwards. ' +
          'Anything else, a timeout, a connection error or a redirect (not followed) is retried ' +
          "on the subscription's schedule; a 429 waits for its Retry-After.",
      },
    },
  };
}

/** The document's `webhooks` and the component schemas they refer to. */
export function webhooksSection(): {
  webhooks: Record<string, { post: ReturnType<typeof operation> }>;
  schemas: Record<string, JsonSchema>;
} {
  const webhooks = Object.fromEntries(
    deliveredEvents().map((d) => [d.name, { post: operation(d.name, d.description) }]),
  );
  return { webhooks, schemas: eventComponentSchemas() };
}
