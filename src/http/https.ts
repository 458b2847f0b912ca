// Moving plain-HTTP requests to https. The target host never comes from X-Forwarded-Host (a proxy
// may pass a client's value through, and caches in front do not key on it). With PUBLIC_URL set,
// every redirect goes there; with ALLOWED_HOSTS, to the Host header only when it names one of
// them (or localhost, or an IP address); with neither, to the Host header the request itself was
// sent to, as long as it is a well-formed host name.
import net from 'node:net';
import type { NextFunction, Request, Response } from 'express';
import { AppError } from '../errors.ts';

/** Config's PUBLIC_URL (as an origin) and ALLOWED_HOSTS. */
export interface RedirectPolicy {
  publicOrigin: string | null;
  allowedHosts: string[] | null;
}

// A Host header: a bracketed IPv6 address (net.isIP checks it in target) or a DNS name (labels of
// 1 to 63 letters, digits and inner hyphens, an optional trailing dot), then an optional port.
const IPV6 = String.raw`\[[0-9a-fA-F:.]+\]`;
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(String.raw`^(${IPV6}|${LABEL}(?:\.${LABEL})*\.?)(:\d{1,5})?$`);

/** The request's Host name (lowercased, no trailing dot) and port, or null when malformed or not allowed. */
function allowedHost(req: Request, policy: RedirectPolicy): { name: string; port: string } | null {
  const m = HOST.exec(req.get('host') ?? '');
  if (!m) return null;
  const name = m[1]
    .replace(/^\[|\]$/g, '')
    .replace(/\.$/, '')
    .toLowerCase();
  if (m[1].startsWith('[') && net.isIP(name) !== 6) return null;
  const local = name === 'localhost' || net.isIP(name) !== 0;
  if (policy.allowedHosts && !local && !policy.allowedHosts.includes(name)) return null;
  return { name: m[1].toLowerCase().replace(/\.$/, ''), port: m[2] ?? '' };
}

/** The https origin a plain-HTTP request may be sent to, or null when its Host may not be used. */
function target(req: Request, policy: RedirectPolicy, port: string): string | null {
  if (policy.publicOrigin) return policy.publicOrigin;
  const host = allowedHost(req, policy);
  // The Host's own port is the plain one: https is on the default port behind a proxy, or on PORT.
  return host && `https://${host.name}${port}`;
}

/**
 * The origin links sent to people are built on (password links): PUBLIC_URL when set, else the
 * scheme (by the proxy rules) and Host the request was sent to, by the same rules as redirects.
 */
export function linkOriginOf(req: Request, policy: RedirectPolicy): string | null {
  if (policy.publicOrigin) return policy.publicOrigin;
  const host = allowedHost(req, policy);
  // Behind a proxy the scheme comes from X-Forwarded-Proto, which a client may have chosen
  // (`javascript:…`): only http and https make a link.
  const scheme = req.protocol;
  if (scheme !== 'http' && scheme !== 'https') return null;
  // The Host header's port is kept; a proxy's X-Forwarded-Host is never used.
  return host && `${scheme}://${host.name}${host.port}`;
}

const httpsOnly = () =>
  new AppError('forbidden', 'This service is served over https only: send the request to its https address');

/** Behind a trusted proxy, a request that reached the proxy over plain HTTP is sent to https. */
export function redirectPlainHttp(policy: RedirectPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const proto = String(req.get('x-forwarded-proto') ?? '')
      .split(',')[0]
      .trim()
      .toLowerCase();
    if (proto !== 'http') return next();
    const origin = target(req, policy, '');
    if (!origin) return next(httpsOnly());
    res.redirect(301, `${origin}${req.originalUrl}`);
  };
}

/** The plain-HTTP listener of a server that serves TLS itself: everything moves to https. */
export function redirectEverything(httpsPort: number, policy: RedirectPolicy) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = target(req, policy, httpsPort === 443 ? '' : `:${httpsPort}`);
    if (!origin) return next(httpsOnly());
    res.redirect(301, `${origin}${req.originalUrl}`);
  };
}
