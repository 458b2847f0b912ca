// GraphQL list pages: `{ nodes, total, limit, has_more, next_cursor }` (the REST list meta).
import type { ObjectRef } from '@pothos/core';
import { builder } from '../builder.ts';
import type { Page } from './pagination.ts';

export function pageType<T>(name: string, node: ObjectRef<any, T>) {
  return builder.objectRef<Page<T>>(name).implement({
    description: `A page of ${node.name}. Pass next_cursor as cursor to get the next one.`,
    fields: (t) => ({
      nodes: t.field({ type: [node], resolve: (p) => p.nodes }),
      total: t.int({ description: 'Rows matching the filters, on all pages. Contacts and deals: exact up to 10,000, above that possibly up to a minute old.', resolve: (p) => p.total() }),
      limit: t.exposeInt('limit'),
      has_more: t.exposeBoolean('hasMore'),
      next_cursor: t.exposeString('nextCursor', { nullable: true }),
    }),
  });
}

export const DeleteResult = builder.objectRef<{ id: string; deleted: true }>('DeleteResult').implement({
  fields: (t) => ({
    id: t.exposeID('id'),
    deleted: t.exposeBoolean('deleted'),
  }),
});
