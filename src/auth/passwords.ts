// Dashboard passwords: argon2id with the library's defaults (19 MiB, 2 passes, the OWASP
// recommendation). Only the PHC string (algorithm, parameters, salt, hash) is stored.
import { hash, verify } from '@node-rs/argon2';
import { validationError } from '../errors.ts';

export const PASSWORD_MIN = 10;
/** argon2 hashes any length, but an unbounded input would let one request burn CPU. */
export const PASSWORD_MAX = 1024;

export function checkPasswordRules(password: string): void {
  if (password.length < PASSWORD_MIN)
    throw validationError({ password: [`must be at least ${PASSWORD_MIN} characters`] });
  if (password.length > PASSWORD_MAX)
    throw validationError({ password: [`must be at most ${PASSWORD_MAX} characters`] });
}

export function hashPassword(password: string): Promise<string> {
  checkPasswordRules(password);
  return hash(password);
}

let decoy: Promise<string> | null = null;

/**
 * argon2 verifications this process has run: each costs about 20 MiB and tens of milliseconds, so
 * sign-in must run exactly one per attempt, whatever the address matches (the tests count them).
 */
export const passwordChecks = { count: 0 };

/**
 * Whether the password matches. Without a stored hash (unknown e-mail, no password set) a decoy
 * hash is checked anyway, so the answer takes as long as for a real account.
 */
export async function verifyPassword(stored: string | null, password: string): Promise<boolean> {
  if (password.length > PASSWORD_MAX) return false;
  passwordChecks.count++;
  if (!stored) {
    decoy ??= hash('decoy password that matches nothing');
    await verify(await decoy, password).catch(() => false);
    return false;
  }
  return verify(stored, password).catch(() => false);
}
