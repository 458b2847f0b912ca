// What a person records from a contact's or a company's page: an interaction (a call, an email, a
// meeting…) and a task to follow up. Each is one small form, folded until opened; the timeline
// shows the result.
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { useAction } from '../lib/use-action.ts';
import { createTask } from './task-model.ts';

const ACTIVITY_TYPES = ['call', 'email', 'meeting', 'sms', 'note'] as const;

/** A datetime-local value (the browser's local time) as an ISO instant; '' for none. */
const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** The record a person records things about, from its page. */
export interface RecordRef {
  type: 'contact' | 'company';
  id: string;
}

/** Logs an interaction about a contact, a company or a deal. */
export function LogActivity({
  about,
  onDone,
}: {
  about: { contact_id?: string; company_id?: string; deal_id?: string };
  onDone: () => void;
}) {
  const [type, setType] = useState<string>('call');
  const [subject, setSubject] = useState('');
  const [description, setDescription] = useState('');
  const [when, setWhen] = useState('');
  const [saved, setSaved] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      await gql('mutation ($input: ActivityCreateInput!) { createActivity(input: $input) { id } }', {
        input: {
          type,
          ...about,
          subject: subject.trim() || undefined,
          description: description.trim() || undefined,
          occurred_at: instant(when),
        },
      });
      setSaved(`Logged the ${type}.`);
      setSubject('');
      setDescription('');
      setWhen('');
      onDone();
    });
  };
  return (
    <form onSubmit={submit} class="stack">
      <div class="field-grid">
        <label>
          Kind
          <select name="activity-type" value={type} onChange={(e) => setType(e.currentTarget.value)}>
            {ACTIVITY_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          When <span class="hint">(now when empty)</span>
          <input
            type="datetime-local"
            name="occurred-at"
            value={when}
            onInput={(e) => setWhen(e.currentTarget.value)}
          />
        </label>
      </div>
      <label>
        Subject
        <input type="text" name="subject" value={subject} onInput={(e) => setSubject(e.currentTarget.value)} />
      </label>
      <label>
        What was said
        <textarea
          name="description"
          rows={2}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </label>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Log activity'}
        </button>
        {saved && <span role="status">{saved}</span>}
      </div>
    </form>
  );
}

function FollowUp({ about, onDone }: { about: RecordRef; onDone: () => void }) {
  const [title, setTitle] = useState('');
  const [due, setDue] = useState('');
  const [saved, setSaved] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    void run(async () => {
      const task = await createTask({
        title: title.trim(),
        due_date: instant(due),
        related_to_type: about.type,
        related_to_id: about.id,
      });
      setSaved(`Added the task “${task.title}”.`);
      setTitle('');
      setDue('');
      onDone();
    });
  };
  return (
    <form onSubmit={submit} class="stack">
      <div class="field-grid">
        <label>
          Task
          <input type="text" name="task-title" value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          Due
          <input type="datetime-local" name="task-due" value={due} onInput={(e) => setDue(e.currentTarget.value)} />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div class="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Add task'}
        </button>
        {saved && <span role="status">{saved}</span>}
      </div>
    </form>
  );
}

export function RecordActions({ about, onDone }: { about: RecordRef; onDone: () => void }) {
  return (
    <section aria-label="Record an interaction or a follow-up" class="contact-actions">
      <details>
        <summary>Log an activity</summary>
        <LogActivity about={{ [`${about.type}_id`]: about.id }} onDone={onDone} />
      </details>
      <details>
        <summary>Add a follow-up task</summary>
        <FollowUp about={about} onDone={onDone} />
      </details>
    </section>
  );
}
