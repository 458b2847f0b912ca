// Moving plain-HTTP requests to https. The target host never comes from X-Forwarded-Host, and
// from the Host header only when that cannot name someone else's site (localhost or an IP
// address): otherwise a forged header would make this service send its clients, or a cache in
// front of it, to an attacker's host. With PUBLIC_URL set, every redirect goes there.
import net from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.ts';
import { sendError } from '../rest/envelope.ts';

/** The Host header's name when it is localhost or an IP literal; null for anything else. */
function safeHost(req: Request): string | null {
  const host = req.get('host') ?? '';
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]]+)(:\d{1,5})?$/.exec(host);
  if (!m) return null;
  const name = m[1].replace(/^\[|\]$/g, '');
  return name.toLowerCase() === 'localhost' || net.isIP(name) ? m[1] : null;
}

const httpsOnly = () => new AppError('forbidden', 'This service is served over https only: send the request to its https address');

/** Behind a trusted proxy, a request that reached the proxy over plain HTTP is sent to https. */
export function redirectPlainHttp(publicOrigin: string | null) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const proto = String(req.get('x-forwarded-proto') ?? '').split(',')[0].trim().toLowerCase();
    if (proto !== 'http') return next();
    const host = publicOrigin ? null : safeHost(req);
    if (!publicOrigin && !host) return sendError(res, httpsOnly());
    res.redirect(301, `${publicOrigin ?? `https://${host}`}${req.originalUrl}`);
  };
}

/** The plain-HTTP listener of a server that serves TLS itself: everything moves to https. */
export function redirectEverything(httpsPort: number, publicOrigin: string | null) {
  return (req: Request, res: Response): void => {
    const host = publicOrigin ? null : safeHost(req);
    if (!publicOrigin && !host) return sendError(res, httpsOnly());
    const port = httpsPort === 443 ? '' : `:${httpsPort}`;
    res.redirect(301, `${publicOrigin ?? `https://${host}${port}`}${req.originalUrl}`);
  };
}
