// The only code that sends HTTP to receivers. Redirects are not followed (a 3xx is a failure),
// every socket goes through the URL guard, and the whole exchange has a deadline.
import net from 'node:net';
import { Agent } from 'undici';
import { assertPublicTarget, BlockedAddressError, guardedLookup, type UrlPolicy } from './url-guard.ts';
import { parseRetryAfter } from './retry.rules.ts';
import { storableText } from './stored-text.ts';

export const RESPONSE_BODY_LIMIT = 1000;
/** Error texts are kept short: they name a cause, they do not carry a reply. */
const ERROR_LIMIT = 500;

export interface OutgoingRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
  timeoutMs: number;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  responseTimeMs: number;
  /** The first 1000 characters of the response body, storable (see stored-text.ts). */
  responseBody: string | null;
  retryAfter: number | null;
  error: string | null;
}

/**
 * The first RESPONSE_BODY_LIMIT characters of a reply, storable whatever bytes it holds. One
 * streaming decoder reads every chunk, so a character split between chunks (down to 1-byte
 * chunks) is decoded whole; bytes that are not UTF-8 become U+FFFD. Reading stops at the limit,
 * so an endless reply costs no more than a short one.
 */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const decoder = new TextDecoder('utf-8');
  let text = '';
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    // One character more than kept: a pair cut at the limit is dropped whole, not halved.
    if (text.length > RESPONSE_BODY_LIMIT) {
      body.destroy();
      return storableText(text, RESPONSE_BODY_LIMIT);
    }
  }
  return storableText(text + decoder.decode(), RESPONSE_BODY_LIMIT);
}

export class WebhookSender {
  private readonly agent: Agent;

  constructor(private readonly policy: UrlPolicy) {
    this.agent = new Agent({
      connect: { lookup: guardedLookup(policy) as never },
      // Below the 5 s after which common servers (Node's among them) close an idle connection, so a
      // connection is rarely reused as the receiver closes it (undici also honours Keep-Alive hints).
      keepAliveTimeout: 4_000,
      connections: 32,
    });
  }

  async send(req: OutgoingRequest): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      const url = new URL(req.url);
      // IP literals never reach the lookup, so check them here.
      if (net.isIP(url.hostname.replace(/^\[|\]$/g, ''))) await assertPublicTarget(url, this.policy);
      const signal = AbortSignal.timeout(req.timeoutMs);
      const request = () =>
        this.agent.request({
          origin: url.origin,
          path: url.pathname + url.search,
          method: req.method as 'POST',
          headers: req.headers,
          body: req.body,
          signal,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
      // A kept-alive connection the receiver closed as we wrote to it (its idle timeout, or ours
      // running late while the process was busy) fails before any answer: that is no answer of the
      // receiver's, so the request goes once more, on a new connection, within the same timeout.
      const res = await request().catch((err: unknown) => {
        if (!closedUnderUs(err) || signal.aborted) throw err;
        return request();
      });
      const responseBody = await readCapped(res.body).catch(() => null);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfterHeader = res.headers['retry-after'];
      return {
        ok,
        statusCode: res.statusCode,
        responseTimeMs: elapsed(),
        responseBody,
        retryAfter: parseRetryAfter(Array.isArray(retryAfterHeader) ? retryAfterHeader[0] : retryAfterHeader),
        error: ok
          ? null
          : res.statusCode >= 300 && res.statusCode < 400
            ? `redirect (${res.statusCode}) not followed`
            : `receiver answered ${res.statusCode}`,
      };
    } catch (err) {
      return {
        ok: false,
        statusCode: null,
        responseTimeMs: elapsed(),
        responseBody: null,
        retryAfter: null,
        error: describe(err, req.timeoutMs),
      };
    }
  }

  /**
   * Cuts whatever is still under way rather than waiting for it: a shutdown must not wait out
   * a slow receiver's timeout, and by then the worker has released the deliveries concerned.
   */
  close(): Promise<void> {
    return this.agent.destroy();
  }
}

/** The connection was closed or reset before the receiver answered anything. */
function closedUnderUs(err: unknown): boolean {
  const e = err as { code?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  return code === 'UND_ERR_SOCKET' || code === 'ECONNRESET' || code === 'EPIPE';
}

function describe(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string; message?: string } };
  if (
    e.name === 'TimeoutError' ||
    e.name === 'AbortError' ||
    e.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e.code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return `timed out after ${timeoutMs / 1000} s`;
  }
  // Messages may quote what the receiver sent (a malformed status line or header).
  if (err instanceof BlockedAddressError || e.code === 'EBLOCKED' || e.cause?.code === 'EBLOCKED')
    return storableText(`blocked: ${e.cause?.message ?? e.message}`, ERROR_LIMIT);
  return storableText(`connection failed: ${e.cause?.code ?? e.code ?? e.message ?? 'unknown error'}`, ERROR_LIMIT);
}
