// Webhook URLs must be https and reach public addresses only: no loopback, private, link-local,
// CGNAT, metadata or other special ranges. Checked when a subscription is saved and again at
// connect time, on the address actually connected to (so DNS rebinding cannot slip through).
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';
import { validationError } from '../errors.ts';

export interface UrlPolicy {
  allowHttp: boolean;
  allowPrivate: boolean;
  /** DNS resolution; replaceable so tests can stub it. */
  resolve?: (hostname: string) => Promise<string[]>;
}

const defaultResolve = async (hostname: string) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

/** Global unicast IPv6 (RFC 4291 §2.4): everything IANA has ever allocated for public use. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * ipaddr.js names every special range (and unwraps IPv4-mapped IPv6); only plain public unicast
 * is allowed. ipaddr.js calls "unicast" whatever it has no name for, which for IPv6 includes the
 * deprecated IPv4-compatible form (`::127.0.0.1`, i.e. `::7f00:1`) and unallocated space, so
 * IPv6 must also lie in 2000::/3. NAT64 (64:ff9b::/96, 64:ff9b:1::/48), 6to4 and Teredo are
 * named ranges and refused: they lead to an IPv4 address through a translator.
 */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.process(ip);
  if (addr.range() !== 'unicast') return false;
  return addr instanceof ipaddr.IPv4 || addr.match(GLOBAL_UNICAST_V6);
}

export class BlockedAddressError extends Error {
  constructor(host: string, address?: string) {
    super(`${host}${address && address !== host ? ` (${address})` : ''} is not a public address`);
    this.name = 'BlockedAddressError';
  }
}

/** Shape checks that need no network: a valid absolute URL with an allowed scheme. */
export function parseWebhookUrl(raw: string, policy: UrlPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw validationError({ url: ['must be an absolute URL'] });
  }
  if (url.protocol !== 'https:' && !(policy.allowHttp && url.protocol === 'http:'))
    throw validationError({ url: ['must use https'] });
  if (url.username || url.password) throw validationError({ url: ['must not carry credentials'] });
  if (raw.length > 2048) throw validationError({ url: ['must be at most 2048 characters'] });
  return url;
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** Resolves the host and refuses any non-public address (all of them must be public). */
export async function assertPublicTarget(url: URL, policy: UrlPolicy): Promise<void> {
  if (policy.allowPrivate) return;
  const host = bareHost(url);
  const addresses = net.isIP(host)
    ? [host]
    : await (policy.resolve ?? defaultResolve)(host).catch(() => {
        throw new BlockedAddressError(host, 'does not resolve');
      });
  const blocked = addresses.find((a) => !isPublicAddress(a));
  if (blocked || addresses.length === 0) throw new BlockedAddressError(host, blocked);
}

/** Save-time check, reported as a 400 on the `url` field. */
export async function validateWebhookUrl(raw: string, policy: UrlPolicy): Promise<string> {
  const url = parseWebhookUrl(raw, policy);
  try {
    await assertPublicTarget(url, policy);
  } catch (err) {
    if (err instanceof BlockedAddressError)
      throw validationError({ url: [`must point to a publicly reachable host: ${err.message}`] });
    throw err;
  }
  return url.toString();
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/** A `lookup` for outbound sockets that only ever hands out public addresses. */
export function guardedLookup(policy: UrlPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback): void => {
    const resolve = policy.resolve ?? defaultResolve;
    resolve(hostname)
      .then((addresses) => {
        const allowed = policy.allowPrivate ? addresses : addresses.filter(isPublicAddress);
        if (allowed.length === 0 || allowed.length !== addresses.length) {
          return callback(
            Object.assign(
              new BlockedAddressError(
                hostname,
                addresses.find((a) => !isPublicAddress(a)),
              ),
              { code: 'EBLOCKED' },
            ),
            '',
            0,
          );
        }
        if (options.all)
          return callback(
            null,
            allowed.map((address) => ({ address, family: net.isIP(address) })),
          );
        callback(null, allowed[0], net.isIP(allowed[0]));
      })
      .catch((err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}
