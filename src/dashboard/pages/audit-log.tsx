// The audit log: who changed what, newest first, with the fields each write changed. Filters by the
// kind of record and by one record; more entries load on demand.
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { ScrollBox } from '../components/scroll-box.tsx';
import { InlineSelect } from '../components/inline-select.tsx';

interface Entry {
  id: string;
  occurred_at: string;
  actor: { type: string; id: string; name: string };
  via: string;
  request_id: string | null;
  ip: string | null;
  resource: string;
  record_id: string;
  action: string;
  changes: Record<string, { before: unknown; after: unknown }>;
}

interface Page {
  nodes: Entry[];
  next_cursor: string | null;
}

const RESOURCES = [
  'contact',
  'company',
  'deal',
  'task',
  'activity',
  'note',
  'pipeline',
  'stage',
  'api_key',
  'webhook',
  'custom_field',
  'settings',
  'user',
  'workspace',
];

const QUERY = `query ($filter: AuditLogFilter, $cursor: String) {
  auditLog(filter: $filter, sort: [occurred_at_desc], limit: 50, cursor: $cursor) {
    next_cursor
    nodes { id occurred_at actor { type id name } via request_id ip resource record_id action changes }
  }
}`;

const VIA: Record<string, string> = {
  rest: 'REST API',
  graphql: 'GraphQL',
  dashboard: 'Dashboard',
  cli: 'Admin CLI',
  system: 'The service',
};

/** A value as a person reads it: text as it is, nothing as an em dash, anything else as JSON. */
function shown(value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function Changes({ changes }: { changes: Entry['changes'] }) {
  const fields = Object.entries(changes);
  if (fields.length === 0) return <>—</>;
  return (
    <ul class="changes">
      {fields.map(([field, { before, after }]) => (
        <li key={field}>
          <code>{field}</code>:{' '}
          {before === null && after === null ? (
            <em>changed (secret, not kept)</em>
          ) : (
            <>
              <del>{shown(before)}</del> → <ins>{shown(after)}</ins>
            </>
          )}
        </li>
      ))}
    </ul>
  );
}

export function AuditLogPage() {
  useTitle('Audit log');
  const [resource, setResource] = useState('');
  const [recordId, setRecordId] = useState('');
  const [more, setMore] = useState<Entry[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const { error, busy, run } = useAction();
  const filter = { ...(resource ? { resource } : {}), ...(recordId.trim() ? { record_id: recordId.trim() } : {}) };
  const first = useQuery(async () => {
    const page = (await gql<{ auditLog: Page }>(QUERY, { filter })).auditLog;
    setMore([]);
    setCursor(page.next_cursor);
    return page.nodes;
  }, [resource, recordId]);
  const loadMore = () =>
    run(async () => {
      const page = (await gql<{ auditLog: Page }>(QUERY, { filter, cursor })).auditLog;
      setMore((m) => [...m, ...page.nodes]);
      setCursor(page.next_cursor);
    });
  const entries = [...(first.data ?? []), ...more];

  return (
    <>
      <h1>Audit log</h1>
      <p class="lead">
        Every write to this workspace: who made it, through what, and the fields it changed. Kept as long as the event
        log.
      </p>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <InlineSelect
          label="Kind of record"
          value={resource}
          choices={[{ value: '', label: 'All' }, ...RESOURCES.map((r) => ({ value: r, label: r.replace('_', ' ') }))]}
          onChange={setResource}
        />
        <label class="inline-field">
          Record id
          {/* The whole id, on Enter or leaving the field (change, not input), and not controlled: a
              re-render of the list while someone types must not put the last committed id back. */}
          <input type="search" defaultValue={recordId} onChange={(e) => setRecordId(e.currentTarget.value)} />
        </label>
      </form>
      <ErrorMessage error={error ?? first.error} />
      <ScrollBox label="Audit log entries">
        <table class="log">
          <caption>
            {first.loading ? 'Loading the audit log…' : `${entries.length} entries shown, newest first`}
          </caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Who</th>
              <th scope="col">What</th>
              <th scope="col">Changes</th>
              <th scope="col">From</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.id}>
                <td>{formatDateTime(e.occurred_at)}</td>
                <td>
                  {e.actor.name} <span class="muted">({e.actor.type.replace('_', ' ')})</span>
                </td>
                <td>
                  {e.resource.replace('_', ' ')} {e.action.replace('_', ' ')}
                  <br />
                  <code>{e.record_id}</code>
                </td>
                <td>
                  <Changes changes={e.changes} />
                </td>
                <td>
                  {VIA[e.via] ?? e.via}
                  {e.ip ? <br /> : null}
                  {e.ip}
                  {e.request_id ? (
                    <>
                      <br />
                      <code>{e.request_id}</code>
                    </>
                  ) : null}
                </td>
              </tr>
            ))}
            {!first.loading && entries.length === 0 ? (
              <tr>
                <td colSpan={5}>No writes match.</td>
              </tr>
            ) : null}
          </tbody>
        </table>
      </ScrollBox>
      {cursor ? (
        <button type="button" disabled={busy} onClick={() => void loadMore()}>
          Show older entries
        </button>
      ) : null}
    </>
  );
}
