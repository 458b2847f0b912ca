import type { NextFunction, Request, Response } from 'express';

/** Behind a trusted proxy, a request that reached the proxy over plain HTTP is sent to https. */
export function redirectPlainHttp(req: Request, res: Response, next: NextFunction): void {
  const proto = String(req.get('x-forwarded-proto') ?? '').split(',')[0].trim().toLowerCase();
  if (proto === 'http') {
    res.redirect(301, `https://${req.get('x-forwarded-host') ?? req.get('host')}${req.originalUrl}`);
    return;
  }
  next();
}

/** The plain-HTTP listener of a server that serves TLS itself: everything moves to https. */
export function redirectEverything(httpsPort: number) {
  return (req: Request, res: Response): void => {
    const host = (req.get('host') ?? 'localhost').replace(/:\d+$/, '');
    const port = httpsPort === 443 ? '' : `:${httpsPort}`;
    res.redirect(301, `https://${host}${port}${req.originalUrl}`);
  };
}
