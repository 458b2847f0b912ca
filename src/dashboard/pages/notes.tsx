// The notes of a contact or a company, newest first, written in Markdown and shown formatted
// (components/markdown.tsx). The two kinds of record have their own queries, so each document stays
// a whole literal the schema test can check.
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

interface NotePage {
  nodes: Note[];
  total: number;
}

/** The record the notes are on. */
export interface NotesOf {
  type: 'contact' | 'company';
  id: string;
}

const PAGE = 20;

const loadNotes = (of: NotesOf, limit: number): Promise<NotePage> =>
  of.type === 'contact'
    ? gql<{ contactNotes: NotePage }>(
        `query ($id: ID!, $limit: Int) { contactNotes(contactId: $id, limit: $limit) {
          total nodes { id content created_at } } }`,
        { id: of.id, limit },
      ).then((d) => d.contactNotes)
    : gql<{ companyNotes: NotePage }>(
        `query ($id: ID!, $limit: Int) { companyNotes(companyId: $id, limit: $limit) {
          total nodes { id content created_at } } }`,
        { id: of.id, limit },
      ).then((d) => d.companyNotes);

const addNote = (of: NotesOf, content: string) =>
  of.type === 'contact'
    ? gql('mutation ($id: ID!, $input: NoteCreateInput!) { createNote(contactId: $id, input: $input) { id } }', {
        id: of.id,
        input: { content },
      })
    : gql('mutation ($id: ID!, $input: NoteCreateInput!) { createCompanyNote(companyId: $id, input: $input) { id } }', {
        id: of.id,
        input: { content },
      });

export function Notes({ of, onAdded }: { of: NotesOf; onAdded?: () => void }) {
  const [draft, setDraft] = useState('');
  const [shown, setShown] = useState(PAGE);
  const add = useAction();
  const notes = useQuery(() => loadNotes(of, shown), [of.type, of.id, shown]);
  const submit = (e: Event) => {
    e.preventDefault();
    void add.run(async () => {
      await addNote(of, draft);
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
