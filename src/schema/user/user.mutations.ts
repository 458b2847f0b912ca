import { assertAllowed } from '../../auth/scopes.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import { builder } from '../builder.ts';
import { actorOf } from '../context.ts';
import { assertLiveCaller } from '../common/live-only.ts';
import { parseInput } from '../common/validation.ts';
import { preferencesInput } from './preferences.rules.ts';
import { findUser } from './user.queries.ts';
import { UserType } from './user.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { assertLockedVersion, EXPECTED_VERSION_HELP, staleVersion } from '../common/versions.ts';

const NotificationPreferencesInput = zodInput(
  'NotificationPreferencesInput',
  preferencesInput,
  'The channels to switch on (true) or off (false); those left out keep their setting.',
);

builder.mutationField('updateNotificationPreferences', (t) =>
  t.field({
    type: UserType,
    description:
      'Switches the channels task reminders may use for a user. Needs tasks:write and a live (crm_live_) key.',
    args: {
      userId: t.arg.id({ required: true }),
      input: t.arg({ type: NotificationPreferencesInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: async (_root, args, ctx) => {
      // Preferences only decide whether task reminders fire, so they are guarded like tasks.
      assertAllowed(ctx.caller, 'tasks', 'write');
      assertLiveCaller(ctx, 'Users and their preferences');
      const input = parseInput(preferencesInput, args.input);
      const user = await findUser(ctx.prisma, ctx, String(args.userId));
      const expected = args.expected_version ?? null;
      assertLockedVersion(user, expected);
      if (Object.keys(input).length === 0) return user;
      // Merged in the database, so concurrent changes to different channels both survive; with an
      // expected version, only onto that version (one statement, so no change slips in between).
      const written = await ctx.prisma.$transaction(async (tx) => {
        const n = await tx.$executeRaw`
          UPDATE users
          SET notification_preferences = notification_preferences || ${JSON.stringify(input)}::jsonb, updated_at = now()
          WHERE id = ${user.id} AND (${expected}::int IS NULL OR version = ${expected}::int)`;
        if (n > 0) {
          const now = await findUser(tx, ctx, user.id);
          await recordAudit(tx, {
            workspaceId: ctx.caller.workspaceId,
            actor: actorOf(ctx),
            resource: 'user',
            recordId: user.id,
            action: 'updated',
            changes: diff(
              { notification_preferences: user.notificationPreferences },
              { notification_preferences: now.notificationPreferences },
            ),
          });
        }
        return n;
      });
      const after = await findUser(ctx.prisma, ctx, user.id);
      if (written === 0 && expected !== null) throw staleVersion(expected, after.version);
      return after;
    },
  }),
);
