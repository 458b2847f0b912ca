// Contacts: the newest first, or full-text search results (best match first).
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime, fullName } from '../lib/format.ts';
import { useTitle } from '../lib/use-title.ts';
import { useQuery } from '../lib/use-query.ts';
import { ScrollBox } from '../components/scroll-box.tsx';

interface ContactRow {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  company: string | null;
  status: string | null;
  created_at: string;
}

interface Page {
  nodes: ContactRow[];
  total: number;
  next_cursor: string | null;
}

const FIELDS = 'total next_cursor nodes { id first_name last_name email company status created_at }';
const PAGE_SIZE = 50;

function countLabel(total: number, q: string): string {
  const contacts = total === 1 ? 'contact' : 'contacts';
  return q ? `${total} ${contacts} ${total === 1 ? 'matches' : 'match'} “${q}”` : `${total} ${contacts}`;
}

function fetchPage(q: string, cursor: string | null): Promise<Page> {
  return q
    ? gql<{ searchContacts: Page }>(
        `query ($q: String!, $cursor: String) { searchContacts(q: $q, limit: ${PAGE_SIZE}, cursor: $cursor) {
          ${FIELDS} } }`,
        { q, cursor },
      ).then((d) => d.searchContacts)
    : gql<{ contacts: Page }>(
        `query ($cursor: String) { contacts(limit: ${PAGE_SIZE}, cursor: $cursor, sort: [created_at_desc]) {
          ${FIELDS} } }`,
        { cursor },
      ).then((d) => d.contacts);
}

export function ContactsPage() {
  useTitle('Contacts');
  const initial = new URLSearchParams(location.search).get('q') ?? '';
  const [input, setInput] = useState(initial);
  const [q, setQ] = useState(initial);
  const [more, setMore] = useState<ContactRow[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [moreError, setMoreError] = useState<unknown>(null);
  const first = useQuery(async () => {
    const page = await fetchPage(q, null);
    setMore([]);
    setCursor(page.next_cursor);
    return page;
  }, [q]);

  const search = (e: Event) => {
    e.preventDefault();
    const next = input.trim();
    // Keeps the search in the URL, so reload and back show the same list.
    history.replaceState(null, '', next ? `?q=${encodeURIComponent(next)}` : location.pathname);
    setQ(next);
  };
  const loadMore = async () => {
    setMoreError(null);
    try {
      const page = await fetchPage(q, cursor);
      setMore([...more, ...page.nodes]);
      setCursor(page.next_cursor);
    } catch (err) {
      setMoreError(err);
    }
  };

  const rows = [...(first.data?.nodes ?? []), ...more];
  return (
    <>
      <div class="title-row">
        <h1>Contacts</h1>
        <a class="button primary" href="/dashboard/contacts/new">
          New contact
        </a>
      </div>
      <form role="search" onSubmit={search} class="search">
        <label>
          Search contacts <span class="hint">(names, emails, companies, custom field values)</span>
          <input type="search" name="q" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorMessage error={first.error ?? moreError} />
      <ScrollBox label="Contacts">
        <table class="contacts-table">
          <caption>{first.data ? countLabel(first.data.total, q) : 'Contacts'}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col" class="optional">
                Company
              </th>
              <th scope="col">Status</th>
              <th scope="col" class="optional">
                Created
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id}>
                <td>
                  <a href={`/dashboard/contacts/${c.id}`}>{fullName(c)}</a>
                </td>
                <td>{c.email ?? '—'}</td>
                <td class="optional">{c.company ?? '—'}</td>
                <td>{c.status ?? '—'}</td>
                <td class="optional">{formatDateTime(c.created_at)}</td>
              </tr>
            ))}
            {first.data && rows.length === 0 && (
              <tr>
                <td colSpan={5}>{q ? 'No contact matches.' : 'No contacts yet.'}</td>
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
