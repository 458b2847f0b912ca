// One subscription: its settings, a test send, and the delivery log with redelivery.
import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { DeliveryLog } from './delivery-log.tsx';
import { hasFilters, WEBHOOK_FIELDS, webhookLabel, type Webhook } from './webhook-model.ts';

interface TestResult {
  event: string;
  status: string;
  response_code: number | null;
  response_time_ms: number | null;
  error: string | null;
}

function Settings({ w }: { w: Webhook }) {
  const rows: [string, string][] = [
    ['URL', w.url],
    ['Events', w.events.join(', ')],
    [
      'Method and content type',
      `${w.http_method}, ${w.content_type === 'form' ? 'application/x-www-form-urlencoded' : 'application/json'}`,
    ],
    ['Payload', w.payload_format === 'record' ? 'The record only' : 'Event envelope'],
    ['Custom headers', Object.keys(w.headers).join(', ') || 'None'],
    ['Timeout', `${w.timeout_seconds} s`],
    [
      'Retries',
      w.retry_policy.max_retries === 0
        ? 'None'
        : `${w.retry_policy.max_retries}, after ${(w.retry_policy.intervals_seconds ?? []).join(', ')} s`,
    ],
    ['Turns off after', `${w.auto_disable_after} failures in a row (now ${w.consecutive_failures})`],
    ['Filters', hasFilters(w) ? JSON.stringify(w.filters) : 'None'],
    ['Created', formatDateTime(w.created_at)],
  ];
  return (
    <dl class="settings">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}

export function WebhookPage({ id }: { id: string }) {
  const { route } = useLocation();
  const webhook = useQuery(
    () =>
      gql<{ webhook: Webhook }>(`query ($id: ID!) { webhook(id: $id) { ${WEBHOOK_FIELDS} } }`, { id }).then(
        (d) => d.webhook,
      ),
    [id],
  );
  useTitle(webhook.data ? webhookLabel(webhook.data) : 'Webhook');
  const [results, setResults] = useState<TestResult[] | null>(null);
  const { error, busy, run: act } = useAction();
  const [logVersion, setLogVersion] = useState(0);
  const sendTest = () =>
    act(async () => {
      const d = await gql<{ testWebhook: TestResult[] }>(
        'mutation ($id: ID!) { testWebhook(id: $id) { event status response_code response_time_ms error } }',
        { id },
      );
      setResults(d.testWebhook);
      setLogVersion((v) => v + 1);
    });
  const setActive = (active: boolean) =>
    act(async () => {
      await gql('mutation ($id: ID!, $input: WebhookUpdateInput!) { updateWebhook(id: $id, input: $input) { id } }', {
        id,
        input: { active },
      });
      await webhook.reload();
    });
  const remove = () =>
    act(async () => {
      await gql('mutation ($id: ID!) { deleteWebhook(id: $id) { deleted } }', { id });
      route('/dashboard/webhooks');
    });

  const w = webhook.data;
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/webhooks">Webhooks</a> /
      </p>
      <ErrorMessage error={webhook.error} />
      {w && (
        <>
          <h1>
            {webhookLabel(w)}
            {w.active ? (
              <span class="badge ok">Active</span>
            ) : (
              <span class="badge off">
                {w.disabled_at ? `Turned off ${formatDateTime(w.disabled_at)}` : 'Inactive'}
              </span>
            )}
          </h1>
          {w.description && <p class="lead">{w.description}</p>}
          <div class="actions">
            <button type="button" class="primary" disabled={busy} onClick={sendTest}>
              Send test
            </button>
            <a class="button" href={`/dashboard/webhooks/${id}/edit`}>
              Edit settings
            </a>
            <button type="button" disabled={busy} onClick={() => setActive(!w.active)}>
              {w.active ? 'Deactivate' : 'Activate'}
            </button>
            <ConfirmButton label="Delete" confirmLabel="Delete with its log" disabled={busy} onConfirm={remove} />
          </div>
          <ErrorMessage error={error} />
          {results && (
            <section aria-labelledby="test-results">
              <h2 id="test-results">Test send</h2>
              <ul class="test-results">
                {results.map((r) => (
                  <li key={r.event}>
                    <code>{r.event}</code>:{' '}
                    <span class={`badge ${r.status === 'delivered' ? 'ok' : 'off'}`}>{r.status}</span>{' '}
                    {r.response_code ?? ''} {r.response_time_ms != null && `in ${r.response_time_ms} ms`}{' '}
                    {r.error && <span class="error-text">{r.error}</span>}
                  </li>
                ))}
              </ul>
            </section>
          )}
          <Settings w={w} />
          <DeliveryLog webhookId={id} version={logVersion} />
        </>
      )}
    </>
  );
}
