// Custom fields of the workspace: the keys contacts and deals may carry in custom_fields.
import { useState } from 'preact/hooks';
import { CUSTOM_FIELD_TYPES } from '../../schema/custom-field/custom-field.rules.ts';
import { gql } from '../api/graphql.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { ScrollBox } from '../components/scroll-box.tsx';

interface CustomField {
  id: string;
  key: string;
  label: string | null;
  type: string;
  options: string[];
  created_at: string;
}

const FIELDS = 'id key label type options created_at';

function NewFieldForm({ onCreated }: { onCreated: () => Promise<void> }) {
  const [key, setKey] = useState('');
  const [label, setLabel] = useState('');
  const [type, setType] = useState<string>('text');
  const [options, setOptions] = useState('');
  const { error, busy, run } = useAction();

  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const input: Record<string, unknown> = { key, type };
      if (label.trim()) input.label = label.trim();
      if (type === 'select')
        input.options = options
          .split(',')
          .map((o) => o.trim())
          .filter(Boolean);
      await gql(`mutation ($input: CustomFieldCreateInput!) { createCustomField(input: $input) { ${FIELDS} } }`, {
        input,
      });
      setKey('');
      setLabel('');
      setOptions('');
      await onCreated();
    });
  };

  return (
    <form onSubmit={submit} class="stack">
      <div class="columns">
        <label>
          Key <span class="hint">(letters, digits and _, starting with a letter)</span>
          <input
            name="key"
            required
            pattern="[A-Za-z][A-Za-z0-9_]{0,63}"
            value={key}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
        </label>
        <label>
          Label <span class="hint">(optional)</span>
          <input name="label" maxLength={255} value={label} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <label>
          Type
          <select name="type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            {CUSTOM_FIELD_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </label>
      </div>
      {type === 'select' && (
        <label>
          Options <span class="hint">(comma-separated)</span>
          <input
            name="options"
            required
            value={options}
            onInput={(e) => setOptions(e.currentTarget.value)}
            placeholder="saas, retail, services"
          />
        </label>
      )}
      <ErrorMessage error={error} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          Add field
        </button>
      </div>
    </form>
  );
}

export function CustomFieldsPage() {
  useTitle('Custom fields');
  const fields = useQuery(
    () => gql<{ customFields: CustomField[] }>(`{ customFields { ${FIELDS} } }`).then((d) => d.customFields),
    [],
  );
  const { error, run } = useAction();

  const remove = (id: string) =>
    run(async () => {
      await gql('mutation ($id: ID!) { deleteCustomField(id: $id) { deleted } }', { id });
      await fields.reload();
    });

  return (
    <>
      <h1>Custom fields</h1>
      <p class="lead">
        Contacts and deals accept these keys in <code>custom_fields</code>; values are checked against the type. Other
        keys are ignored with a warning.
      </p>
      <section class="panel" aria-labelledby="new-field">
        <h2 id="new-field">Define a field</h2>
        <NewFieldForm onCreated={fields.reload} />
      </section>
      <ErrorMessage error={error ?? fields.error} />
      <ScrollBox label="Custom fields">
        <table>
          <caption>Fields of this workspace</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Label</th>
              <th scope="col">Type</th>
              <th scope="col">Options</th>
              <th scope="col">Created</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {fields.data?.map((f) => (
              <tr key={f.id}>
                <td>
                  <code>{f.key}</code>
                </td>
                <td>{f.label ?? '—'}</td>
                <td>{f.type}</td>
                <td>{f.options.join(', ') || '—'}</td>
                <td>{formatDateTime(f.created_at)}</td>
                <td>
                  <ConfirmButton label="Remove" confirmLabel={`Remove ${f.key}`} onConfirm={() => remove(f.id)} />
                </td>
              </tr>
            ))}
            {fields.data?.length === 0 && (
              <tr>
                <td colSpan={6}>No custom fields yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
    </>
  );
}
