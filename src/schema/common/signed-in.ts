// Fields for the dashboard's signed-in users only: an API key cannot manage keys (it could mint
// itself a wider one) nor the workspace's custom field definitions.
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';

export function assertSignedInUser(ctx: Context): { id: string; name: string } {
  if (!ctx.caller.user)
    throw new AppError('forbidden', 'Only a user signed in to the dashboard may do this; API keys may not');
  return ctx.caller.user;
}
