// The attempt history of a delivery log entry (webhook_delivery_attempts, see
// src/webhooks/attempt-log.ts). Loaded with the page of deliveries that asks for it (one query
// for the whole page, through the Prisma relation), never per delivery. An attempt carries no
// request or response body: its error is the service's own words (the sender never quotes a
// reply's body), so it is as readable as the delivery's other fields.
import { ATTEMPT_KINDS, type AttemptKind } from '../../webhooks/attempt-log.ts';
import { builder } from '../builder.ts';
import { DeliveryType } from './webhook.type.ts';

export const DeliveryAttemptKind = builder.enumType('DeliveryAttemptKind', {
  description:
    "Why an attempt was made: the delivery's first, a retry after a failed attempt, " +
    'the first attempt of a redelivery, or a test send.',
  values: Object.fromEntries(ATTEMPT_KINDS.map((v) => [v, { value: v }])) as { [K in AttemptKind]: { value: K } },
});

export const DeliveryAttemptType = builder.prismaObject('WebhookDeliveryAttempt', {
  name: 'DeliveryAttempt',
  description: 'One attempt to deliver an event to the receiver, as recorded when it ended.',
  fields: (t) => ({
    attempt: t.exposeInt('attempt', {
      nullable: false,
      description:
        "The attempt's number within its delivery: 1 is the first. " +
        'A missing number was an attempt whose outcome was lost (the worker stopped mid-attempt).',
    }),
    kind: t.field({
      type: DeliveryAttemptKind,
      nullable: false,
      description: 'Why the attempt was made.',
      resolve: (a) => a.kind as AttemptKind,
    }),
    attempted_at: t.expose('attemptedAt', {
      type: 'DateTime',
      nullable: false,
      description: 'When the attempt started.',
    }),
    delivered: t.exposeBoolean('delivered', {
      nullable: false,
      description: 'Whether the receiver answered with a 2xx status.',
    }),
    response_code: t.exposeInt('responseCode', {
      nullable: true,
      description: "The receiver's HTTP status; null when no answer came (timeout, refused connection, nothing sent).",
    }),
    response_time_ms: t.exposeInt('responseTimeMs', {
      nullable: false,
      description: 'How long the attempt took, in milliseconds (0 when nothing was sent).',
    }),
    error: t.exposeString('error', {
      nullable: true,
      description: "Why the attempt failed, in the service's words; null when it was delivered.",
    }),
  }),
});

builder.prismaObjectField(DeliveryType, 'attempt_history', (t) =>
  t.relation('attemptHistory', {
    nullable: false,
    description:
      'Every recorded attempt of this log entry, oldest first: ' +
      "at most 1 + the retry policy's max_retries (+ 1 ending a run of lost attempts). " +
      "The entry's own response_code, error and timing repeat the last one.",
    query: { orderBy: { attempt: 'asc' } },
  }),
);
