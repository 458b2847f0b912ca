// One delivery attempt: the body in the subscription's format, its signatures and headers, sent.
import type { WebhookSubscription } from '../db/generated/client/client.ts';
import { buildPayload, encodeBody, type EventForDelivery } from './payload.ts';
import type { SecretBox } from './secret-box.ts';
import type { SendResult, WebhookSender } from './sender.ts';
import { signatureHeaders } from './signing.ts';

export interface DeliveryServices {
  sender: WebhookSender;
  box: SecretBox;
}

export type SubscriptionForDelivery = Pick<
  WebhookSubscription,
  'id' | 'url' | 'httpMethod' | 'contentType' | 'headers' | 'timeoutSeconds' | 'payloadFormat' | 'secretEncrypted'
>;

export type EncodedBody = ReturnType<typeof encodeBody>;

/** The raw body a subscription receives for an event. */
export function deliveryBody(
  sub: Pick<SubscriptionForDelivery, 'id' | 'contentType' | 'payloadFormat'>,
  event: EventForDelivery,
): EncodedBody {
  return encodeBody(sub.contentType, buildPayload(sub.payloadFormat, event, sub.id));
}

/**
 * A subscription's secret that this instance's key cannot open: sealed under another
 * ENCRYPTION_KEY (or a generated key file of another instance). Signing is impossible, so the
 * attempt fails without sending.
 */
export class UnreadableSecretError extends Error {
  constructor(subscriptionId: string, options?: { cause?: unknown }) {
    super(
      `the signing secret of webhook ${subscriptionId} cannot be decrypted with this instance's ENCRYPTION_KEY; ` +
        'nothing was sent',
      options,
    );
    this.name = 'UnreadableSecretError';
  }
}

function openSecret(box: SecretBox, sub: SubscriptionForDelivery): string {
  try {
    return box.open(sub.secretEncrypted);
  } catch (err) {
    throw new UnreadableSecretError(sub.id, { cause: err });
  }
}

/** Sends one attempt; throws UnreadableSecretError, before sending, when the secret cannot be opened. */
export async function attemptDelivery(
  services: DeliveryServices,
  sub: SubscriptionForDelivery,
  event: EventForDelivery,
  { body, contentType }: EncodedBody = deliveryBody(sub, event),
): Promise<{ requestBody: string; result: SendResult }> {
  const headers: Record<string, string> = {
    ...(sub.headers as Record<string, string>),
    'content-type': contentType,
    'user-agent': 'crm-webhooks/1',
    ...signatureHeaders(openSecret(services.box, sub), event.id, event.type, body),
  };
  const result = await services.sender.send({
    url: sub.url,
    method: sub.httpMethod,
    headers,
    body,
    timeoutMs: sub.timeoutSeconds * 1000,
  });
  return { requestBody: body, result };
}
