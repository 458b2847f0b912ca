// The response envelopes of the API: `{ success, data, meta }` and `{ success: false, error, meta }`.
import type { Response } from 'express';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, type AppError } from '../errors.ts';

export function meta(res: Response, extra: Record<string, unknown> = {}) {
  return { request_id: res.locals.requestId as string, timestamp: new Date().toISOString(), ...extra };
}

export function sendData(res: Response, status: number, data: unknown, extra?: Record<string, unknown>): void {
  res.status(status).json({ success: true, data, meta: meta(res, extra) });
}

export function sendError(res: Response, err: AppError): void {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  if (err.code === 'service_unavailable') res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
  res.status(err.status).json({ success: false, error, meta: meta(res) });
}
