// Settings of the workspace a key acts on (a sandbox twin has its own): what a key may read, and
// change with full access.
import { z } from 'zod';
import { AppError } from '../../errors.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import { actorOf } from '../context.ts';
import { builder } from '../builder.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';

interface Settings {
  linkContactsByDomain: boolean;
}

const WorkspaceSettingsType = builder.objectRef<Settings>('WorkspaceSettings').implement({
  description: 'How the workspace behaves.',
  fields: (t) => ({
    link_contacts_by_domain: t.exposeBoolean('linkContactsByDomain', {
      description:
        "A contact created without company_id is linked to the company whose domain is its e-mail's domain " +
        '(exactly: a subdomain does not match). Default false.',
    }),
  }),
});

export const settingsInput = z.object({
  link_contacts_by_domain: z.boolean('must be true or false').optional(),
});

const WorkspaceSettingsInput = zodInput(
  'WorkspaceSettingsInput',
  settingsInput,
  'Settings to change; those left out keep their values.',
);

const select = { linkContactsByDomain: true } as const;

builder.queryField('workspaceSettings', (t) =>
  t.field({
    type: WorkspaceSettingsType,
    description: "The settings of the key's workspace (any key may read them).",
    resolve: (_root, _args, ctx) =>
      ctx.prisma.workspace.findUniqueOrThrow({ where: { id: ctx.caller.workspaceId }, select }),
  }),
);

builder.mutationField('updateWorkspaceSettings', (t) =>
  t.field({
    type: WorkspaceSettingsType,
    description: 'Changes settings of the workspace; full-access keys only.',
    args: { input: t.arg({ type: WorkspaceSettingsInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      if (ctx.caller.scope !== 'full')
        throw new AppError('forbidden', 'Only a full-access key may change the workspace settings');
      const input = parseInput(settingsInput, args.input);
      const settings = await ctx.prisma.$transaction(async (tx) => {
        const before = await tx.workspace.findUniqueOrThrow({ where: { id: ctx.caller.workspaceId }, select });
        const after = await tx.workspace.update({
          where: { id: ctx.caller.workspaceId },
          data: { linkContactsByDomain: input.link_contacts_by_domain },
          select,
        });
        await recordAudit(tx, {
          workspaceId: ctx.caller.workspaceId,
          actor: actorOf(ctx),
          resource: 'settings',
          recordId: ctx.caller.workspaceId,
          action: 'updated',
          changes: diff(
            { link_contacts_by_domain: before.linkContactsByDomain },
            { link_contacts_by_domain: after.linkContactsByDomain },
          ),
        });
        return after;
      });
      // Keys of the workspace read the setting when they authenticate: every instance drops
      // their cached identities now (credential-notices.ts).
      ctx.credentials.workspaceChanged(ctx.caller.workspaceId);
      return settings;
    },
  }),
);
