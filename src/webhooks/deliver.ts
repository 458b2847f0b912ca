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

export async function attemptDelivery(
  services: DeliveryServices,
  sub: SubscriptionForDelivery,
  event: EventForDelivery,
): Promise<{ requestBody: string; result: SendResult }> {
  const { body, contentType } = encodeBody(sub.contentType, buildPayload(sub.payloadFormat, event, sub.id));
  const headers: Record<string, string> = {
    ...(sub.headers as Record<string, string>),
    'content-type': contentType,
    'user-agent': 'crm-webhooks/1',
    ...signatureHeaders(services.box.open(sub.secretEncrypted), event.id, event.type, body),
  };
  const result = await services.sender.send({ url: sub.url, method: sub.httpMethod, headers, body, timeoutMs: sub.timeoutSeconds * 1000 });
  return { requestBody: body, result };
}
