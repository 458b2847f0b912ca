import { z } from 'zod';
import { SCOPES } from '../../auth/scopes.ts';
import { notFound, validationError } from '../../errors.ts';
import { builder } from '../builder.ts';
import { isoDateOrTime, name255, parseInput } from '../common/validation.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { ApiKeyType, CreatedApiKey } from './api-key.type.ts';
import { insertApiKey, revokeKey } from './api-key.write.ts';
import { actorOf } from '../context.ts';
import { zodInput } from '../common/zod-input.ts';

const createInput = z.strictObject({
  name: name255.min(1, 'is required'),
  scope: z.enum(SCOPES),
  permissions: z.array(z.string().max(64)).max(50).optional(),
  expires_at: isoDateOrTime.nullable().optional(),
});
const ApiKeyCreateInput = zodInput(
  'ApiKeyCreateInput',
  createInput,
  'A new key: a name, a scope, and for custom keys the permissions (resource:read or resource:write).',
);

builder.mutationFields((t) => ({
  createApiKey: t.field({
    type: CreatedApiKey,
    description:
      "Creates a key for the session's workspace and environment, owned by the signed-in user. " +
      'The key is returned only here.',
    args: { input: t.arg({ type: ApiKeyCreateInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      const user = assertSignedInUser(ctx);
      const input = parseInput(createInput, args.input);
      if (input.expires_at && input.expires_at.getTime() <= Date.now()) {
        throw validationError({ expires_at: ['must be in the future'] });
      }
      const { row, key } = await insertApiKey(
        ctx.prisma,
        {
          workspace: ctx.caller.accountId,
          name: input.name,
          scope: input.scope,
          permissions: input.permissions,
          sandbox: ctx.caller.sandbox,
          expiresAt: input.expires_at?.toISOString(),
          userId: user.id,
        },
        actorOf(ctx),
      );
      return { api_key: row, key };
    },
  }),
  revokeApiKey: t.prismaField({
    type: ApiKeyType,
    description:
      "Revokes a key of the workspace and the session's environment at once; revoking a revoked key changes nothing.",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (query, _root, args, ctx) => {
      assertSignedInUser(ctx);
      // A sandbox session manages sandbox keys only, as it lists them.
      const key = await ctx.prisma.apiKey.findFirst({
        where: { id: String(args.id), workspaceId: ctx.caller.accountId, sandbox: ctx.caller.sandbox },
      });
      if (!key) throw notFound('API key');
      await revokeKey(ctx.prisma, key, actorOf(ctx));
      const row = await ctx.prisma.apiKey.findUniqueOrThrow({ ...query, where: { id: key.id } });
      // Every instance drops the key and closes what it holds open (credential-notices.ts).
      ctx.credentials.keysChanged([key.hash]);
      return row;
    },
  }),
}));
