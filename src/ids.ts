import { customAlphabet } from 'nanoid';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// nanoid: every character equally likely (bytes past the last whole multiple of 62 are skipped),
// from a pool of secure random bytes refilled in blocks rather than one system call per id.
const base62 = customAlphabet(BASE62, 12);

/** Uniformly random, secure base62 string. */
export function randomBase62(length: number): string {
  return base62(length);
}

/**
 * Opaque identifiers such as `con_0lq3k2x5a9Z8fQ1bT4mN`: a type prefix for readability,
 * a time part so new rows land at the end of indexes, and 12 random base62 characters.
 */
export function newId(prefix: string): string {
  return `${prefix}_${Date.now().toString(36).padStart(9, '0')}${base62()}`;
}
