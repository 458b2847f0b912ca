import { AppError } from '../../errors.ts';
import type { Context } from '../context.ts';

type UserReader = Pick<Context['prisma'], 'user'>;

/** `assigned_to`, `owner_id` and `assignee_id` must name an active user of the account (else 422). */
export async function assertActiveUser(db: UserReader, ctx: Context, userId: string | null | undefined, field: string): Promise<void> {
  if (userId === null || userId === undefined) return;
  const user = await db.user.findFirst({ where: { id: userId, workspaceId: ctx.caller.accountId, active: true }, select: { id: true } });
  if (!user) throw new AppError('unprocessable_entity', `${field} does not name an active user of this workspace`, { [field]: ['unknown or inactive user'] });
}
