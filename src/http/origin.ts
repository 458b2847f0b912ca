// Marks a request's writes with their origin (events/origin.ts): REST, GraphQL, or the dashboard
// (GraphQL with the session cookie), the request id and the client's address by the proxy rules.
import type { NextFunction, Request, Response } from 'express';
import { withOrigin, type Via } from '../events/origin.ts';

export const requestOrigin =
  (via: (req: Request) => Via) =>
  (req: Request, res: Response, next: NextFunction): void =>
    withOrigin({ via: via(req), requestId: res.locals.requestId ?? null, ip: req.ip ?? null }, next);
