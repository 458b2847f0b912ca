// A list read page by page: the first page (read again when `deps` change, which drops the older
// pages shown so far), then "show older" pages after the cursor the last one gave.
import { useState } from 'preact/hooks';
import { type Query, useQuery } from './use-query.ts';

export interface CursorPage<T> {
  nodes: T[];
  next_cursor: string | null;
}

export interface CursorPages<T> {
  /** The first page's query: its loading state and data. */
  first: Query<CursorPage<T>>;
  /** Every item shown: the first page's, then the older pages'. */
  items: T[];
  /** The first page's error, else the last "show older" one's. */
  error: unknown;
  hasMore: boolean;
  loadMore(): Promise<void>;
}

export function useCursorPages<T>(load: (cursor: string | null) => Promise<CursorPage<T>>, deps: unknown[]) {
  const [more, setMore] = useState<T[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const first = useQuery(async () => {
    const page = await load(null);
    setMore([]);
    setCursor(page.next_cursor);
    return page;
  }, deps);
  const loadMore = async () => {
    setMoreError(null);
    try {
      const page = await load(cursor);
      setMore((shown) => [...shown, ...page.nodes]);
      setCursor(page.next_cursor);
    } catch (err) {
      setMoreError(err);
    }
  };
  const pages: CursorPages<T> = {
    first,
    items: [...(first.data?.nodes ?? []), ...more],
    error: first.error ?? moreError,
    hasMore: cursor !== null,
    loadMore,
  };
  return pages;
}
