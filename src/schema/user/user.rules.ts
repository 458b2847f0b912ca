import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';
import { activeUsersLoader } from './active-users.loader.ts';

type UserReader = Pick<Context['prisma'], 'user'>;

/**
 * `assigned_to`, `owner_id` and `assignee_id` must name an active user of the account (else 422).
 * `tx` is the transaction the write runs in, read through; null outside one, where the request's
 * loader answers (a read beside an open transaction would wait for it on PGlite's one connection).
 */
export async function assertActiveUser(
  tx: UserReader | null,
  ctx: Context,
  userId: string | null | undefined,
  field: string,
): Promise<void> {
  if (userId === null || userId === undefined) return;
  const where = { id: userId, workspaceId: ctx.caller.accountId, active: true };
  const active = tx
    ? Boolean(await tx.user.findFirst({ where, select: { id: true } }))
    : await activeUsersLoader(ctx).load(userId);
  if (!active) {
    const message = `${field} does not name an active user of this workspace`;
    throw new AppError('unprocessable_entity', message, { [field]: ['unknown or inactive user'] });
  }
}
