// Users, their preferences, API keys and custom field definitions belong to the live workspace
// (a sandbox shares them read-only): a sandbox caller, key or dashboard session in the sandbox
// environment, changes sandbox data only.
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';

export function assertLiveCaller(ctx: Context, what: string): void {
  if (ctx.caller.sandbox) {
    throw new AppError(
      'forbidden',
      `${what} belong to the live workspace; a sandbox key or session may read them but not change them`,
    );
  }
}
