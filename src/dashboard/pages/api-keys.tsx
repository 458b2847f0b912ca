// API keys of the workspace: create (the key is shown once), list, revoke.
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { useSession } from '../session-context.ts';
import { API_KEY_FIELDS, type ApiKey } from './api-key.ts';
import { ApiKeyForm } from './api-key-form.tsx';
import { ScrollBox } from '../components/scroll-box.tsx';

const SCOPE_LABELS = { full: 'Full access', read_only: 'Read only', custom: 'Custom' } as const;

function status(k: ApiKey): string {
  if (k.revoked_at) return `Revoked ${formatDateTime(k.revoked_at)}`;
  if (k.expires_at && Date.parse(k.expires_at) <= Date.now()) return `Expired ${formatDateTime(k.expires_at)}`;
  return k.expires_at ? `Expires ${formatDateTime(k.expires_at)}` : 'Active';
}

export function ApiKeysPage() {
  useTitle('API keys');
  const session = useSession();
  const keys = useQuery(
    () => gql<{ apiKeys: ApiKey[] }>(`{ apiKeys { ${API_KEY_FIELDS} } }`).then((d) => d.apiKeys),
    [],
  );
  const [created, setCreated] = useState<{ name: string; key: string } | null>(null);
  const { error, run } = useAction();

  const revoke = (id: string) =>
    run(async () => {
      await gql('mutation ($id: ID!) { revokeApiKey(id: $id) { id revoked_at } }', { id });
      await keys.reload();
    });

  return (
    <>
      <h1>API keys</h1>
      <p class="lead">
        Keys authenticate calls to the REST API (<code>/v1</code>) and GraphQL. Send one as{' '}
        <code>Authorization: Bearer &lt;key&gt;</code>.
      </p>
      {created && <SecretOnce label={`New key “${created.name}”`} value={created.key} id="new-api-key" />}
      <section class="panel" aria-labelledby="new-key">
        <h2 id="new-key">Create a key</h2>
        <ApiKeyForm
          onCreated={async (c) => {
            setCreated(c);
            await keys.reload();
          }}
        />
      </section>
      <ErrorMessage error={error ?? keys.error} />
      <ScrollBox label="API keys">
        <table>
          <caption>
            Keys for {session.environment === 'sandbox' ? 'the sandbox of ' : ''}
            {session.workspace.name}
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scope</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.data?.map((k) => (
              <tr key={k.id} class={k.revoked_at ? 'muted' : undefined}>
                <td>{k.name}</td>
                <td>
                  <code>{k.prefix}…</code>
                </td>
                <td>
                  {SCOPE_LABELS[k.scope] ?? k.scope}
                  {k.scope === 'custom' && <div class="hint">{k.permissions.join(', ')}</div>}
                </td>
                <td>{formatDateTime(k.created_at)}</td>
                <td>{k.last_used_at ? formatDateTime(k.last_used_at) : 'Never'}</td>
                <td>{status(k)}</td>
                <td>
                  {!k.revoked_at && (
                    <ConfirmButton label="Revoke" confirmLabel={`Revoke ${k.name}`} onConfirm={() => revoke(k.id)} />
                  )}
                </td>
              </tr>
            ))}
            {keys.data?.length === 0 && (
              <tr>
                <td colSpan={7}>No keys yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
      {keys.loading && !keys.data && <p role="status">Loading…</p>}
    </>
  );
}
