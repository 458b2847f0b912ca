// Reading import jobs: import(id) (GET /v1/imports/:id) and imports (GET /v1/imports), newest
// first. A job is readable by callers that may read the kind of record it imports.
import { assertAllowed, allows, type Resource } from '../../auth/scopes.ts';
import type { Import, Prisma } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';
import { IMPORT_RESOURCES } from '../../records/import.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';
import { pageType } from '../common/page.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { sortArg } from '../common/sort.ts';
import { ImportType } from './import.type.ts';

/** An upload still arriving is no import yet. */
const SHOWN: Prisma.ImportWhereInput = { status: { not: 'receiving' } };

export async function findImport(ctx: Context, id: string): Promise<Import> {
  const found = await ctx.prisma.import.findFirst({ where: { id, workspaceId: ctx.caller.workspaceId, ...SHOWN } });
  if (!found) throw new AppError('not_found', 'Import not found');
  assertAllowed(ctx.caller, found.resource as Resource, 'read');
  return found;
}

builder.queryField('import', (t) =>
  t.field({
    type: ImportType,
    description: "An import job's settings and progress. Needs read access to the kind of record it imports.",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_root, { id }, ctx) => findImport(ctx, String(id)),
  }),
);

const IMPORT_SORT: SortSpec = { default: '-created_at', fields: { created_at: { field: 'createdAt', type: 'date' } } };

builder.queryField('imports', (t) =>
  t.field({
    type: pageType('ImportPage', ImportType),
    description: 'The import jobs of the workspace whose kind of record the caller may read, newest first.',
    args: {
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 25).' }),
      cursor: t.arg.string({ description: 'next_cursor of the previous page.' }),
      sort: sortArg(t, 'ImportSort', IMPORT_SORT),
    },
    resolve: (_root, args, ctx) => {
      const readable = IMPORT_RESOURCES.filter((r) => allows(ctx.caller, r, 'read'));
      const where: Prisma.ImportWhereInput = {
        workspaceId: ctx.caller.workspaceId,
        resource: { in: readable },
        ...SHOWN,
      };
      return findPage(args, IMPORT_SORT, {
        list: 'imports',
        where: where as Record<string, unknown>,
        fetch: (q) => ctx.prisma.import.findMany(q as Prisma.ImportFindManyArgs),
        count: (w) => ctx.prisma.import.count({ where: w }),
      });
    },
  }),
);
