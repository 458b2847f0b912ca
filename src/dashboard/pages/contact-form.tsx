// The fields a person fills in for a contact, for a new one and for an edit. The server validates;
// its message and the fields it names are shown next to the form, as it gives them.
import { useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message.tsx';

export const CONTACT_STATUSES = ['lead', 'active', 'customer', 'inactive', 'churned'] as const;

export interface ContactFields {
  first_name: string;
  last_name: string | null;
  email: string;
  phone: string | null;
  company: string | null;
  job_title: string | null;
  status: string;
  tags: string[];
}

export const EMPTY_CONTACT: ContactFields = {
  first_name: '',
  last_name: null,
  email: '',
  phone: null,
  company: null,
  job_title: null,
  status: 'lead',
  tags: [],
};

/** The form's values as the API's input: blank optional fields are sent as null (cleared). */
function inputOf(v: ContactFields): Record<string, unknown> {
  const blank = (s: string | null) => (s && s.trim() !== '' ? s.trim() : null);
  return {
    first_name: v.first_name.trim(),
    last_name: blank(v.last_name),
    email: v.email.trim(),
    phone: blank(v.phone),
    company: blank(v.company),
    job_title: blank(v.job_title),
    status: v.status,
    tags: v.tags,
  };
}

const TEXT_FIELDS: [keyof ContactFields, string, 'text' | 'email' | 'tel'][] = [
  ['first_name', 'First name', 'text'],
  ['last_name', 'Last name', 'text'],
  ['email', 'Email', 'email'],
  ['phone', 'Phone', 'tel'],
  ['company', 'Company', 'text'],
  ['job_title', 'Job title', 'text'],
];

export function ContactForm({
  initial,
  submitLabel,
  onSubmit,
  onCancel,
}: {
  initial: ContactFields;
  submitLabel: string;
  onSubmit: (input: Record<string, unknown>) => Promise<unknown>;
  onCancel?: () => void;
}) {
  const [values, setValues] = useState<ContactFields>(initial);
  const [tags, setTags] = useState(initial.tags.join(', '));
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const set = (key: keyof ContactFields, value: string) => setValues({ ...values, [key]: value });

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const list = tags
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean);
      await onSubmit(inputOf({ ...values, tags: list }));
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} class="stack contact-form" noValidate>
      <div class="field-grid">
        {TEXT_FIELDS.map(([key, label, type]) => (
          <label key={key}>
            {label}
            {(key === 'first_name' || key === 'email') && <span class="hint"> (required)</span>}
            <input
              // One of text, email, tel: Preact types each input type apart.
              type={type as 'text'}
              name={key}
              value={(values[key] as string | null) ?? ''}
              required={key === 'first_name' || key === 'email'}
              onInput={(e) => set(key, e.currentTarget.value)}
            />
          </label>
        ))}
        <label>
          Status
          <select name="status" value={values.status} onChange={(e) => set('status', e.currentTarget.value)}>
            {CONTACT_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        <label>
          Tags <span class="hint">(separated by commas)</span>
          <input type="text" name="tags" value={tags} onInput={(e) => setTags(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
