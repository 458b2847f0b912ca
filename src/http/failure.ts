// Shared HTTP middleware refuses a request by passing an AppError to `next`; each surface mounts
// the error answer of its own shape (REST's envelope, GraphQL's errors) built with `errorAnswer`.
import type { NextFunction, Request, Response } from 'express';
import { AppError, internalError } from '../errors.ts';

/** Writes a surface's answer to a refused or failed request. */
export type SendFailure = (res: Response, err: AppError) => void;

/**
 * Express error middleware answering with `send`: an AppError as it is; anything else is
 * unexpected, so it is reported (logged with its request) and answered as internalError says.
 */
export function errorAnswer(send: SendFailure, onInternalError: (err: unknown, req: Request) => void) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    if (!(err instanceof AppError)) onInternalError(err, req);
    if (res.headersSent) return;
    send(res, err instanceof AppError ? err : internalError(err));
  };
}
