// A contact's notes, newest first, written in Markdown and shown formatted (components/markdown.tsx).
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { Markdown } from '../components/markdown.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';

interface Note {
  id: string;
  content: string;
  created_at: string;
}

const PAGE = 20;

export function ContactNotes({ contactId, onAdded }: { contactId: string; onAdded?: () => void }) {
  const [draft, setDraft] = useState('');
  const [shown, setShown] = useState(PAGE);
  const add = useAction();
  const notes = useQuery(
    () =>
      gql<{ contactNotes: { nodes: Note[]; total: number } }>(
        `query ($id: ID!, $limit: Int) { contactNotes(contactId: $id, limit: $limit) {
          total nodes { id content created_at } } }`,
        { id: contactId, limit: shown },
      ).then((d) => d.contactNotes),
    [contactId, shown],
  );
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await gql('mutation ($id: ID!, $input: NoteCreateInput!) { createNote(contactId: $id, input: $input) { id } }', {
        id: contactId,
        input: { content: draft },
      });
      setDraft('');
      await notes.reload();
      onAdded?.();
    });
  };
  const list = notes.data?.nodes ?? [];
  return (
    <section aria-labelledby="notes">
      <h2 id="notes">Notes</h2>
      <form onSubmit={submit} class="stack">
        <label>
          Add a note <span class="hint">(Markdown: **bold**, _italic_, lists, links)</span>
          <textarea name="note" rows={3} value={draft} onInput={(e) => setDraft(e.currentTarget.value)} />
        </label>
        <ErrorMessage error={add.error} />
        <div class="actions">
          <button type="submit" disabled={add.busy || draft.trim() === ''}>
            {add.busy ? 'Saving…' : 'Add note'}
          </button>
        </div>
      </form>
      <ErrorMessage error={notes.error} />
      {notes.loading && !notes.data && <p role="status">Loading…</p>}
      <ol class="notes">
        {list.map((n) => (
          <li key={n.id}>
            <time dateTime={n.created_at}>{formatDateTime(n.created_at)}</time>
            <Markdown source={n.content} />
          </li>
        ))}
      </ol>
      {notes.data && list.length === 0 && <p>No notes yet.</p>}
      {notes.data && notes.data.total > list.length && (
        <button type="button" onClick={() => setShown(shown + PAGE)}>
          Show older notes
        </button>
      )}
    </section>
  );
}
