// A request's body must arrive within HTTP_REQUEST_TIMEOUT_MS of its start, or its connection is
// closed (a client sending its body slowly holds nothing for long: slow loris). Node's own
// requestTimeout does this for the whole server; it is timed here instead, so that the one route
// whose body may be a 1 GiB file (POST /v1/imports) can lift it once it reads that body, which it
// times by silence rather than length (rest/import/import.upload.ts). Until then, and when that
// route refuses the request first (a bad key), the deadline holds for it too.
import type { Request, RequestHandler } from 'express';
import { hasBody } from './body.ts';

/** Lifts the deadline of a request whose handler times its body itself. */
export function liftBodyDeadline(req: Request): void {
  (req.res?.locals.liftBodyDeadline as (() => void) | undefined)?.();
}

export function bodyDeadline(ms: number): RequestHandler {
  return (req, res, next) => {
    if (req.complete || !hasBody(req)) return next();
    const timer = setTimeout(() => {
      if (req.complete) return;
      // As Node answers its own requestTimeout: 408, and the connection closed.
      if (!res.headersSent) res.writeHead(408, { connection: 'close', 'content-length': '0' }).end();
      req.socket.destroySoon();
    }, ms);
    const clear = () => clearTimeout(timer);
    res.locals.liftBodyDeadline = clear;
    // 'end' once the body is read; 'close' when the request is done with or its connection gone.
    // (Not the socket's own events: a kept-alive socket would hold every request it carried.)
    req.once('end', clear);
    req.once('close', clear);
    next();
  };
}
