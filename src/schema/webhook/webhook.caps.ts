// Test sends and redeliveries draw from the workspace's outbound caps (and test sends from the
// destination host's); a refusal is a rate_limited error with the wait in seconds.
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
