import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/** Every response names the API version and a request id (the client's, when it sent a sane one). */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  const given = req.get('x-request-id');
  const id = given && SAFE_ID.test(given) ? given : `req_${randomUUID().replace(/-/g, '')}`;
  res.locals.requestId = id;
  res.setHeader('X-Request-Id', id);
  res.setHeader('X-API-Version', 'v1');
  next();
}
