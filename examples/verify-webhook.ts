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
 */
export function verifyStandardWebhook(secret: string, rawBody: string, headers: http.IncomingHttpHeaders): unknown {
  const key = secret.startsWith('whsec_') ? secret : `whsec_${Buffer.from(secret).toString('base64')}`;
  return new Webhook(key).verify(rawBody, {
    'webhook-id': String(headers['webhook-id']),
    'webhook-timestamp': String(headers['webhook-timestamp']),
    'webhook-signature': String(headers['webhook-signature']),
  });
}

export function createReceiver(secret: string, onEvent: (event: { id: string; event: string; data: unknown }) => void): http.Server {
  const seen = new Set<string>();
  return http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8'); // verify the raw body, before any parsing
      try {
        if (!verifyServiceSignature(secret, raw, req.headers['x-service-signature'] as string)) throw new Error('bad signature');
        verifyStandardWebhook(secret, raw, req.headers);
      } catch {
        res.writeHead(401).end();
        return;
      }
      const event = JSON.parse(raw);
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
