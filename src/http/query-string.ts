// Query strings whose percent-encoded bytes are not UTF-8 (`%FF`, a lone surrogate's `%ED%A0%80`,
// the overlong `%C0%80`) are refused, naming the parameter: Node's query string decoder would
// turn them into U+FFFD and a filter or search would run on text the client never sent. Path
// parameters are checked the same way by the REST router.
import { isUtf8 } from 'node:buffer';
import type { NextFunction, Request, Response } from 'express';
import { validationError } from '../errors.ts';

export const NOT_UTF8_MESSAGE = 'is not valid percent-encoded UTF-8';

/** The bytes a query string component stands for: %XX escapes decoded, `+` a space, other characters as they came. */
function bytesOf(component: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < component.length; i++) {
    const c = component.charCodeAt(i);
    if (c === 0x25 && /^[0-9a-f]{2}$/i.test(component.slice(i + 1, i + 3))) {
      bytes.push(parseInt(component.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (c === 0x2b) bytes.push(0x20);
    else if (c < 0x80) bytes.push(c);
    else bytes.push(...Buffer.from(component[i], 'latin1'));
  }
  return Buffer.from(bytes);
}

/** The name of the first parameter whose name or value is not UTF-8; null when all are. */
export function notUtf8Parameter(url: string): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  for (const part of url.slice(q + 1).split('&')) {
    const eq = part.indexOf('=');
    const name = bytesOf(eq < 0 ? part : part.slice(0, eq));
    if (!isUtf8(name)) return '_query';
    if (eq >= 0 && !isUtf8(bytesOf(part.slice(eq + 1)))) return name.toString('utf8');
  }
  return null;
}

export function refuseNonUtf8Query(req: Request, _res: Response, next: NextFunction): void {
  const name = notUtf8Parameter(req.originalUrl);
  if (name === null) return next();
  next(validationError({ [name]: [NOT_UTF8_MESSAGE] }));
}
