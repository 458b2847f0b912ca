import { z } from 'zod';
import { CUSTOM_FIELD_TYPES } from './custom-field.rules.ts';
import { customFieldAuditFields, insertCustomField, MAX_CUSTOM_FIELDS } from './custom-field.write.ts';
import { notFound } from '../../errors.ts';
import { builder } from '../builder.ts';
import { actorOf } from '../context.ts';
import { auditStatement, diff } from '../../events/audit.ts';
import { DeleteResult } from '../common/page.ts';
import { parseInput } from '../common/validation.ts';
import { assertSignedInUser } from '../common/signed-in.ts';
import { assertLiveCaller } from '../common/live-only.ts';
import { CustomFieldType } from './custom-field.type.ts';
import { definitionsLoader } from './custom-field.loader.ts';
import { zodInput } from '../common/zod-input.ts';

const createInput = z.strictObject({
  key: z.string().max(64, 'must be at most 64 characters'),
  label: z.string().trim().max(255, 'must be at most 255 characters').nullable().optional(),
  type: z.enum(CUSTOM_FIELD_TYPES),
  options: z
    .array(z.string().max(255, 'options must be at most 255 characters'))
    .max(100, 'at most 100 options')
    .optional(),
});
const CustomFieldCreateInput = zodInput(
  'CustomFieldCreateInput',
  createInput,
  'A new custom field: a key (letters, digits, underscores), a type, and for select fields the options.',
);

builder.mutationFields((t) => ({
  createCustomField: t.prismaField({
    type: CustomFieldType,
    description:
      `Defines a custom field for contacts and deals of the workspace (at most ${MAX_CUSTOM_FIELDS}). ` +
      'Signed-in users in the production environment only.',
    args: { input: t.arg({ type: CustomFieldCreateInput, required: true }) },
    resolve: async (_query, _root, args, ctx) => {
      assertSignedInUser(ctx);
      assertLiveCaller(ctx, 'Custom field definitions');
      const input = parseInput(createInput, args.input);
      const definition = await insertCustomField(
        ctx.prisma,
        {
          workspace: ctx.caller.accountId,
          key: input.key,
          type: input.type,
          options: input.options,
          label: input.label ?? undefined,
        },
        actorOf(ctx),
      );
      // Later writes of the same document check their values against the new definition.
      definitionsLoader(ctx).clearAll();
      return definition;
    },
  }),
  deleteCustomField: t.field({
    type: DeleteResult,
    description:
      "Removes a definition and the field's values from the workspace's contacts and deals (both environments).",
    args: { id: t.arg.id({ required: true }) },
    resolve: async (_root, args, ctx) => {
      assertSignedInUser(ctx);
      assertLiveCaller(ctx, 'Custom field definitions');
      const def = await ctx.prisma.customFieldDefinition.findFirst({
        where: { id: String(args.id), workspaceId: ctx.caller.accountId },
      });
      if (!def) throw notFound('Custom field');
      const workspaces = await ctx.prisma.workspace.findMany({
        where: { OR: [{ id: def.workspaceId }, { liveId: def.workspaceId }] },
        select: { id: true },
      });
      const ids = workspaces.map((w) => w.id);
      // Values of an undefined key would never be checked again, and writes keep them: drop them with the definition.
      await ctx.prisma.$transaction([
        ctx.prisma.$executeRaw`UPDATE contacts SET custom_fields = custom_fields - ${def.key}
          WHERE workspace_id = ANY(${ids}) AND custom_fields ? ${def.key}`,
        ctx.prisma.$executeRaw`UPDATE deals SET custom_fields = custom_fields - ${def.key}
          WHERE workspace_id = ANY(${ids}) AND custom_fields ? ${def.key}`,
        ctx.prisma.customFieldDefinition.delete({ where: { id: def.id } }),
        auditStatement(ctx.prisma, {
          workspaceId: def.workspaceId,
          actor: actorOf(ctx),
          resource: 'custom_field',
          recordId: def.id,
          action: 'deleted',
          changes: diff(customFieldAuditFields(def), null),
        }),
      ]);
      definitionsLoader(ctx).clearAll();
      return { id: def.id, deleted: true as const };
    },
  }),
}));
