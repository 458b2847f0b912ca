import { assertAllowed } from '../../auth/scopes.ts';
import { newId } from '../../ids.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import { recordEvent } from '../../events/outbox.ts';
import { noteCreated } from '../../events/catalogue/note.events.ts';
import { builder } from '../builder.ts';
import { actorOf } from '../context.ts';
import { pageType } from '../common/page.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { noteInput } from './contact.inputs.ts';
import { findContact } from './contact.queries.ts';
import { sortArg } from '../common/sort.ts';
import { zodInput } from '../common/zod-input.ts';
import { transaction } from '../../db/transaction.ts';
import { versionDescription } from '../common/versions.ts';

export const NoteType = builder.prismaObject('Note', {
  description: 'A markdown note on a contact.',
  fields: (t) => ({
    id: t.exposeID('id'),
    contact_id: t.exposeString('contactId'),
    content: t.exposeString('content', { description: 'Markdown' }),
    created_by: t.exposeString('createdBy', {
      nullable: true,
      description: 'Id of the user behind the key or session that wrote it; null when the key belongs to no user',
    }),
    version: t.exposeInt('version', { description: versionDescription }),
    created_at: t.expose('createdAt', { type: 'DateTime' }),
    updated_at: t.expose('updatedAt', { type: 'DateTime' }),
  }),
});

const NotePage = pageType('NotePage', NoteType);
const NoteCreateInput = zodInput('NoteCreateInput', noteInput, 'A note: markdown content, up to 100,000 characters.');
const NOTE_SORT: SortSpec = { default: '-created_at', fields: { created_at: { field: 'createdAt', type: 'date' } } };

builder.queryField('contactNotes', (t) =>
  t.field({
    type: NotePage,
    description: 'Notes of a contact, newest first.',
    args: {
      contactId: t.arg.id({ required: true }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
      sort: sortArg(t, 'NoteSort', NOTE_SORT),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      const contact = await findContact(ctx.prisma, ctx, String(args.contactId));
      return findPage(args, NOTE_SORT, {
        list: `contact_notes:${contact.id}`,
        where: { contactId: contact.id },
        fetch: (q) => ctx.prisma.note.findMany(q as Prisma.NoteFindManyArgs),
        count: (where) => ctx.prisma.note.count({ where }),
      });
    },
  }),
);

builder.mutationField('createNote', (t) =>
  t.field({
    type: NoteType,
    description: 'Adds a markdown note to a contact.',
    args: { contactId: t.arg.id({ required: true }), input: t.arg({ type: NoteCreateInput, required: true }) },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      const { content } = parseInput(noteInput, args.input);
      return transaction(ctx.prisma, async (tx) => {
        const contact = await findContact(tx, ctx, String(args.contactId));
        const note = await tx.note.create({
          data: {
            id: newId('note'),
            workspaceId: contact.workspaceId,
            contactId: contact.id,
            content,
            createdBy: ctx.caller.userId,
          },
        });
        await recordEvent(tx, {
          ...noteCreated.build(note),
          workspaceId: contact.workspaceId,
          contactId: contact.id,
          actor: actorOf(ctx),
        });
        return note;
      });
    },
  }),
);
