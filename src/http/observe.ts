// One JSON log line and the HTTP metrics for every request, written when its response ends.
import type { NextFunction, Request, Response } from 'express';
import type { Logger } from 'pino';
import type { Metrics } from '../metrics.ts';

declare module 'express-serve-static-core' {
  interface Locals {
    /** The route pattern that answered (`/v1/contacts/:id`), set by routers that match paths themselves. */
    route?: string;
    /** On an idempotent replay, the retry's own request id (`requestId` is then the first call's). */
    retryRequestId?: string;
  }
}

/** Label of every request no route matched, so stray paths cannot multiply the series. */
export const UNMATCHED = 'unmatched';
/** Probes and scrapes come every few seconds: logged at debug unless they fail. */
const QUIET_ROUTES = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * The route pattern, never the raw path (ids would make a series per record): the REST
 * router's pattern, else an Express route's, else the mount point of the middleware that
 * answered (`/graphql`, or `/v1` when authentication refused before any route matched).
 */
function routeOf(req: Request, res: Response): string {
  if (res.locals.route) return res.locals.route;
  const expressRoute: unknown = req.route?.path;
  if (typeof expressRoute === 'string') return req.baseUrl + expressRoute;
  return res.statusCode === 404 || !req.baseUrl ? UNMATCHED : req.baseUrl;
}

export function observeRequests(logger: Logger, metrics: Metrics) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    // 'close' comes for every request, also when the client went away before the answer.
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = routeOf(req, res);
      const aborted = !res.writableFinished;
      // 499: the client closed the connection first (nginx's convention).
      const status = aborted ? 499 : res.statusCode;
      const labels = { method: req.method, route, status: String(status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, seconds);
      const caller = res.locals.caller;
      const level = status >= 500 ? 'error' : QUIET_ROUTES.has(route) ? 'debug' : 'info';
      // Never headers or bodies: they carry keys, webhook secrets and personal data.
      logger[level](
        {
          requestId: res.locals.requestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
          route,
          status,
          durationMs: Math.round(seconds * 1e4) / 10,
          workspaceId: caller?.workspaceId,
          keyId: caller?.keyId ?? undefined,
          userId: caller?.user?.id,
          ...(aborted && { aborted }),
          // A replayed answer is logged under the first call's id, with the retry's own id beside it.
          ...(res.locals.retryRequestId !== undefined && { retryRequestId: res.locals.retryRequestId }),
        },
        'request',
      );
    });
    next();
  };
}
