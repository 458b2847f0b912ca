// GraphQL list pages: `{ nodes, total, limit, has_more, next_cursor }` (the REST list meta).
import type { ObjectRef } from '@pothos/core';
import { builder, type BuilderTypes } from '../builder.ts';
import type { Page } from './pagination.ts';

export function pageType<T>(name: string, node: ObjectRef<BuilderTypes, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    description: `A page of ${node.name}. Pass next_cursor as cursor to get the next one.`,
    fields: (t) => ({
      nodes: t.field({ type: [node], description: "This page's rows, in the list's order", resolve: (p) => p.nodes }),
      total: t.int({
        description:
          'Rows matching the filters, on all pages. ' +
          'Contacts and deals: exact up to 10,000, above that possibly up to a minute old.',
        resolve: (p) => p.total(),
      }),
      limit: t.exposeInt('limit', { description: 'The page size asked for (default 25)' }),
      has_more: t.exposeBoolean('hasMore', { description: 'Whether another page follows' }),
      next_cursor: t.exposeString('nextCursor', {
        nullable: true,
        description: 'Pass it as cursor for the next page; null on the last page',
      }),
    }),
  });
}

export const DeleteResult = builder.objectRef<{ id: string; deleted: true }>('DeleteResult').implement({
  description: 'What a delete removed.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'The id of what was removed' }),
    deleted: t.exposeBoolean('deleted', { description: 'Always true: a delete that fails answers an error instead' }),
  }),
});
