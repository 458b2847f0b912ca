// Contacts: the list a sales team works in. Search, filters and sort live in the URL's query
// string (so a view can be bookmarked, shared, saved and restored with Back and Forward); rows
// can be selected, on this page or every matching one, for bulk tagging, assignment and deletion.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { ScrollBox } from '../components/scroll-box.tsx';
import { formatDateTime, fullName } from '../lib/format.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { useSession } from '../session-context.ts';
import { BulkActions, type Selection } from './contacts-bulk.tsx';
import { ContactFilters, type ContactsMeta, SavedViews } from './contacts-filters.tsx';
import {
  type BulkTarget,
  type ContactsView,
  type CustomFieldType,
  isFiltered,
  queryOf,
  SORTS,
  sortOf,
  viewOf,
  viewWhere,
} from './contacts-model.ts';

export interface ContactRow extends BulkTarget {
  company: string | null;
  status: string;
  assigned_user: { id: string; name: string } | null;
  created_at: string;
  updated_at: string;
}

interface Page {
  nodes: ContactRow[];
  total: number;
  next_cursor: string | null;
}

const FIELDS = `total next_cursor nodes { id first_name last_name email company status tags assigned_user { id name }
  created_at updated_at }`;
const PAGE_SIZE = 50;

export function fetchContacts(
  where: Record<string, unknown>,
  sort: string[],
  cursor: string | null,
  limit = PAGE_SIZE,
): Promise<Page> {
  return gql<{ contacts: Page }>(
    `query ($where: ContactWhere, $sort: [ContactSort!], $cursor: String, $limit: Int) {
      contacts(where: $where, sort: $sort, limit: $limit, cursor: $cursor) { ${FIELDS} } }`,
    { where, sort, cursor, limit },
  ).then((d) => d.contacts);
}

function loadMeta(): Promise<ContactsMeta> {
  return gql<ContactsMeta>(
    '{ users(limit: 100) { nodes { id name active } } customFields { key label type options } }',
  );
}

