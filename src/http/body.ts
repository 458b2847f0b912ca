import { isUtf8 } from 'node:buffer';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors.ts';
import { parseStrictJson } from './strict-json.ts';

export const BODY_LIMIT = '1mb';

/** Whether the request declares a body (a length above 0, or chunked). */
export const hasBody = (req: Request) =>
  Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;

/** The content types of JSON bodies: application/json and structured-syntax JSON (application/vnd.api+json, ...). */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Only JSON bodies are accepted; a body of another type is a 415. */
export function requireJson(req: Request, _res: Response, next: NextFunction): void {
  if (hasBody(req) && !req.is(JSON_TYPES)) {
    req.resume();
    return next(
      new AppError('unsupported_media_type', 'Send request bodies as JSON with Content-Type: application/json'),
    );
  }
  next();
}

/** The charset a JSON body declares; JSON travels as UTF-8 (RFC 8259), and no other is read. */
function declaresOtherCharset(req: Request): boolean {
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(req.get('content-type') ?? '')?.[1].toLowerCase();
  return charset !== undefined && charset !== 'utf-8' && charset !== 'utf8';
}

/**
 * Reads JSON bodies of up to `limit` bytes as strictly as parseStrictJson does. The bytes must be
 * UTF-8: a decoder would turn the others into U+FFFD and store a value the client never sent.
 */
export function jsonBody(limit: string) {
  return [
    // Every type requireJson admits is read. express.json parses only application/json by default,
    // so an `application/*+json` body was admitted but never read: on REST a valid body was ignored
    // (a create failed with "is required", an update changed nothing and answered 200), and on
    // /graphql yoga answered an empty 415 (found by the security fuzz tests).
    (req: Request, _res: Response, next: NextFunction): void => {
      if (!hasBody(req) || !declaresOtherCharset(req)) return next();
      req.resume();
      next(new AppError('unsupported_media_type', 'Unsupported body encoding; send UTF-8 JSON'));
    },
    express.raw({ limit, type: JSON_TYPES }),
    (req: Request, _res: Response, next: NextFunction): void => {
      if (!Buffer.isBuffer(req.body)) return next();
      const bytes: Buffer = req.body;
      if (bytes.length === 0) {
        req.body = {};
        return next();
      }
      if (!isUtf8(bytes)) return next(new AppError('malformed_request', 'The request body is not valid UTF-8'));
      // A byte order mark is no part of the JSON text.
      const text = bytes.toString('utf8').replace(/^\uFEFF/, '');
      try {
        req.body = parseStrictJson(text);
      } catch (err) {
        return next(err);
      }
      next();
    },
  ];
}

/** Parses JSON bodies of up to BODY_LIMIT. */
export const parseJson = jsonBody(BODY_LIMIT);

/** Maps body-parser failures to the API's errors: too large a body is a 413, an unknown Content-Encoding a 415. */
export function bodyErrors(err: unknown, _req: Request, _res: Response, next: NextFunction): void {
  const type = (err as { type?: string }).type;
  if (type === 'entity.too.large') {
    return next(new AppError('payload_too_large', `The request body is larger than ${BODY_LIMIT}`));
  }
  if (type === 'encoding.unsupported') {
    return next(new AppError('unsupported_media_type', 'Unsupported body encoding; send UTF-8 JSON'));
  }
  next(err);
}
