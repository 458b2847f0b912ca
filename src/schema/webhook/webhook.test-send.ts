// POST /v1/webhooks/:id/test: one sample per subscribed event, sent now through the same
// guard and signing as real deliveries, and kept in the delivery log with test: true. The
// samples are built by the event catalogue's own builders, so they have the shape of real events.
import type { WebhookSubscription } from '../../db/generated/client/client.ts';
import { newId } from '../../ids.ts';
import { attemptDelivery, UnreadableSecretError } from '../../webhooks/deliver.ts';
import type { EventForDelivery } from '../../webhooks/payload.ts';
import type { SendResult } from '../../webhooks/sender.ts';
import { eventDefinition } from '../../events/catalogue/index.ts';
import { storableOrNull } from '../../webhooks/stored-text.ts';
import { builder } from '../builder.ts';
import { DeliveryStatus } from '../common/enums.ts';
import type { Context } from '../context.ts';

interface TestResult {
  event: string;
  delivery_id: string;
  status: 'delivered' | 'failed';
  response_code: number | null;
  response_time_ms: number;
  error: string | null;
}

export const WebhookTestResult = builder.objectRef<TestResult>('WebhookTestResult').implement({
  description: 'The outcome of one test send: a sample event of one subscribed name, sent once.',
  fields: (t) => ({
    event: t.exposeString('event', {
      description: 'The event name, e.g. contact.created (a string: GraphQL enum values cannot hold dots)',
    }),
    delivery_id: t.exposeString('delivery_id', { description: 'Its entry in the delivery log' }),
    status: t.expose('status', {
      type: DeliveryStatus,
      description: 'delivered or failed: a test send is never retried, so never pending',
    }),
    response_code: t.exposeInt('response_code', {
      nullable: true,
      description: 'HTTP status of the answer; null when no answer came',
    }),
    response_time_ms: t.exposeInt('response_time_ms'),
    error: t.exposeString('error', { nullable: true, description: 'Why it failed; null when delivered' }),
  }),
});

/** A secret this instance cannot open fails the test send with the reason, like a real delivery. */
async function testAttempt(
  ctx: Context,
  sub: WebhookSubscription,
  sample: EventForDelivery,
): Promise<{ requestBody: string | null; result: SendResult }> {
  try {
    return await attemptDelivery(ctx.webhooks, sub, sample);
  } catch (err) {
    if (!(err instanceof UnreadableSecretError)) throw err;
    return {
      requestBody: null,
      result: {
        ok: false,
        statusCode: null,
        responseTimeMs: 0,
        responseBody: null,
        retryAfter: null,
        error: err.message,
      },
    };
  }
}

/**
 * Sequence 0: no real event has it (a record's first is 1), so a test send is recognisable and
 * never shadows a real event in a receiver that keeps the highest sequence per record.
 */
const TEST_SEQUENCE = 0;

/** The sample of an event name; names accepted in subscriptions but never emitted get a marker object. */
function sampleData(event: string): Record<string, unknown> {
  return eventDefinition(event)?.sample().data ?? { sample: true, event };
}

export function sendTestEvents(ctx: Context, sub: WebhookSubscription): Promise<TestResult[]> {
  return Promise.all(
    sub.events.map(async (event) => {
      const sample = {
        id: newId('evt'),
        type: event,
        sequence: TEST_SEQUENCE,
        workspaceId: sub.workspaceId,
        createdAt: new Date(),
        data: sampleData(event),
      };
      const attemptedAt = new Date();
      const { requestBody, result } = await testAttempt(ctx, sub, sample);
      const now = new Date();
      const error = storableOrNull(result.error);
      // The log entry and its one attempt are created together (one transaction).
      const row = await ctx.prisma.webhookDelivery.create({
        data: {
          id: newId('dlv'),
          workspaceId: sub.workspaceId,
          subscriptionId: sub.id,
          event,
          test: true,
          status: result.ok ? 'delivered' : 'failed',
          attempts: 1,
          lastAttemptAt: attemptedAt,
          deliveredAt: result.ok ? now : null,
          requestBody,
          responseCode: result.statusCode,
          responseTimeMs: result.responseTimeMs,
          responseBody: result.responseBody,
          error,
          attemptHistory: {
            create: {
              attempt: 1,
              kind: 'test',
              attemptedAt,
              delivered: result.ok,
              responseCode: result.statusCode,
              responseTimeMs: result.responseTimeMs,
              error,
            },
          },
        },
      });
      return {
        event,
        delivery_id: row.id,
        status: row.status as TestResult['status'],
        response_code: result.statusCode,
        response_time_ms: result.responseTimeMs,
        error: result.error,
      };
    }),
  );
}
