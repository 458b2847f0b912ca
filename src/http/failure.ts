import type { Request, Response } from 'express';
import type { AppError } from '../errors.ts';
import { sendError } from '../rest/envelope.ts';

/** Answers an error before any operation ran: GraphQL's error shape on /graphql, the envelope elsewhere. */
export function sendFailure(req: Request, res: Response, err: AppError): void {
  if (req.originalUrl.startsWith('/graphql')) {
    res.status(err.status).json({ errors: [{ message: err.message, extensions: { code: err.code, status: err.status, ...(err.details ? { details: err.details } : {}) } }] });
    return;
  }
  sendError(res, err);
}
