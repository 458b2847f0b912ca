// API keys: `crm_live_<32 base62>` for production data, `crm_test_<32 base62>` for the sandbox.
// Only a SHA-256 hash is stored; keys carry 190 bits of entropy, so a fast hash is enough.
import { createHash } from 'node:crypto';
import { randomBase62 } from '../ids.ts';

export const KEY_PATTERN = /^crm_(live|test)_[0-9A-Za-z]{32}$/;

export function generateApiKey(sandbox: boolean): string {
  return `crm_${sandbox ? 'test' : 'live'}_${randomBase62(32)}`;
}

/** What is stored instead of a secret token (API keys, dashboard session tokens): its SHA-256, hex. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

export const hashApiKey = hashToken;

/** What may be shown of a key after creation: its prefix and first characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, 13);
}
