// E-mail addresses of users are compared exactly, after one normalisation applied everywhere an
// address comes in (sign-in, CLI, lockout counting) and to every stored address: never as a
// pattern, so `%` or `_` in an address are just characters.
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
