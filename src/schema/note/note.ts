// Notes: markdown written on a contact or on a company, never both (a CHECK in the database).
// Each is read and written with the permission of the record it belongs to: a contact's notes
// are contact data, a company's notes company data, as their timelines are.
import { assertAllowed } from '../../auth/scopes.ts';
import { AppError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Note, Prisma } from '../../db/generated/client/client.ts';
import { recordEvent } from '../../events/outbox.ts';
import { noteCreated } from '../../events/catalogue/note.events.ts';
import { builder } from '../builder.ts';
import { actorOf, type Context } from '../context.ts';
import { pageType } from '../common/page.ts';
import {
  findPage,
  pageOf,
  parseLimit,
  parseSort,
  type ListArgs,
  type Page,
  type SortSpec,
} from '../common/pagination.ts';
import { parseInput } from '../common/validation.ts';
import { noteInput } from '../contact/contact.inputs.ts';
import { findContact } from '../contact/contact.queries.ts';
import { findCompany } from '../company/company.queries.ts';
import { CompanyType } from '../company/company.type.ts';
import { ContactType } from '../contact/contact.type.ts';
import { sortEnum } from '../common/sort.ts';
import { zodInput } from '../common/zod-input.ts';
import { transaction } from '../../db/transaction.ts';
import { versionDescription } from '../common/versions.ts';
import { firstNotesLoader, noteCountLoader, type NoteOwner } from './notes.loader.ts';

export const NoteType = builder.prismaObject('Note', {
  description: 'A markdown note on a contact or on a company.',
  fields: (t) => ({
    id: t.exposeID('id'),
    contact_id: t.exposeString('contactId', {
      nullable: true,
      description: 'The contact the note is on; null for a note on a company',
    }),
    company_id: t.exposeString('companyId', {
      nullable: true,
      description: 'The company the note is on; null for a note on a contact',
    }),
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

/** The record a note belongs to, as its column and the list name its cursors are issued for. */
type Owner = { contactId: string } | { companyId: string };

function notePage(ctx: Context, list: string, owner: Owner, args: ListArgs) {
  return findPage(args, NOTE_SORT, {
    list,
    where: { ...owner, workspaceId: ctx.caller.workspaceId },
    fetch: (q) => ctx.prisma.note.findMany(q as Prisma.NoteFindManyArgs),
    count: (where) => ctx.prisma.note.count({ where }),
  });
}

const pageArgs = builder.args((t) => ({
  limit: t.int({ description: 'Page size, 1 to 100 (default 25).' }),
  cursor: t.string({ description: 'next_cursor of the previous page.' }),
  sort: t.field({
    type: [sortEnum('NoteSort', NOTE_SORT)],
    description: 'Sort order, first value first. Default created_at_desc.',
  }),
}));

builder.queryField('contactNotes', (t) =>
  t.field({
    type: NotePage,
    description: 'Notes of a contact, newest first.',
    args: { contactId: t.arg.id({ required: true }), ...pageArgs },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      const contact = await findContact(ctx.prisma, ctx, String(args.contactId));
      return notePage(ctx, `contact_notes:${contact.id}`, { contactId: contact.id }, args);
    },
  }),
);

async function companyNotes(ctx: Context, companyId: string, args: ListArgs) {
  assertAllowed(ctx.caller, 'companies', 'read');
  const company = await findCompany(ctx.prisma, ctx, companyId);
  return notePage(ctx, `company_notes:${company.id}`, { companyId: company.id }, args);
}

builder.queryField('companyNotes', (t) =>
  t.field({
    type: NotePage,
    description: 'Notes of a company, newest first.',
    args: { companyId: t.arg.id({ required: true }), ...pageArgs },
    resolve: (_root, args, ctx) => companyNotes(ctx, String(args.companyId), args),
  }),
);

/**
 * The notes of a contact or company already read, and readable, where it was found (a list, a
 * deal's company): the same page as contactNotes / companyNotes, without looking the record up
 * again. A first page is read together with those of the other records of the request, and its
 * total with theirs.
 */
function notesOf(ctx: Context, owner: NoteOwner, id: string, args: ListArgs): Promise<Page<Note>> {
  assertAllowed(ctx.caller, owner === 'contact' ? 'contacts' : 'companies', 'read');
  const list = `${owner}_notes:${id}`;
  const where: Owner = owner === 'contact' ? { contactId: id } : { companyId: id };
  if (args.cursor) return notePage(ctx, list, where, args);
  const limit = parseLimit(args.limit);
  const keys = parseSort(args.sort, NOTE_SORT);
  const total = () => noteCountLoader(ctx, owner).load(id);
  return firstNotesLoader(ctx, owner, keys, limit)
    .load(id)
    .then((rows) => pageOf(list, keys, limit, rows, total));
}

builder.prismaObjectFields(CompanyType, (t) => ({
  notes: t.field({
    type: NotePage,
    description: 'Notes on the company, newest first (as companyNotes).',
    args: pageArgs,
    resolve: (company, args, ctx) => notesOf(ctx, 'company', company.id, args),
  }),
}));

builder.prismaObjectFields(ContactType, (t) => ({
  notes: t.field({
    type: NotePage,
    description: 'Notes on the contact, newest first (as contactNotes).',
    args: pageArgs,
    resolve: (contact, args, ctx) => notesOf(ctx, 'contact', contact.id, args),
  }),
}));

const NoteCreateInputArg = { type: NoteCreateInput, required: true } as const;

/** Writes a note on its record with the note.created event its timeline reads, in one transaction. */
async function writeNote(ctx: Context, input: unknown, owner: (tx: Prisma.TransactionClient) => Promise<Owner>) {
  const { content } = parseInput(noteInput, input);
  // The contact or company deleted or merged away between its lookup and the note's insert.
  const gone = () => new AppError('not_found', 'The record the note is on was removed meanwhile');
  return transaction(
    ctx.prisma,
    async (tx) => {
      const of = await owner(tx);
      const note = await tx.note.create({
        data: { id: newId('note'), workspaceId: ctx.caller.workspaceId, ...of, content, createdBy: ctx.caller.userId },
      });
      // A contact's note shows on its timeline; a company's on the company's (company.timeline.ts).
      await recordEvent(tx, {
        ...noteCreated.build(note),
        workspaceId: note.workspaceId,
        contactId: note.contactId,
        actor: actorOf(ctx),
      });
      return note;
    },
    { foreignKeyViolation: gone },
  );
}

builder.mutationFields((t) => ({
  createNote: t.field({
    type: NoteType,
    description: 'Adds a markdown note to a contact.',
    args: { contactId: t.arg.id({ required: true }), input: t.arg(NoteCreateInputArg) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'write');
      return writeNote(ctx, args.input, async (tx) => ({
        contactId: (await findContact(tx, ctx, String(args.contactId))).id,
      }));
    },
  }),
  createCompanyNote: t.field({
    type: NoteType,
    description: 'Adds a markdown note to a company.',
    args: { companyId: t.arg.id({ required: true }), input: t.arg(NoteCreateInputArg) },
    resolve: (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'write');
      return writeNote(ctx, args.input, async (tx) => ({
        companyId: (await findCompany(tx, ctx, String(args.companyId))).id,
      }));
    },
  }),
}));
