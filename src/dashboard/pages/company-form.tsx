// A new company's fields. The server validates; its message and the fields it names are shown
// under the form, as it gives them.
import { useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message.tsx';
import { useAction } from '../lib/use-action.ts';
import { type CompanyFields, createInput, EMPTY_COMPANY } from './company-model.ts';

// The number of employees is a text field: a number input hands over '' for text it cannot read, which
// would leave the field out unseen; as typed, the API refuses it and says why.
const FIELDS: [keyof CompanyFields, string, 'text' | 'tel', string?][] = [
  ['name', 'Name', 'text', '(required)'],
  ['domain', 'Domain', 'text', '(e.g. example.com)'],
  ['industry', 'Industry', 'text'],
  ['size', 'Employees', 'text'],
  ['phone', 'Phone', 'tel', '(e.g. +14155550123)'],
  ['tags', 'Tags', 'text', '(separated by commas)'],
];

export function CompanyForm({
  submitLabel,
  onSubmit,
}: {
  submitLabel: string;
  onSubmit: (input: Record<string, unknown>) => Promise<unknown>;
}) {
  const [values, setValues] = useState<CompanyFields>(EMPTY_COMPANY);
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(() => onSubmit(createInput(values)));
  };
  return (
    <form onSubmit={submit} class="stack company-form" noValidate>
      <div class="field-grid">
        {FIELDS.map(([key, label, type, hint]) => (
          <label key={key}>
            {label}
            {hint && <span class="hint"> {hint}</span>}
            <input
              // Text or tel: Preact types each input type apart.
              type={type as 'text'}
              name={key}
              value={values[key]}
              required={key === 'name'}
              inputMode={key === 'size' ? 'numeric' : undefined}
              onInput={(e) => setValues({ ...values, [key]: e.currentTarget.value })}
            />
          </label>
        ))}
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
      </div>
    </form>
  );
}
