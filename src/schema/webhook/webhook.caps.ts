// Test sends and redeliveries draw from the workspace's outbound caps (and test sends from the
// destination host's); a refusal is a rate_limited error with the wait in seconds. Redeliveries
// also need a signing secret this instance can open, or nothing could be sent.
import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';

export async function assertOutboundRoom(
  ctx: Context,
  kind: 'test' | 'redeliver',
  sub: { workspaceId: string; url: string },
  requests: number,
): Promise<void> {
  const d = await ctx.webhooks.limits.take(kind, sub.workspaceId, sub.url, requests);
  if (!d.allowed)
    throw new AppError('rate_limited', `Refused: ${d.reason}; retry in ${d.retryAfterSeconds} s`, undefined, {
      retryAfter: d.retryAfterSeconds,
    });
}

/** A 422 when this instance's ENCRYPTION_KEY cannot open the subscription's signing secret. */
export function assertSecretUsable(ctx: Context, sub: { secretEncrypted: string }): void {
  if (!ctx.webhooks.box.canOpen(sub.secretEncrypted))
    throw new AppError(
      'unprocessable_entity',
      "This webhook's signing secret cannot be decrypted with this instance's ENCRYPTION_KEY; " +
        'start it with the key the secret was sealed with, or rotate the secret (rotate_secret: true)',
    );
}
