import { builder } from '../builder.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { CustomFieldType } from './custom-field.type.ts';

builder.queryFields((t) => ({
  customFields: t.prismaField({
    type: [CustomFieldType],
    description: 'Custom field definitions of the workspace, by key. Signed-in users only.',
    resolve: (query, _root, _args, ctx) => {
      assertSignedInUser(ctx);
      return ctx.prisma.customFieldDefinition.findMany({
        ...query,
        where: { workspaceId: ctx.caller.accountId },
        orderBy: { key: 'asc' },
      });
    },
  }),
}));
