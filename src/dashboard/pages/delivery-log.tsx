// The delivery log of a subscription, newest first; refreshes itself while deliveries are pending.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { ScrollBox } from '../components/scroll-box.tsx';
import { InlineSelect } from '../components/inline-select.tsx';

interface Attempt {
  attempt: number;
  kind: string;
  attempted_at: string;
  response_code: number | null;
  response_time_ms: number;
  error: string | null;
}

interface Delivery {
  id: string;
  event: string;
  status: string;
  test: boolean;
  attempts: number;
  response_code: number | null;
  response_time_ms: number | null;
  response_body: string | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  attempt_history: Attempt[];
}

const FIELDS = `id event status test attempts response_code response_time_ms response_body error
  next_attempt_at created_at attempt_history { attempt kind attempted_at response_code response_time_ms error }`;

/** The table's caption: how many deliveries there are, and how many of them the page shows. */
const deliveriesCaption = (total: number, shown: number) =>
  `${total} deliveries${total > shown ? `, the latest ${shown} shown` : ''}`;

/** The attempt count; with more than one attempt, each one's time, kind, answer and duration on demand. */
function Attempts({ d }: { d: Delivery }) {
  if (d.attempt_history.length < 2) return <>{d.attempts}</>;
  return (
    <details>
      <summary>{d.attempts}</summary>
      <ol class="attempts">
        {d.attempt_history.map((a) => (
          <li key={a.attempt} value={a.attempt}>
            {formatDateTime(a.attempted_at)} ({a.kind}): {a.response_code ?? 'no answer'}
            {a.error && a.response_code === null ? ` — ${a.error}` : ''}, {a.response_time_ms} ms
          </li>
        ))}
      </ol>
    </details>
  );
}
const PENDING_REFRESH_MS = 2000;

const STATUS_CHOICES = [
  { value: '', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'delivered', label: 'Delivered' },
  { value: 'failed', label: 'Failed' },
];

export function DeliveryLog({ webhookId, version }: { webhookId: string; version: number }) {
  const [status, setStatus] = useState('');
  const { error, run } = useAction();
  const log = useQuery(
    () =>
      gql<{ webhookLogs: { nodes: Delivery[]; total: number } }>(
        `query ($id: ID!, $filter: WebhookDeliveryFilter) {
          webhookLogs(webhookId: $id, filter: $filter, limit: 50) { total nodes { ${FIELDS} } } }`,
        { id: webhookId, filter: status ? { status } : {} },
      ).then((d) => d.webhookLogs),
    [webhookId, status, version],
  );

  const pending = log.data?.nodes.some((d) => d.status === 'pending');
  useEffect(() => {
    if (!pending) return;
    const timer = setTimeout(() => void log.reload(), PENDING_REFRESH_MS);
    return () => clearTimeout(timer);
  }, [log.data]);

  const redeliver = (logId: string) =>
    run(async () => {
      await gql('mutation ($id: ID!, $logId: ID!) { redeliverWebhook(id: $id, logId: $logId) { id } }', {
        id: webhookId,
        logId,
      });
      await log.reload();
    });

  return (
    <section aria-labelledby="delivery-log">
      <div class="title-row">
        <h2 id="delivery-log">Delivery log</h2>
        <InlineSelect label="Status" value={status} choices={STATUS_CHOICES} onChange={setStatus} />
        <button type="button" onClick={() => void log.reload()}>
          Refresh
        </button>
      </div>
      <ErrorMessage error={error ?? log.error} />
      <ScrollBox label="Deliveries">
        <table class="log">
          <caption>{log.data ? deliveriesCaption(log.data.total, log.data.nodes.length) : 'Deliveries'}</caption>
          <thead>
            <tr>
              <th scope="col">Created</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Response</th>
              <th scope="col">Time</th>
              <th scope="col">Attempts</th>
              <th scope="col">Response body (first 1000 characters)</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {log.data?.nodes.map((d) => (
              <tr key={d.id} data-status={d.status}>
                <td>{formatDateTime(d.created_at)}</td>
                <td>
                  <code>{d.event}</code> {d.test && <span class="badge">test</span>}
                </td>
                <td>
                  <span class={`badge ${d.status === 'delivered' ? 'ok' : d.status === 'failed' ? 'off' : 'wait'}`}>
                    {d.status}
                  </span>
                  {d.status === 'pending' && d.next_attempt_at && (
                    <div class="hint">next {formatDateTime(d.next_attempt_at)}</div>
                  )}
                </td>
                <td>{d.response_code ?? (d.error ? <span class="error-text">{d.error}</span> : '—')}</td>
                <td>{d.response_time_ms != null ? `${d.response_time_ms} ms` : '—'}</td>
                <td>
                  <Attempts d={d} />
                </td>
                <td>
                  {d.response_body ? (
                    <details>
                      <summary>{d.response_body.length} characters</summary>
                      <pre>{d.response_body}</pre>
                    </details>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {/* Test sends have no event to send again: a new test replaces them. */}
                  {d.status === 'failed' && !d.test && (
                    <button
                      type="button"
                      onClick={() => redeliver(d.id)}
                      aria-label={`Redeliver ${d.event} of ${formatDateTime(d.created_at)}`}
                    >
                      Redeliver
                    </button>
                  )}
                </td>
              </tr>
            ))}
            {log.data?.nodes.length === 0 && (
              <tr>
                <td colSpan={8}>No deliveries yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
    </section>
  );
}
