// Text the service stores faithfully. PostgreSQL's text and jsonb types refuse the NUL character,
// and a lone UTF-16 surrogate (half of a character, which JSON's \ud800 escape can carry) is either
// refused (jsonb) or replaced on the way in (text): neither is stored faithfully. The other C0
// control characters (U+0001 to U+001F but tab, line feed and carriage return) and DEL (U+007F)
// mean nothing in a CRM's text, and each one a JSON answer holds is sent as a 6-byte \u escape,
// so a stored note of them grows six-fold on every read. All of these are refused up front,
// wherever they are in a request, as the client's validation error.
import { validationError } from '../../errors.ts';

export const UNSTORABLE_MESSAGE =
  'must not contain control characters (other than tab, line feed and carriage return) or an unpaired UTF-16 surrogate';

// With the u flag a paired surrogate is one code point, so \p{Cs} matches only unpaired halves.
const UNSTORABLE = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F\p{Cs}]/u;

export function isStorable(text: string): boolean {
  return !UNSTORABLE.test(text);
}

const NOT_DATABASE_TEXT = /[\u0000\p{Cs}]/u;

/** Whether PostgreSQL can hold `text` at all: looser than isStorable, for values read back from it (cursors). */
export function isDatabaseText(text: string): boolean {
  return !NOT_DATABASE_TEXT.test(text);
}

/** The path (`a.b.0`) of the first string, or object key, in `value` that cannot be stored; null when all can. */
export function unstorablePath(value: unknown, prefix: string[] = []): string | null {
  if (typeof value === 'string') return isStorable(value) ? null : prefix.join('.') || '_';
  if (typeof value !== 'object' || value === null) return null;
  // Depth first with one frame per open object or list, not one entry per value, and no recursion:
  // a deeply nested value must not overflow the call stack, and a list of 10^5 items (a 1 MiB body
  // holds that many) must cost no more memory than its nesting does.
  const frames: Frame[] = [frameOf(value)];
  const path = [...prefix];
  while (frames.length) {
    const frame = frames[frames.length - 1];
    if (frame.next === frame.size) {
      frames.pop();
      if (frames.length) path.pop();
      continue;
    }
    const index = frame.next++;
    const key = frame.keys?.[index];
    if (key !== undefined && !isStorable(key)) return [...path, '_key'].join('.');
    const child = key !== undefined ? (frame.item as Record<string, unknown>)[key] : (frame.item as unknown[])[index];
    if (typeof child === 'string') {
      if (!isStorable(child)) return [...path, key ?? String(index)].join('.');
    } else if (typeof child === 'object' && child !== null) {
      frames.push(frameOf(child));
      path.push(key ?? String(index));
    }
  }
  return null;
}

/** An object or list being walked: its keys (none for a list, walked by index), and the next to visit. */
interface Frame {
  item: object;
  keys: string[] | null;
  size: number;
  next: number;
}

function frameOf(item: object): Frame {
  const keys = Array.isArray(item) ? null : Object.keys(item);
  return { item, keys, size: keys ? keys.length : (item as unknown[]).length, next: 0 };
}

/** Throws a 400 validation_error naming the first unstorable string of `value`. */
export function assertStorable(value: unknown, prefix?: string): void {
  const path = unstorablePath(value, prefix ? [prefix] : []);
  if (path) throw validationError({ [path]: [UNSTORABLE_MESSAGE] });
}
