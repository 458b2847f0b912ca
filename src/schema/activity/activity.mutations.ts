import { assertAllowed } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { recordEvent } from '../../events/outbox.ts';
import { activityLogged } from '../../events/catalogue/activity.events.ts';
import { builder } from '../builder.ts';
import { actorOf, type Context } from '../context.ts';
import { parseInput } from '../common/validation.ts';
import { activityCreateInput, type ActivityCreateInput } from './activity.inputs.ts';
import { ActivityType } from './activity.type.ts';
import { zodInput } from '../common/zod-input.ts';
import { transaction } from '../../db/transaction.ts';
import { externalIdTaken } from '../common/external-id.ts';

const ActivityCreateInput = zodInput(
  'ActivityCreateInput',
  activityCreateInput,
  'An interaction that happened: a call, email, meeting, note or SMS, with whom and how it went.',
);

type Tx = Prisma.TransactionClient;

/**
 * An activity records something that already happened, so unknown contacts do not refuse it:
 * an unknown contact_id (or attendee) is left out and reported in the warnings.
 */
async function knownContacts(tx: Tx, ctx: Context, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await tx.contact.findMany({
    where: { id: { in: ids }, workspaceId: ctx.caller.workspaceId },
    select: { id: true },
  });
  return new Set(rows.map((r) => r.id));
}

/**
 * A deal or company is named on purpose (unlike a contact met in passing): an unknown one refuses
 * the activity, and every unknown one is named in the details at once.
 */
async function refuseUnknownLinks(tx: Tx, ctx: Context, input: ActivityCreateInput): Promise<void> {
  const workspaceId = ctx.caller.workspaceId;
  const links = [
    { field: 'deal_id', id: input.deal_id, exists: (id: string) => tx.deal.count({ where: { id, workspaceId } }) },
    {
      field: 'company_id',
      id: input.company_id,
      exists: (id: string) => tx.company.count({ where: { id, workspaceId } }),
    },
  ] as const;
  const unknown: Record<string, string[]> = {};
  const said: string[] = [];
  for (const { field, id, exists } of links) {
    if (!id || (await exists(id))) continue;
    const kind = field.replace('_id', '');
    unknown[field] = [`unknown ${kind}`];
    said.push(`${field} does not name a ${kind} of this workspace`);
  }
  if (said.length) throw new AppError('unprocessable_entity', said.join('; '), unknown);
}

async function logActivity(tx: Tx, ctx: Context, input: ActivityCreateInput) {
  await refuseUnknownLinks(tx, ctx, input);
  const attendees = input.attendees ?? [];
  const known = await knownContacts(tx, ctx, [...(input.contact_id ? [input.contact_id] : []), ...attendees]);
  const contactId = input.contact_id && known.has(input.contact_id) ? input.contact_id : null;
  if (input.contact_id && !contactId) {
    ctx.warnings.push(
      `contact_id "${input.contact_id}" does not name a contact of this workspace; ` +
        'the activity was logged without a contact',
    );
  }
  const unknownAttendees = attendees.filter((a) => !known.has(a));
  if (unknownAttendees.length) ctx.warnings.push(`attendees not found and left out: ${unknownAttendees.join(', ')}`);

  const activity = await tx.activity.create({
    data: {
      id: newId('act'),
      workspaceId: ctx.caller.workspaceId,
      type: input.type,
      subject: input.subject ?? null,
      description: input.description ?? null,
      contactId,
      dealId: input.deal_id ?? null,
      companyId: input.company_id ?? null,
      userId: ctx.caller.userId,
      duration: input.duration ?? null,
      outcome: input.outcome ?? null,
      occurredAt: input.occurred_at ?? new Date(),
      attendees: attendees.filter((a) => known.has(a)),
      externalId: input.external_id ?? null,
    },
  });
  await recordEvent(tx, {
    ...activityLogged.build(activity),
    workspaceId: activity.workspaceId,
    contactId,
    actor: actorOf(ctx),
  });
  return activity;
}

builder.mutationField('createActivity', (t) =>
  t.field({
    type: ActivityType,
    description:
      'Logs an activity (type required). An unknown contact_id or attendee is dropped with a warning ' +
      '(meta.warnings / extensions.warnings); an unknown deal_id or company_id is refused (422).',
    args: { input: t.arg({ type: ActivityCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'activities', 'write');
      const input = parseInput(activityCreateInput, args.input);
      const externalId = input.external_id;
      return transaction(ctx.prisma, (tx) => logActivity(tx, ctx, input), {
        // Its deal or company deleted (or merged away) between the check and the insert.
        foreignKeyViolation: () =>
          new AppError('conflict', 'Something the activity refers to was removed meanwhile; retry the request'),
        // The only unique key an activity can take: its external_id, another activity's.
        uniqueViolation: () =>
          externalId
            ? externalIdTaken('activity', () =>
                ctx.prisma.activity.findFirst({
                  where: { workspaceId: ctx.caller.workspaceId, externalId },
                  select: { id: true },
                }),
              )
            : new AppError('conflict', 'The activity conflicts with another'),
      });
    },
  }),
);
