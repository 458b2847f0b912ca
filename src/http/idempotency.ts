// `Idempotency-Key` on POST and PUT under /v1, with Stripe's semantics: the first answer to a key
// is stored for 24 hours and replayed to retries of the same request, so a client that lost an
// answer (timeout, dropped connection) can retry without creating twice. Runs after
// authentication (keys are scoped per API key) and body parsing (the body is part of the request).
import { createHash } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';
import { AppError, validationError } from '../errors.ts';
import type { SecretBox } from '../webhooks/secret-box.ts';
import { IdempotencyStore, type KeyRef } from './idempotency-store.ts';
import { answerVersion, etagOf } from './etag.ts';

const MAX_KEY_LENGTH = 255;
/** Expired keys are ignored at once; their rows are deleted at most this often per instance. */
const CLEANUP_EVERY_MS = 60_000;

/** JSON with object keys sorted, so key order and whitespace do not make two bodies differ. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * What makes two requests "the same": method, path below the API prefix (so /v1 and /api/v1
 * agree), query (`?fields=` shapes the answer) and body. A missing body counts as `{}`, as REST does.
 */
export function requestHash(method: string, path: string, query: unknown, body: unknown): string {
  return createHash('sha256')
    .update([method, path, canonical(query ?? {}), canonical(body ?? {})].join('\n'))
    .digest('hex');
}

/**
 * Answers that are stored and replayed: successes, and client errors that the same request
 * would get again. Not stored: 409 and 412 (a state conflict that may clear, such as a duplicate
 * email since deleted, or a version the client re-read), 429 (retry later is the point) and 5xx
 * (the key is released so a retry runs).
 */
function stored(status: number): boolean {
  return (
    (status >= 200 && status < 300) ||
    (status >= 400 && status < 500 && status !== 409 && status !== 412 && status !== 429)
  );
}

export function idempotency(prisma: Db, logger: Logger, box: SecretBox) {
  const store = new IdempotencyStore(prisma, box);
  let lastCleanup = 0;
  const cleanup = () => {
    if (Date.now() - lastCleanup < CLEANUP_EVERY_MS) return;
    lastCleanup = Date.now();
    store.deleteExpired().catch((err: unknown) => logger.warn({ err }, 'idempotency: deleting expired keys failed'));
  };

  return async (req: Request, res: Response, next: NextFunction): Promise<void> => {
    const key = req.get('idempotency-key');
    if ((req.method !== 'POST' && req.method !== 'PUT') || key === undefined) return next();
    // An export is a read whose answer is a stream of any size: nothing to replay, nothing to store.
    if (req.method === 'POST' && req.path.endsWith('/export')) return next();
    // An import's file is read as it arrives: nothing of it is here to compare a replay with, so a
    // key would replay the first job for any other file. Uploads take no key (docs/imports.md).
    if (req.method === 'POST' && req.path === '/imports') return next();
    // Printable ASCII only: Node hands a header's other bytes over as Latin-1 (a UTF-8 "é" arrives
    // as "Ã©") and lets a tab through, and the key is stored.
    if (key.length < 1 || key.length > MAX_KEY_LENGTH || !/^[\x20-\x7e]+$/.test(key)) {
      const problem = `must be 1 to ${MAX_KEY_LENGTH} printable ASCII characters`;
      return next(validationError({ 'Idempotency-Key': [problem] }));
    }
    // REST is mounted behind the API-key guard only, so the caller is a key.
    const ref: KeyRef = { apiKeyId: res.locals.caller!.keyId!, key };
    const claim = await store.claim(ref, requestHash(req.method, req.path, req.query, req.body));
    cleanup();
    switch (claim.kind) {
      case 'mismatch':
        return next(
          new AppError(
            'unprocessable_entity',
            'This Idempotency-Key was used for a different request (method, path or body); use a new key',
          ),
        );
      case 'in_flight':
        return next(
          new AppError(
            'conflict',
            'A request with this Idempotency-Key is still in progress; retry once it has finished',
          ),
        );
      case 'replay':
        replayRequestId(res, claim.body);
        replayEtag(res, claim.body);
        res.setHeader('Idempotent-Replayed', 'true');
        res.status(claim.status).type('application/json').send(claim.body);
        return;
      case 'claimed':
        settleWithResponse(res, store, ref, claim.claimedAt, logger);
        return next();
    }
  };
}

/**
 * A replay is the first answer byte for byte, `meta.request_id` included, so its `X-Request-Id`
 * (and the access log's request id) is the first call's too: one id names the answer wherever the
 * client reads it. The retry's own id is kept for the log, to find the retry by the id it sent.
 */
function replayRequestId(res: Response, body: string): void {
  res.locals.retryRequestId = res.locals.requestId;
  let first: unknown;
  try {
    first = (JSON.parse(body) as { meta?: { request_id?: unknown } } | null)?.meta?.request_id;
  } catch {
    return; // every stored answer is JSON; without an id to name, the retry's stays
  }
  if (typeof first !== 'string') return;
  res.locals.requestId = first;
  res.setHeader('X-Request-Id', first);
}

/**
 * A replayed single-record answer carries the ETag the first one did: the version in its body
 * (the REST router sets `ETag` from `data.version` the same way, src/http/etag.ts).
 */
function replayEtag(res: Response, body: string): void {
  let data: unknown;
  try {
    data = (JSON.parse(body) as { data?: unknown } | null)?.data;
  } catch {
    return;
  }
  const version = answerVersion(data);
  if (version !== undefined) res.setHeader('ETag', etagOf(version));
}

/**
 * Stores the answer (or releases the key) before it is sent, so a retry that follows the answer
 * always finds it. Every REST answer goes through res.json; one that does not is released.
 */
function settleWithResponse(
  res: Response,
  store: IdempotencyStore,
  ref: KeyRef,
  claimedAt: Date,
  logger: Logger,
): void {
  let settled = false;
  const send = res.json.bind(res);
  res.json = (body: unknown) => {
    if (settled) return send(body);
    settled = true;
    const status = res.statusCode;
    const saving = stored(status)
      ? store.complete(ref, claimedAt, status, JSON.stringify(body))
      : store.release(ref, claimedAt);
    const requestId = res.locals.requestId;
    saving
      .catch((err: unknown) => logger.error({ err, requestId }, 'idempotency: storing the answer failed'))
      .then(() => send(body))
      .catch((err: unknown) => logger.error({ err, requestId }, 'idempotency: sending the answer failed'));
    return res;
  };
  res.on('finish', () => {
    if (settled) return;
    settled = true;
    store
      .release(ref, claimedAt)
      .catch((err: unknown) =>
        logger.error({ err, requestId: res.locals.requestId }, 'idempotency: releasing the key failed'),
      );
  });
}
