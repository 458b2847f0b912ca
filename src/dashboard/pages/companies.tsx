// Companies: the whole list in a chosen order, or full-text search results (best match first). The
// search and the order are kept in the URL, so reload, back and a shared link show the same list.
import { useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message.tsx';
import { ScrollBox } from '../components/scroll-box.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useCursorPages } from '../lib/use-cursor-pages.ts';
import { useTitle } from '../lib/use-title.ts';
import {
  COMPANY_SORTS,
  type CompanyPage,
  type CompanyRow,
  type CompanySort,
  countLabel,
  listQuery,
  loadCompanies,
  sortOf,
} from './company-model.ts';

export function CompaniesPage() {
  useTitle('Companies');
  const params = new URLSearchParams(location.search);
  const [input, setInput] = useState(params.get('q') ?? '');
  const [q, setQ] = useState(params.get('q')?.trim() ?? '');
  const [sort, setSort] = useState<CompanySort>(sortOf(params.get('sort')));
  const { first, items, error, hasMore, loadMore } = useCursorPages<CompanyRow>(
    (cursor) => loadCompanies(q, sort, cursor),
    [q, sort],
  );
  const show = (nextQ: string, nextSort: CompanySort) => {
    history.replaceState(null, '', `${location.pathname}${listQuery(nextQ, nextSort)}`);
    setQ(nextQ);
    setSort(nextSort);
  };
  const search = (e: Event) => {
    e.preventDefault();
    show(input.trim(), sort);
  };
  const total = (first.data as CompanyPage | undefined)?.total;
  return (
    <>
      <div class="title-row">
        <h1>Companies</h1>
        <a class="button primary" href="/dashboard/companies/new">
          New company
        </a>
      </div>
      <div class="list-controls">
        <form role="search" onSubmit={search} class="search">
          <label>
            Search companies <span class="hint">(names, domains, industries, custom field values)</span>
            <input type="search" name="q" value={input} onInput={(e) => setInput(e.currentTarget.value)} />
          </label>
          <button type="submit">Search</button>
        </form>
        <label class="sort">
          Sort {q && <span class="hint">(search results: best match first)</span>}
          <select name="sort" value={sort} disabled={q !== ''} onChange={(e) => show(q, sortOf(e.currentTarget.value))}>
            {COMPANY_SORTS.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ErrorMessage error={error} />
      <ScrollBox label="Companies">
        <table class="companies-table">
          <caption>{total === undefined ? 'Companies' : countLabel(total, q)}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Domain</th>
              <th scope="col" class="optional">
                Industry
              </th>
              <th scope="col" class="optional num">
                Employees
              </th>
              <th scope="col" class="optional">
                Created
              </th>
            </tr>
          </thead>
          <tbody>
            {items.map((c) => (
              <tr key={c.id}>
                <td>
                  <a href={`/dashboard/companies/${c.id}`}>{c.name}</a>
                </td>
                <td>{c.domain ?? '—'}</td>
                <td class="optional">{c.industry ?? '—'}</td>
                <td class="optional num">{c.size === null ? '—' : c.size.toLocaleString()}</td>
                <td class="optional">{formatDateTime(c.created_at)}</td>
              </tr>
            ))}
            {first.data && items.length === 0 && (
              <tr>
                <td colSpan={5}>{q ? 'No company matches.' : 'No companies yet.'}</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
      {first.loading && <p role="status">Loading…</p>}
      {hasMore && !first.loading && (
        <button type="button" onClick={loadMore}>
          Show more
        </button>
      )}
    </>
  );
}
