// The dashboard's pages: the built bundle (scripts/build-dashboard.mjs → dist/dashboard) and
// index.html for every other path under /dashboard, where the app routes in the browser.
// The /dashboard/api routes are mounted before this and answer their own paths.
import fs from 'node:fs';
import path from 'node:path';
import express, { type NextFunction, type Request, type Response } from 'express';
import staticCompressed from 'express-static-gzip';
import { AppError } from '../errors.ts';
import { projectRoot } from '../project-root.ts';

const DEFAULT_DIR = path.join(projectRoot, 'dist/dashboard');

/** Everything the pages load comes from this origin; no inline script or style is allowed. */
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  // 'self' covers the ws:/wss: subscription socket of the same host.
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The page a one-time password link opens: it never tells another site where it came from. */
const NO_REFERRER_PATHS = new Set(['/set-password', '/set-password/']);

function securityHeaders(req: Request, res: Response, next: NextFunction) {
  res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Referrer-Policy', NO_REFERRER_PATHS.has(req.path) ? 'no-referrer' : 'same-origin');
  next();
}

/** A path that is not valid percent-encoding gets the error envelope, not the library's plain-text 400. */
function refuseMalformedPath(req: Request, _res: Response, next: NextFunction) {
  try {
    decodeURIComponent(req.path);
  } catch {
    return next(new AppError('malformed_request', 'The path is not valid percent-encoding'));
  }
  next();
}

/**
 * A file sender's own refusals (a Range past the end, an If-Match that fails) as the error
 * envelope, not a 500, and without the headers set for the file: a compressed body's encoding,
 * its type, its year of caching.
 */
function fileRefusals(err: unknown, _req: Request, res: Response, next: NextFunction) {
  const status = (err as { status?: unknown } | null)?.status;
  if (err instanceof AppError || typeof status !== 'number' || status < 400 || status >= 500) return next(err);
  for (const header of ['Content-Encoding', 'Content-Type', 'Content-Range', 'Cache-Control', 'ETag', 'Last-Modified'])
    res.removeHeader(header);
  if (status === 412)
    return next(new AppError('precondition_failed', 'The file does not meet the request’s conditions'));
  if (status === 404) return next(new AppError('not_found', 'No such dashboard file'));
  next(new AppError('malformed_request', `The file cannot be sent as asked (${status}): check the Range header`));
}

export function dashboardPages(dir = DEFAULT_DIR) {
  const router = express.Router();
  const indexFile = path.join(dir, 'index.html');
  router.use(securityHeaders);
  // Bundle names carry a content hash: a new build gets new names, so they can be cached for good.
  // The build writes each script and style sheet compressed beside it (.br, .gz): a browser that
  // accepts either gets it, with no compression work per request.
  router.use(
    '/assets',
    refuseMalformedPath,
    staticCompressed(path.join(dir, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: false,
      serveStatic: { immutable: true, maxAge: '365d', index: false },
    }),
    (req, _res, next) => next(new AppError('not_found', `No dashboard asset ${req.path}`)),
  );
  router.get(/.*/, (req, res, next) => {
    // Unknown session API paths get the API's 404, not a page.
    if (req.path === '/api' || req.path.startsWith('/api/')) return next();
    if (!fs.existsSync(indexFile)) {
      return next(new AppError('service_unavailable', 'The dashboard is not built: run `npm run build:dashboard`'));
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexFile);
  });
  router.use(fileRefusals);
  return router;
}
