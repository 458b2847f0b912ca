// Delivery signatures: X-Service-Signature (hex HMAC-SHA256 of the raw body, keyed with the
// secret's UTF-8 bytes) and the Standard Webhooks headers for replay-safe verification.
import { createHmac } from 'node:crypto';

export function serviceSignature(secret: string, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(body).digest('hex');
}

/** Standard Webhooks key: the base64 part of a `whsec_` secret, else the secret's bytes. */
function standardKey(secret: string): Buffer {
  return secret.startsWith('whsec_') ? Buffer.from(secret.slice(6), 'base64') : Buffer.from(secret, 'utf8');
}

export function signatureHeaders(
  secret: string,
  eventId: string,
  eventName: string,
  body: string,
  now = new Date(),
): Record<string, string> {
  const seconds = Math.floor(now.getTime() / 1000).toString();
  const standard = createHmac('sha256', standardKey(secret)).update(`${eventId}.${seconds}.${body}`).digest('base64');
  return {
    'X-Service-Signature': serviceSignature(secret, body),
    'X-Service-Event': eventName,
    'X-Service-Event-Id': eventId,
    'X-Service-Timestamp': seconds,
    'webhook-id': eventId,
    'webhook-timestamp': seconds,
    'webhook-signature': `v1,${standard}`,
  };
}
