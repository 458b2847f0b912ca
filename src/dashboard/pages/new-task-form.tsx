// The form for a new task: title, due date, assignee and an optional contact, picked by searching
// contacts (the browser's own suggestion list, so no hand-made combobox).
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { fullName } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { createTask, type NewTask } from './task-model.ts';

/** Typing pauses this long before contacts are searched. */
const SEARCH_DELAY_MS = 200;

interface ContactOption {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

const optionLabel = (c: ContactOption) => (c.email ? `${fullName(c)} (${c.email})` : fullName(c));

export function NewTaskForm({
  users,
  me,
  onCreated,
}: {
  users: { id: string; name: string }[];
  me: string;
  onCreated: (title: string) => Promise<void>;
}) {
  const [title, setTitle] = useState('');
  const [due, setDue] = useState('');
  const [assignee, setAssignee] = useState(me);
  const [contactText, setContactText] = useState('');
  const [options, setOptions] = useState<ContactOption[]>([]);
  const [contactError, setContactError] = useState('');
  const { error, busy, run } = useAction();

  useEffect(() => {
    const q = contactText.trim();
    if (!q || options.some((o) => optionLabel(o) === contactText)) return;
    const timer = setTimeout(() => {
      gql<{ searchContacts: { nodes: ContactOption[] } }>(
        'query ($q: String!) { searchContacts(q: $q, limit: 10) { nodes { id first_name last_name email } } }',
        { q },
      ).then(
        (d) => setOptions(d.searchContacts.nodes),
        () => setOptions([]),
      );
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [contactText]);

  const submit = (e: Event) => {
    e.preventDefault();
    setContactError('');
    const contact = options.find((o) => optionLabel(o) === contactText);
    if (contactText.trim() && !contact) {
      setContactError('Choose the contact from the suggestions, or leave the field empty.');
      return;
    }
    const input: NewTask = { title: title.trim() };
    // datetime-local has no zone: it is the browser's local time.
    if (due) input.due_date = new Date(due).toISOString();
    if (assignee) input.assignee_id = assignee;
    if (contact) Object.assign(input, { related_to_type: 'contact', related_to_id: contact.id });
    return run(async () => {
      await createTask(input);
      setTitle('');
      setDue('');
      setContactText('');
      await onCreated(input.title);
    });
  };

  return (
    <form class="stack" onSubmit={submit} aria-labelledby="new-task">
      <h2 id="new-task">New task</h2>
      <div class="columns">
        <label>
          Title
          <input value={title} maxLength={255} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Due <span class="hint">(optional)</span>
          <input type="datetime-local" value={due} onInput={(e) => setDue(e.currentTarget.value)} />
        </label>
        <label>
          Assignee
          <select value={assignee} onChange={(e) => setAssignee(e.currentTarget.value)}>
            <option value="">Unassigned</option>
            {users.map((u) => (
              <option key={u.id} value={u.id}>
                {u.id === me ? `${u.name} (me)` : u.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Related contact <span class="hint">(optional; type to search)</span>
          <input
            type="search"
            list="task-contact-options"
            value={contactText}
            autoComplete="off"
            aria-invalid={contactError ? true : undefined}
            aria-describedby={contactError ? 'task-contact-error' : undefined}
            onInput={(e) => setContactText(e.currentTarget.value)}
          />
          <datalist id="task-contact-options">
            {options.map((o) => (
              <option key={o.id} value={optionLabel(o)} />
            ))}
          </datalist>
        </label>
      </div>
      {contactError && (
        <p id="task-contact-error" class="error-text" role="alert">
          {contactError}
        </p>
      )}
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" class="primary" disabled={busy}>
          Create task
        </button>
      </div>
    </form>
  );
}