export function ContactsPage() {
  useTitle('Contacts');
  const session = useSession();
  const { query, route } = useLocation();
  const search = queryOf(query as Record<string, string>);
  const view = useMemo(() => viewOf(search), [search]);
  const [more, setMore] = useState<ContactRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const [selection, setSelection] = useState<Selection>({ ids: new Set(), allMatching: false });
  const meta = useQuery(loadMeta, []);
  const types = useMemo(
    () => Object.fromEntries((meta.data?.customFields ?? []).map((f) => [f.key, f.type as CustomFieldType])),
    [meta.data],
  );
  const where = useMemo(() => viewWhere(view, types), [view, types]);
  const sort = sortOf(view);

  const first = useQuery(async () => {
    // A custom field's condition depends on its type: wait for the definitions when one is filtered on.
    if (view.cf && !meta.data) return null;
    const page = await fetchContacts(where, sort, null);
    setMore([]);
    setCursor(page.next_cursor);
    return page;
  }, [search, view.cf ? meta.data : null]);
  // Another view: nothing of the previous selection stays selected.
  useEffect(() => setSelection({ ids: new Set(), allMatching: false }), [search]);

  const go = (next: string) => route(`/dashboard/contacts${next}`);
  const loadMore = async () => {
    setMoreError(null);
    try {
      const page = await fetchContacts(where, sort, cursor);
      setMore((m) => [...m, ...page.nodes]);
      setCursor(page.next_cursor);
    } catch (err) {
      setMoreError(err);
    }
  };

  const rows = [...(first.data?.nodes ?? []), ...more];
  const total = first.data?.total ?? 0;
  const allOnPage = rows.length > 0 && rows.every((r) => selection.ids.has(r.id));
  const someOnPage = rows.some((r) => selection.ids.has(r.id));
  const toggle = (id: string, on: boolean) => {
    const ids = new Set(selection.ids);
    if (on) ids.add(id);
    else ids.delete(id);
    setSelection({ ids, allMatching: false });
  };
  const togglePage = (on: boolean) =>
    setSelection({ ids: on ? new Set(rows.map((r) => r.id)) : new Set(), allMatching: false });

  return (
    <>
      <div class="title-row">
        <h1>Contacts</h1>
        <a class="button primary" href="/dashboard/contacts/new">
          New contact
        </a>
      </div>
      <ContactFilters view={view} meta={meta.data} onApply={(v) => go(queryOf(v))} />
      <div class="list-tools">
        <label class="inline">
          Sort by{' '}
          <select value={view.sort} onChange={(e) => go(queryOf({ ...view, sort: e.currentTarget.value }))}>
            {SORTS.map((s) => (
              <option key={s.key} value={s.key}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
        <SavedViews workspaceId={session.workspace.id} current={search} />
      </div>
      <ErrorMessage error={meta.error} />
      <ErrorMessage error={first.error ?? moreError} />
      <BulkActions
        rows={rows}
        total={total}
        where={where}
        sort={sort}
        selection={selection}
        users={(meta.data?.users.nodes ?? []).filter((u) => u.active)}
        onSelection={setSelection}
        onDone={() => first.reload()}
      />
      <ScrollBox label="Contacts">
        <table class="contacts-table">
          <caption>{first.data ? countLabel(total, view) : 'Contacts'}</caption>
          <thead>
            <tr>
              <th scope="col" class="select">
                <input
                  type="checkbox"
                  aria-label="Select all on this page"
                  checked={allOnPage}
                  indeterminate={someOnPage && !allOnPage}
                  disabled={rows.length === 0}
                  onChange={(e) => togglePage(e.currentTarget.checked)}
                />
              </th>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col" class="optional">
                Company
              </th>
              <th scope="col">Status</th>
              <th scope="col" class="optional">
                Tags
              </th>
              <th scope="col" class="optional">
                Assigned to
              </th>
              <th scope="col" class="optional">
                {view.sort.endsWith('updated_at') ? 'Updated' : 'Created'}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} class={selection.ids.has(c.id) || selection.allMatching ? 'selected' : undefined}>
                <td class="select">
                  <input
                    type="checkbox"
                    aria-label={`Select ${fullName(c)}`}
                    checked={selection.allMatching || selection.ids.has(c.id)}
                    disabled={selection.allMatching}
                    onChange={(e) => toggle(c.id, e.currentTarget.checked)}
                  />
                </td>
                <td>
                  <a href={`/dashboard/contacts/${c.id}`}>{fullName(c)}</a>
                </td>
                <td>{c.email}</td>
                <td class="optional">{c.company ?? '—'}</td>
                <td>{c.status}</td>
                <td class="optional">{c.tags.length ? c.tags.join(', ') : '—'}</td>
                <td class="optional">{c.assigned_user?.name ?? '—'}</td>
                <td class="optional">
                  {formatDateTime(view.sort.endsWith('updated_at') ? c.updated_at : c.created_at)}
                </td>
              </tr>
            ))}
            {first.data && rows.length === 0 && (
              <tr>
                <td colSpan={8}>
                  {isFiltered(view) ? (
                    <>
                      No contact matches this view. <a href="/dashboard/contacts">Show all contacts</a>
                    </>
                  ) : (
                    'No contacts yet.'
                  )}
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
      {first.loading && <p role="status">Loading…</p>}
      {cursor && !first.loading && (
        <button type="button" onClick={loadMore}>
          Show more
        </button>
      )}
    </>
  );
}

function countLabel(total: number, view: ContactsView): string {
  const contacts = total === 1 ? 'contact' : 'contacts';
  const filtered = isFiltered({ ...view, q: '' });
  if (view.q)
    return `${total} ${contacts} ${total === 1 ? 'matches' : 'match'} “${view.q}”${filtered ? ' and the filters' : ''}`;
  return filtered ? `${total} ${contacts} in this view` : `${total} ${contacts}`;
}
