import { assertAllowed } from '../../auth/scopes.ts';
import { AppError, notFound } from '../../errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { recordEvent } from '../../events/outbox.ts';
import { contactDeleted, contactMerged } from '../../events/catalogue/contact.events.ts';
import { builder } from '../builder.ts';
import { actorOf } from '../context.ts';
import { ErrorInfoType, type ErrorInfo } from '../common/error-info.type.ts';
import { DeleteResult } from '../common/page.ts';
import { issuesToDetails, parseInput } from '../common/validation.ts';
import { bulkInput, contactCreateInput, contactUpdateInput, mergeInput } from './contact.inputs.ts';
import { ContactType } from './contact.type.ts';
import { contactRefusals, createContact, emailTaken, updateContact } from './contact.write.ts';
import { assertVersion, EXPECTED_VERSION_HELP } from '../common/versions.ts';
import { transaction, withRefusals, type Refusals } from '../../db/transaction.ts';
import { mergeContacts } from './merge.rules.ts';
import { activeUsersLoader } from '../user/active-users.loader.ts';
import { zodInput } from '../common/zod-input.ts';

const ContactCreateInput = zodInput(
  'ContactCreateInput',
  contactCreateInput,
  'A new contact: first_name and email are required; the email must be unique in the workspace.',
);
const ContactUpdateInput = zodInput(
  'ContactUpdateInput',
  contactUpdateInput,
  'Fields to change; those left out keep their values, null clears a nullable one.',
);
const ContactBulkInput = zodInput(
  'ContactBulkInput',
  bulkInput,
  'Up to 100 contacts, each created or refused on its own.',
);
const ContactMergeInput = zodInput(
  'ContactMergeInput',
  mergeInput,
  'Two contacts of the workspace to merge, and whose values win (default prefer_primary).',
);

/** A second contact with the same email in the workspace is the client's conflict (409). */
const EMAIL_TAKEN: Refusals = { uniqueViolation: emailTaken };

interface BulkError {
  index: number;
  email: string | null;
  error: ErrorInfo;
}

const BulkErrorType = builder.objectRef<BulkError>('BulkContactError').implement({
  description: 'A row of a bulk request that was not created, and why.',
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Its position in the request, from 0' }),
    email: t.exposeString('email', {
      nullable: true,
      description: 'The email the row gave; null when it gave none that is a string',
    }),
    error: t.field({ type: ErrorInfoType, resolve: (e) => e.error }),
  }),
});

const BulkResult = builder
  .objectRef<{ created: number; failed: number; errors: BulkError[]; contacts: Prisma.ContactGetPayload<object>[] }>(
    'BulkContactResult',
  )
  .implement({
    description: 'What a bulk create did: each row was created or failed on its own.',
    fields: (t) => ({
      created: t.exposeInt('created', { description: 'Rows created' }),
      failed: t.exposeInt('failed', { description: 'Rows refused' }),
      errors: t.field({
        type: [BulkErrorType],
        description: 'One entry per refused row, in request order',
        resolve: (r) => r.errors,
      }),
      contacts: t.field({
        type: [ContactType],
        description: 'The contacts created, in request order',
        resolve: (r) => r.contacts,
      }),
    }),
  });

function bulkError(index: number, row: unknown, err: unknown): BulkError {
  const email =
    row && typeof row === 'object' && typeof (row as { email?: unknown }).email === 'string'
      ? (row as { email: string }).email
      : null;
  if (err instanceof AppError)
    return {
      index,
      email,
      error: { code: err.code, message: err.message, ...(err.details ? { details: err.details } : {}) },
    };
  throw err;
}

