import { builder } from '../builder.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { ApiKeyType } from './api-key.type.ts';

/** Lists are bounded everywhere; a dashboard shows at most this many keys. */
export const API_KEYS_SHOWN = 200;

builder.queryFields((t) => ({
  apiKeys: t.prismaField({
    type: [ApiKeyType],
    description:
      "Keys of the workspace for the session's environment (production or sandbox), newest first, " +
      `revoked ones included, at most ${API_KEYS_SHOWN}. Signed-in users only.`,
    resolve: (query, _root, _args, ctx) => {
      assertSignedInUser(ctx);
      return ctx.prisma.apiKey.findMany({
        ...query,
        where: { workspaceId: ctx.caller.accountId, sandbox: ctx.caller.sandbox },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: API_KEYS_SHOWN,
      });
    },
  }),
}));
