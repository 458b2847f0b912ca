// A webhook receiver that checks both signatures before trusting a delivery.
// Run: WEBHOOK_SECRET=whsec_... npx tsx examples/verify-webhook.ts   (listens on :4000)
import crypto from 'node:crypto';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';

/** X-Service-Signature: hex HMAC-SHA256 of the raw body, keyed with the secret's UTF-8 bytes. */
export function verifyServiceSignature(secret: string, rawBody: string, signature: string | undefined): boolean {
  if (!signature) return false;
  const expected = crypto.createHmac('sha256', secret).update(rawBody).digest('hex');
  const a = Buffer.from(expected);
  const b = Buffer.from(signature);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

/**
 * The Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) also reject
 * replays older than five minutes. Secrets not starting with `whsec_` are used as raw bytes.
 * Throws when the signature does not match. The signature covers the raw body whatever its
 * format, so it is checked on the raw body and the library is told not to parse it as JSON:
 * a form-encoded delivery (`payload=<json>`) is not JSON. `eventOf` reads the event after.
 */
export function verifyStandardWebhook(secret: string, rawBody: string, headers: http.IncomingHttpHeaders): void {
  const key = secret.startsWith('whsec_') ? secret : `whsec_${Buffer.from(secret).toString('base64')}`;
  new Webhook(key).verify(
    rawBody,
    {
      'webhook-id': String(headers['webhook-id']),
      'webhook-timestamp': String(headers['webhook-timestamp']),
      'webhook-signature': String(headers['webhook-signature']),
    },
    { jsonParse: false },
  );
}

export interface Delivery {
  id: string;
  event: string;
  data: unknown;
}

/**
 * The event of a verified body: JSON (`content_type: json`), or for `content_type: form` the JSON
 * in the form's `payload` field. Parse only after verifying, and never re-encode before verifying.
 */
export function eventOf(rawBody: string, contentType: string | undefined): Delivery {
  if (contentType?.startsWith('application/x-www-form-urlencoded')) {
    const payload = new URLSearchParams(rawBody).get('payload');
    if (payload === null) throw new Error('a form delivery without a payload field');
    return JSON.parse(payload);
  }
  return JSON.parse(rawBody);
}

export function createReceiver(secret: string, onEvent: (event: Delivery) => void): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8'); // verify the raw body, before any parsing
      try {
        if (!verifyServiceSignature(secret, raw, req.headers['x-service-signature'] as string))
          throw new Error('bad signature');
        verifyStandardWebhook(secret, raw, req.headers);
      } catch {
        res.writeHead(401).end();
        return;
      }
      let event: Delivery;
      try {
        event = eventOf(raw, req.headers['content-type']);
      } catch {
        res.writeHead(400).end();
        return;
      }
      // Deliveries are at-least-once: the event id tells a retry from a new event.
      if (!seen.has(event.id)) {
        seen.add(event.id);
        onEvent(event);
      }
      res.writeHead(204).end(); // answer fast; do slow work after answering
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the secret returned when the webhook was created');
  createReceiver(secret, (e) => console.log(e.event, e.id)).listen(4000, () => console.log('listening on :4000'));
}