builder.mutationFields((t) => ({
  createContact: t.field({
    type: ContactType,
    description: 'Creates a contact (first_name and email required).',
    args: { input: t.arg({ type: ContactCreateInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const input = parseInput(contactCreateInput, args.input);
      return withRefusals(contactRefusals(ctx, input.external_id), () => createContact(ctx.prisma, ctx, input));
    },
  }),
  updateContact: t.field({
    type: ContactType,
    description: 'Partial update: only the fields given change.',
    args: {
      id: t.arg.id({ required: true }),
      input: t.arg({ type: ContactUpdateInput, required: true }),
      expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }),
    },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const input = parseInput(contactUpdateInput, args.input);
      return transaction(
        ctx.prisma,
        (tx) => updateContact(tx, ctx, String(args.id), input, args.expected_version),
        contactRefusals(ctx, input.external_id),
      );
    },
  }),
  deleteContact: t.field({
    type: DeleteResult,
    description: 'Deletes a contact with its notes and deal associations. Irreversible.',
    args: { id: t.arg.id({ required: true }), expected_version: t.arg.int({ description: EXPECTED_VERSION_HELP }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const id = String(args.id);
      return transaction(ctx.prisma, async (tx) => {
        await assertVersion(tx, 'contacts', id, ctx.caller.workspaceId, args.expected_version);
        const contact = await tx.contact.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId } });
        if (!contact) throw notFound('Contact');
        await tx.contact.delete({ where: { id } });
        await recordEvent(tx, {
          ...contactDeleted.build(contact),
          workspaceId: contact.workspaceId,
          contactId: id,
          actor: actorOf(ctx),
        });
        return { id, deleted: true as const };
      });
    },
  }),
  bulkCreateContacts: t.field({
    type: BulkResult,
    description: 'Creates up to 100 contacts; each row succeeds or fails on its own.',
    args: { input: t.arg({ type: ContactBulkInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const { contacts: rows } = parseInput(bulkInput, args.input);
      const result = {
        created: 0,
        failed: 0,
        errors: [] as BulkError[],
        contacts: [] as Prisma.ContactGetPayload<object>[],
      };
      const parsedRows = rows.map((row) => contactCreateInput.safeParse(row));
      // The users the rows name, in one statement: each row's check then finds its answer loaded.
      const named = parsedRows.flatMap((p) => (p.success && p.data.assigned_to ? [p.data.assigned_to] : []));
      await activeUsersLoader(ctx).loadMany(named);
      for (const [index, row] of rows.entries()) {
        try {
          const parsed = parsedRows[index];
          if (!parsed.success)
            throw new AppError(
              'validation_error',
              'The contact has invalid fields',
              issuesToDetails(parsed.error.issues),
            );
          const refusals = contactRefusals(ctx, parsed.data.external_id);
          result.contacts.push(await withRefusals(refusals, () => createContact(ctx.prisma, ctx, parsed.data)));
          result.created++;
        } catch (err) {
          result.errors.push(bulkError(index, row, err));
          result.failed++;
        }
      }
      return result;
    },
  }),
  mergeContacts: t.field({
    type: ContactType,
    description: 'Merges the secondary contact into the primary, then deletes the secondary.',
    args: { input: t.arg({ type: ContactMergeInput, required: true }) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const input = parseInput(mergeInput, args.input);
      if (input.primary_id === input.secondary_id) {
        throw new AppError('unprocessable_entity', 'A contact cannot be merged with itself', {
          secondary_id: ['must differ from primary_id'],
        });
      }
      return transaction(
        ctx.prisma,
        async (tx) => {
          const ws = ctx.caller.workspaceId;
          const [primary, secondary] = await Promise.all([
            tx.contact.findFirst({ where: { id: input.primary_id, workspaceId: ws } }),
            tx.contact.findFirst({ where: { id: input.secondary_id, workspaceId: ws } }),
          ]);
          if (!primary || !secondary) throw notFound('Contact');
          const merged = mergeContacts(primary, secondary, input.merge_strategy);
          await moveRelated(tx, primary.id, secondary.id);
          await tx.contact.delete({ where: { id: secondary.id } });
          const { address, customFields, ...rest } = merged;
          const result = await tx.contact.update({
            where: { id: primary.id },
            data: {
              ...rest,
              customFields: customFields as Prisma.InputJsonObject,
              address: (address ?? undefined) as Prisma.InputJsonObject | undefined,
            },
          });
          await recordEvent(tx, {
            ...contactMerged.build({ contact: result, merged: secondary, strategy: input.merge_strategy }),
            workspaceId: ws,
            contactId: primary.id,
            actor: actorOf(ctx),
          });
          return result;
        },
        EMAIL_TAKEN,
      );
    },
  }),
}));

/** Deals, associations, activities, notes, tasks and timeline of the secondary move to the primary. */
async function moveRelated(tx: Prisma.TransactionClient, primaryId: string, secondaryId: string) {
  await tx.note.updateMany({ where: { contactId: secondaryId }, data: { contactId: primaryId } });
  await tx.deal.updateMany({ where: { contactId: secondaryId }, data: { contactId: primaryId } });
  await tx.activity.updateMany({ where: { contactId: secondaryId }, data: { contactId: primaryId } });
  await tx.task.updateMany({
    where: { relatedToType: 'contact', relatedToId: secondaryId },
    data: { relatedToId: primaryId },
  });
  await tx.event.updateMany({ where: { contactId: secondaryId }, data: { contactId: primaryId } });
  // A deal linked to both keeps the primary's association; the secondary's is dropped with it.
  const primaryDeals = await tx.dealContact.findMany({ where: { contactId: primaryId }, select: { dealId: true } });
  await tx.dealContact.updateMany({
    where: { contactId: secondaryId, dealId: { notIn: primaryDeals.map((d) => d.dealId) } },
    data: { contactId: primaryId },
  });
}
