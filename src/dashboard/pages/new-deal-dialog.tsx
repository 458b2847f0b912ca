// Creating a deal: title, value, stage and, optionally, a contact found by search. From the board the
// pipeline is the board's; from a contact's page the pipeline is chosen and the contact prefilled.
import { useEffect, useRef, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { fullName } from '../lib/format.ts';
import { createDeal, type Stage } from './pipeline-model.ts';

import type { ContactOption } from '../components/contact-combobox.tsx';

/** Typing pauses this long before the contact search runs. */
const SEARCH_DELAY_MS = 250;

const findContacts = (q: string) =>
  gql<{ searchContacts: { nodes: ContactOption[] } }>(
    'query ($q: String!) { searchContacts(q: $q, limit: 10) { nodes { id first_name last_name email } } }',
    { q },
  ).then((d) => d.searchContacts.nodes);

export interface PipelineChoice {
  id: string;
  name: string;
  stages: Stage[];
}

export function NewDealDialog({
  pipelines,
  contact,
  onCreated,
  onClose,
}: {
  /** The pipelines to choose from, the first chosen; the select shows only when there are several. */
  pipelines: PipelineChoice[];
  /** The contact to prefill. */
  contact?: ContactOption;
  onCreated(id: string): void;
  onClose(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [title, setTitle] = useState('');
  const [value, setValue] = useState('');
  const [pipelineId, setPipelineId] = useState(pipelines[0]?.id ?? '');
  const stages = pipelines.find((p) => p.id === pipelineId)?.stages ?? [];
  const [stageId, setStageId] = useState(stages[0]?.id ?? '');
  const [q, setQ] = useState('');
  const [matches, setMatches] = useState<ContactOption[]>(contact ? [contact] : []);
  const [contactId, setContactId] = useState(contact?.id ?? '');
  const [searchError, setSearchError] = useState<unknown>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    ref.current?.showModal();
  }, []);

  useEffect(() => {
    const term = q.trim();
    if (!term) {
      setMatches(contact ? [contact] : []);
      return;
    }
    let current = true;
    const timer = setTimeout(() => {
      findContacts(term).then(
        (found) => {
          if (!current) return;
          setMatches(found);
          setSearchError(null);
          setContactId(found[0]?.id ?? '');
        },
        (err) => current && setSearchError(err),
      );
    }, SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [q]);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await createDeal(pipelineId, {
        title: title.trim(),
        value: value.trim() === '' ? null : Number(value),
        stage_id: stageId,
        contact_id: contactId || null,
      });
      onCreated(created.id);
      ref.current?.close();
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <dialog ref={ref} onClose={onClose} aria-labelledby="new-deal-title">
      <form onSubmit={submit} class="stack">
        <h2 id="new-deal-title">New deal</h2>
        <label>
          Title
          <input value={title} maxLength={255} autoFocus onInput={(e) => setTitle(e.currentTarget.value)} />
        </label>
        <label>
          <span>
            Value <span class="hint">(optional)</span>
          </span>
          <input type="number" step="any" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        {pipelines.length > 1 && (
          <label>
            Pipeline
            <select
              value={pipelineId}
              onChange={(e) => {
                const next = e.currentTarget.value;
                setPipelineId(next);
                setStageId(pipelines.find((p) => p.id === next)?.stages[0]?.id ?? '');
              }}
            >
              {pipelines.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <label>
          Stage
          <select value={stageId} onChange={(e) => setStageId(e.currentTarget.value)}>
            {stages.map((s) => (
              <option key={s.id} value={s.id}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>
            Contact <span class="hint">(optional)</span>
          </legend>
          <div class="stack">
            <label>
              Find a contact
              <input type="search" value={q} placeholder="Name or email" onInput={(e) => setQ(e.currentTarget.value)} />
            </label>
            <div class="field">
              {/* Not wrapped in its label, which would then be named by the options' text too. */}
              <label for="new-deal-contact">Contact</label>
              <select id="new-deal-contact" value={contactId} onChange={(e) => setContactId(e.currentTarget.value)}>
                <option value="">No contact</option>
                {matches.map((c) => (
                  <option key={c.id} value={c.id}>
                    {fullName(c)}
                    {c.email ? ` (${c.email})` : ''}
                  </option>
                ))}
              </select>
            </div>
            <ErrorMessage error={searchError} />
          </div>
        </fieldset>
        <ErrorMessage error={error} />
        <div class="actions">
          <button type="submit" class="primary" disabled={busy}>
            Create deal
          </button>
          <button type="button" onClick={() => ref.current?.close()}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}
