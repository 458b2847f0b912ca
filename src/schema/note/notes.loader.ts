// The first page of notes of every contact or company a request shows, and their totals, read for
// all of them at once: `{ companies(limit: 100) { nodes { notes { ... } } } }` would otherwise read
// a page and a count per company. Kept per request; nothing is cached between the batches of a request,
// so a mutation of the same document that adds or moves notes is seen by the reads after it.
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import { Prisma, type Note } from '../../db/generated/client/client.ts';
import type { SortKey } from '../common/pagination.ts';
import { sqlKeyset } from '../common/pagination.sql.ts';
import type { Context } from '../context.ts';

/** A note's row under its Prisma field names, as the statement below selects it. */
const NOTE_FIELDS = Prisma.sql`n.id, n.workspace_id AS "workspaceId", n.contact_id AS "contactId",
  n.company_id AS "companyId", n.content, n.created_by AS "createdBy", n.version, n.created_at AS "createdAt",
  n.updated_at AS "updatedAt"`;

/** The notes' order as the paginator states it in SQL (created_at, then id the same way). */
const noteKeyset = sqlKeyset({ createdAt: Prisma.sql`created_at` });

/** The kind of record notes are on: its column, and the Prisma field of that column. */
export type NoteOwner = 'contact' | 'company';
const COLUMN = { contact: Prisma.raw('contact_id'), company: Prisma.raw('company_id') } as const;
const FIELD = { contact: 'contactId', company: 'companyId' } as const;

/**
 * The first `limit + 1` notes of each contact or company in `ids`, in the page's order: one
 * statement. Each record's notes are read on their own (LATERAL), from its (owner, created_at)
 * index, so a record with thousands of notes costs no more than one with a page of them.
 */
async function firstNotes(ctx: Context, owner: NoteOwner, keys: SortKey[], limit: number, ids: readonly string[]) {
  const order = noteKeyset.orderBy(keys);
  const column = COLUMN[owner];
  const rows = await ctx.prisma.$queryRaw<Note[]>`
    SELECT ${NOTE_FIELDS} FROM unnest(${[...new Set(ids)]}::text[]) AS listed(owner)
    CROSS JOIN LATERAL (
      SELECT * FROM notes WHERE notes.${column} = listed.owner AND notes.workspace_id = ${ctx.caller.workspaceId}
      ORDER BY ${order} LIMIT ${limit + 1}
    ) AS n
    ORDER BY n.${column}, ${order}`;
  // Timestamps come back as Dates and version as a number, as Prisma's own reads give them.
  const byOwner = new Map<string, Note[]>();
  for (const note of rows) {
    const id = note[FIELD[owner]]!;
    const list = byOwner.get(id);
    if (list) list.push(note);
    else byOwner.set(id, [note]);
  }
  return ids.map((id) => byOwner.get(id) ?? []);
}

/** Loaders of first pages by page size and order, for the request whose context it is given. */
const pageLoaders = createContextCache(() => new Map<string, DataLoader<string, Note[]>>());

/** Loads the first `limit + 1` notes of a contact or company of the caller's workspace, in the order of `keys`. */
export function firstNotesLoader(
  ctx: Context,
  owner: NoteOwner,
  keys: SortKey[],
  limit: number,
): DataLoader<string, Note[]> {
  const loaders = pageLoaders(ctx);
  const shape = `${owner}:${limit}:${keys.map((k) => (k.desc ? '-' : '') + k.field).join(',')}`;
  let loader = loaders.get(shape);
  if (!loader) {
    loader = new DataLoader((ids) => firstNotes(ctx, owner, keys, limit, ids), { cache: false });
    loaders.set(shape, loader);
  }
  return loader;
}

const countLoaders = createContextCache(() => new Map<NoteOwner, DataLoader<string, number>>());

/** How many notes each contact or company of the caller's workspace has: one grouped count for all asked together. */
export function noteCountLoader(ctx: Context, owner: NoteOwner): DataLoader<string, number> {
  const loaders = countLoaders(ctx);
  let loader = loaders.get(owner);
  if (!loader) {
    const field = FIELD[owner];
    loader = new DataLoader<string, number>(
      async (ids) => {
        const counts = await ctx.prisma.note.groupBy({
          by: [field],
          where: { workspaceId: ctx.caller.workspaceId, [field]: { in: [...new Set(ids)] } },
          _count: { _all: true },
        });
        const byOwner = new Map(counts.map((c) => [c[field], c._count._all]));
        return ids.map((id) => byOwner.get(id) ?? 0);
      },
      { cache: false },
    );
    loaders.set(owner, loader);
  }
  return loader;
}
