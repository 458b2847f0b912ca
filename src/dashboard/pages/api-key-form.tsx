// Name, scope (full, read only, or per-resource read/write) and an optional expiry date.
import { useState } from 'preact/hooks';
import { RESOURCES } from '../../auth/resources.ts';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { useAction } from '../lib/use-action.ts';
import { API_KEY_FIELDS, type ApiKey } from './api-key.ts';
import { ScrollBox } from '../components/scroll-box.tsx';

type Scope = ApiKey['scope'];

export function ApiKeyForm({ onCreated }: { onCreated: (c: { name: string; key: string }) => void | Promise<void> }) {
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('full');
  const [permissions, setPermissions] = useState<Set<string>>(new Set());
  const [expiry, setExpiry] = useState('');
  const { error, busy, run } = useAction();

  const toggle = (permission: string, on: boolean) => {
    const next = new Set(permissions);
    if (on) next.add(permission);
    else next.delete(permission);
    setPermissions(next);
  };

  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const input: Record<string, unknown> = { name, scope };
      if (scope === 'custom') input.permissions = [...permissions];
      // The end of the chosen day in the browser's time zone.
      if (expiry) input.expires_at = new Date(`${expiry}T23:59:59`).toISOString();
      const { createApiKey } = await gql<{ createApiKey: { api_key: ApiKey; key: string } }>(
        `mutation ($input: ApiKeyCreateInput!) { createApiKey(input: $input) { key api_key { ${API_KEY_FIELDS} } } }`,
        { input },
      );
      setName('');
      setPermissions(new Set());
      setExpiry('');
      await onCreated({ name: createApiKey.api_key.name, key: createApiKey.key });
    });
  };

  return (
    <form onSubmit={submit} class="stack">
      <label>
        Name
        <input
          name="name"
          required
          maxLength={255}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          placeholder="e.g. Zapier"
        />
      </label>
      <fieldset>
        <legend>Scope</legend>
        {(
          [
            ['full', 'Full access', 'read and write on every resource'],
            ['read_only', 'Read only', 'read every resource, change nothing'],
            ['custom', 'Custom', 'choose per resource'],
          ] as const
        ).map(([value, label, hint]) => (
          <label class="inline" key={value}>
            <input type="radio" name="scope" value={value} checked={scope === value} onChange={() => setScope(value)} />
            {label} <span class="hint">({hint})</span>
          </label>
        ))}
      </fieldset>
      {scope === 'custom' && (
        <ScrollBox label="Permissions">
          <table class="permissions">
            <caption>Permissions (write includes read)</caption>
            <thead>
              <tr>
                <th scope="col">Resource</th>
                <th scope="col">Read</th>
                <th scope="col">Write</th>
              </tr>
            </thead>
            <tbody>
              {RESOURCES.map((r) => (
                <tr key={r}>
                  <th scope="row">{r}</th>
                  {(['read', 'write'] as const).map((access) => (
                    <td key={access}>
                      <input
                        type="checkbox"
                        aria-label={`${r} ${access}`}
                        checked={permissions.has(`${r}:${access}`)}
                        onChange={(e) => toggle(`${r}:${access}`, e.currentTarget.checked)}
                      />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </ScrollBox>
      )}
      <label>
        Expires on <span class="hint">(optional; the key stops working after this day)</span>
        <input
          type="date"
          name="expires"
          value={expiry}
          min={new Date().toISOString().slice(0, 10)}
          onInput={(e) => setExpiry(e.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          Create key
        </button>
      </div>
    </form>
  );
}
