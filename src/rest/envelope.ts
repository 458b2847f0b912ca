// The response envelopes of the API: `{ success, data, meta }`, and for errors
// `{ success: false, error, meta }` (written by REST's error translator, errors.ts).
import type { Response } from 'express';

export function meta(res: Response, extra: Record<string, unknown> = {}) {
  return { request_id: res.locals.requestId as string, timestamp: new Date().toISOString(), ...extra };
}

export function sendData(res: Response, status: number, data: unknown, extra?: Record<string, unknown>): void {
  res.status(status).json({ success: true, data, meta: meta(res, extra) });
}
