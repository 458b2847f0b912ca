import express, { type NextFunction, type Request, type Response } from 'express';
import { AppError } from '../errors.ts';
import { sendFailure } from './failure.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.ts';

export const BODY_LIMIT = '1mb';

const hasBody = (req: Request) => Number(req.get('content-length') ?? 0) > 0 || req.get('transfer-encoding') !== undefined;

/** The content types of JSON bodies: application/json and structured-syntax JSON (application/vnd.api+json, ...). */
const JSON_TYPES = ['application/json', 'application/*+json'];

/** Only JSON bodies are accepted; a body of another type is a 415. */
export function requireJson(req: Request, res: Response, next: NextFunction): void {
  if (hasBody(req) && !req.is(JSON_TYPES)) {
    req.resume();
    return sendFailure(req, res, new AppError('unsupported_media_type', 'Send request bodies as JSON with Content-Type: application/json'));
  }
  next();
}

/** Parses JSON bodies and refuses those nested deeper than MAX_JSON_DEPTH. */
export const parseJson = [
  // Every type requireJson admits is parsed. express.json parses only application/json by default,
  // so an `application/*+json` body was admitted but never read: on REST a valid body was ignored
  // (a create failed with "is required", an update changed nothing and answered 200), and on
  // /graphql yoga answered an empty 415 (found by the security fuzz tests).
  express.json({ limit: BODY_LIMIT, strict: false, type: JSON_TYPES }),
  (req: Request, res: Response, next: NextFunction): void => {
    if (!nestedDeeperThan(req.body)) return next();
    sendFailure(req, res, new AppError('malformed_request', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep`));
  },
];

/** Maps body-parser failures to the API's errors: bad JSON is a 400, too large a 413. */
export function bodyErrors(err: unknown, req: Request, res: Response, next: NextFunction): void {
  const type = (err as { type?: string }).type;
  if (type === 'entity.parse.failed') return sendFailure(req, res, new AppError('malformed_request', 'The request body is not valid JSON'));
  if (type === 'entity.too.large') return sendFailure(req, res, new AppError('payload_too_large', `The request body is larger than ${BODY_LIMIT}`));
  if (type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return sendFailure(req, res, new AppError('unsupported_media_type', 'Unsupported body encoding; send UTF-8 JSON'));
  }
  next(err);
}
