// The dashboard's import routes under /dashboard/api, as the signed-in user: the session cookie
// stands in for the API key, and the REST handler answers exactly as on /v1 (the same upload
// reader, size limit, silence timeout, refusals and permission checks, and the same operations).
// - POST /imports: the upload; the session's CSRF token is required, as on every write.
// - GET /imports/:id: the job (the upload's Location); with the CSRF token, as /graphql reads.
// - GET /imports/:id/failed-rows: the CSV, by a plain link so the browser saves it as it arrives.
//   No CSRF token: it changes nothing, the cookie is SameSite=Lax (never sent with another site's
//   subresource requests) and no other site can read the answer.
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { RateLimits } from '../auth/rate-limit.ts';
import type { SessionStore } from '../auth/sessions.ts';
import { AppError } from '../errors.ts';
import { authenticateSession } from '../http/auth.ts';
import { requestOrigin } from '../http/origin.ts';
import { refuseNonUtf8Query } from '../http/query-string.ts';
import type { Metrics } from '../metrics.ts';
import { sendError } from './errors.ts';

type Handler = (req: Request, res: Response, next: NextFunction) => Promise<void>;

export function dashboardImportRoutes(deps: {
  sessions: SessionStore;
  limits: RateLimits;
  metrics: Metrics;
  /** The REST API's handler (rest/router.ts): it finds the /imports route by the path below the mount. */
  rest: Handler;
}): Router {
  const { sessions, limits, metrics, rest } = deps;
  const withCsrf = authenticateSession(sessions, limits, metrics);
  const withoutCsrf = authenticateSession(sessions, limits, metrics, { csrf: false });
  const asDashboard = requestOrigin(() => 'dashboard');
  const router = Router();
  router.use('/imports', (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    next();
  });
  router.post('/imports', withCsrf, asDashboard, refuseNonUtf8Query, rest);
  router.get('/imports/:id/failed-rows', withoutCsrf, asDashboard, refuseNonUtf8Query, rest);
  router.get('/imports/:id', withCsrf, asDashboard, refuseNonUtf8Query, rest);
  router.use((err: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (err instanceof AppError) return sendError(res, err);
    next(err);
  });
  return router;
}
