// The workspace's webhook subscriptions.
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { WEBHOOK_FIELDS, webhookLabel, type Webhook } from './webhook-model.ts';
import { ScrollBox } from '../components/scroll-box.tsx';

export function WebhooksPage() {
  useTitle('Webhooks');
  const list = useQuery(
    () =>
      gql<{ webhooks: { nodes: Webhook[] } }>(`{ webhooks(limit: 100) { nodes { ${WEBHOOK_FIELDS} } } }`).then(
        (d) => d.webhooks.nodes,
      ),
    [],
  );
  return (
    <>
      <div class="title-row">
        <h1>Webhooks</h1>
        <a class="button primary" href="/dashboard/webhooks/new">
          New webhook
        </a>
      </div>
      <p class="lead">Each subscription receives the events it lists, signed with its own secret.</p>
      <ErrorMessage error={list.error} />
      <ScrollBox label="Webhook subscriptions">
        <table>
          <caption>Subscriptions</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">URL</th>
              <th scope="col">Events</th>
              <th scope="col">Status</th>
              <th scope="col">Failures in a row</th>
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {list.data?.map((w) => (
              <tr key={w.id}>
                <td>
                  <a href={`/dashboard/webhooks/${w.id}`}>{webhookLabel(w)}</a>
                </td>
                <td class="url">{w.url}</td>
                <td title={w.events.join(', ')}>{w.events.length === 1 ? w.events[0] : `${w.events.length} events`}</td>
                <td>
                  {w.active ? (
                    <span class="badge ok">Active</span>
                  ) : (
                    <span class="badge off">{w.disabled_at ? 'Turned off after failures' : 'Inactive'}</span>
                  )}
                </td>
                <td>{w.consecutive_failures}</td>
                <td>{formatDateTime(w.created_at)}</td>
              </tr>
            ))}
            {list.data?.length === 0 && (
              <tr>
                <td colSpan={6}>No webhooks yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
      {list.loading && !list.data && <p role="status">Loading…</p>}
    </>
  );
}
