// Merging two contacts: the page's contact survives, the other one (found by search) is merged
// into it and deleted. A side-by-side preview shows which value the survivor keeps, field by
// field, for the chosen strategy, by the service's own rules; the other contact and the strategy
// are kept in the URL (?with=…&strategy=…).
import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso/router';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { FormDialog } from '../components/form-dialog.tsx';
import { ScrollBox } from '../components/scroll-box.tsx';
import { fullName } from '../lib/format.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { MERGE_CONTACT_FIELDS, type MergeContact, mergePreview, type MergeStrategy, type Side } from './merge-model.ts';

const SEARCH_DELAY_MS = 200;

interface ContactOption {
  id: string;
  first_name: string;
  last_name: string | null;
  email: string;
}

const optionLabel = (c: ContactOption) => `${fullName(c)} (${c.email})`;

const loadContact = (id: string) =>
  gql<{ contact: MergeContact }>(`query ($id: ID!) { contact(id: $id) { ${MERGE_CONTACT_FIELDS} } }`, { id }).then(
    (d) => d.contact,
  );

const FROM: Record<Side, string> = {
  primary: 'kept contact',
  secondary: 'merged contact',
  both: 'both',
  none: '—',
};

export function ContactMergePage() {
  const { params } = useRoute();
  const { query, route } = useLocation();
  const id = params.id;
  const otherId = query.with ?? '';
  const strategy: MergeStrategy = query.strategy === 'prefer_secondary' ? 'prefer_secondary' : 'prefer_primary';
  const hrefFor = (primary: string, secondary: string, s: MergeStrategy) =>
    `/dashboard/contacts/${primary}/merge?${new URLSearchParams({
      ...(secondary ? { with: secondary } : {}),
      ...(s === 'prefer_secondary' ? { strategy: s } : {}),
    })}`;

  const primary = useQuery(() => loadContact(id), [id]);
  const secondary = useQuery(async () => (otherId ? loadContact(otherId) : null), [otherId]);
  useTitle(primary.data ? `Merge into ${fullName(primary.data)}` : 'Merge contacts');

  const [text, setText] = useState('');
  const [options, setOptions] = useState<ContactOption[]>([]);
  const [confirming, setConfirming] = useState(false);

  useEffect(() => {
    const q = text.trim();
    if (!q) return;
    const chosen = options.find((o) => optionLabel(o) === text);
    if (chosen) {
      setText('');
      route(hrefFor(id, chosen.id, strategy));
      return;
    }
    const timer = setTimeout(() => {
      gql<{ searchContacts: { nodes: ContactOption[] } }>(
        'query ($q: String!) { searchContacts(q: $q, limit: 10) { nodes { id first_name last_name email } } }',
        { q },
      ).then(
        (d) => setOptions(d.searchContacts.nodes.filter((o) => o.id !== id)),
        () => setOptions([]),
      );
    }, SEARCH_DELAY_MS);
    return () => clearTimeout(timer);
  }, [text]);

  const p = primary.data;
  const s = otherId && otherId !== id ? secondary.data : null;
  const preview = p && s ? mergePreview(p, s, strategy) : null;

  const merge = async () => {
    if (!p || !s) return;
    const d = await gql<{ mergeContacts: { id: string } }>(
      'mutation ($input: ContactMergeInput!) { mergeContacts(input: $input) { id } }',
      { input: { primary_id: p.id, secondary_id: s.id, merge_strategy: strategy } },
    );
    route(`/dashboard/contacts/${d.mergeContacts.id}`);
  };

  return (
    <>
      <p>
        <a href={`/dashboard/contacts/${id}`}>← Back to the contact</a>
      </p>
      <h1>{p ? `Merge a contact into ${fullName(p)}` : 'Merge contacts'}</h1>
      {primary.loading && !p && <p role="status">Loading…</p>}
      <ErrorMessage error={primary.error} />
      {p && (
        <>
          <p>
            <strong>{fullName(p)}</strong> ({p.email}) is kept. The other contact’s deals, activities, notes, tasks and
            timeline move to it, then the other contact is deleted.
          </p>
          <div class="columns">
            <label>
              Contact to merge into this one <span class="hint">(type a name or email, then choose)</span>
              <input
                type="search"
                list="merge-contact-options"
                autoComplete="off"
                value={text}
                onInput={(e) => setText(e.currentTarget.value)}
              />
              <datalist id="merge-contact-options">
                {options.map((o) => (
                  <option key={o.id} value={optionLabel(o)} />
                ))}
              </datalist>
            </label>
            <fieldset class="segmented">
              <legend>Whose values win</legend>
              <label class="inline">
                <input
                  type="radio"
                  name="strategy"
                  checked={strategy === 'prefer_primary'}
                  onChange={() => route(hrefFor(id, otherId, 'prefer_primary'), true)}
                />{' '}
                The kept contact’s
              </label>
              <label class="inline">
                <input
                  type="radio"
                  name="strategy"
                  checked={strategy === 'prefer_secondary'}
                  onChange={() => route(hrefFor(id, otherId, 'prefer_secondary'), true)}
                />{' '}
                The merged contact’s
              </label>
            </fieldset>
          </div>
          <p class="hint">
            The winning side’s values are kept where it has one; the other side fills its blanks. Tags and custom fields
            are combined, the higher engagement score is kept, and the email and external id stay the kept contact’s.
          </p>
        </>
      )}
      {otherId && secondary.loading && !s && <p role="status">Loading the other contact…</p>}
      <ErrorMessage error={otherId ? secondary.error : null} />
      {otherId === id && (
        <p class="error-text" role="alert">
          A contact cannot be merged with itself: choose another one.
        </p>
      )}
      {!otherId && p && <p class="empty">Choose the contact to merge into this one to see the result.</p>}
      {p && s && preview && (
        <section aria-labelledby="merge-preview-title">
          <div class="title-row">
            <h2 id="merge-preview-title">What the merged contact keeps</h2>
            <a href={hrefFor(s.id, p.id, strategy)}>Keep {fullName(s)} instead</a>
          </div>
          <ScrollBox label="Merge preview">
            <table class="merge-preview">
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">
                    {fullName(p)} <span class="hint">(kept)</span>
                  </th>
                  <th scope="col">
                    {fullName(s)} <span class="hint">(merged, then deleted)</span>
                  </th>
                  <th scope="col">Result</th>
                  <th scope="col">From</th>
                </tr>
              </thead>
              <tbody>
                {preview.rows.map((r) => (
                  <tr key={r.key} data-field={r.key}>
                    <th scope="row">{r.label}</th>
                    <td class={r.from === 'primary' ? 'wins' : undefined}>{r.primary}</td>
                    <td class={r.from === 'secondary' ? 'wins' : undefined}>{r.secondary}</td>
                    <td class="result">{r.merged}</td>
                    <td>{FROM[r.from]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </ScrollBox>
          {preview.refusal && (
            <p class="error-text" role="alert">
              {preview.refusal}
            </p>
          )}
          <div class="actions">
            <button
              type="button"
              class="danger"
              disabled={preview.refusal !== null}
              onClick={() => setConfirming(true)}
            >
              Merge…
            </button>
          </div>
        </section>
      )}
      {confirming && p && s && (
        <FormDialog
          title={`Merge ${fullName(s)} into ${fullName(p)}?`}
          submitLabel="Merge contacts"
          danger
          onSubmit={merge}
          onClose={() => setConfirming(false)}
        >
          <p>
            {fullName(s)} ({s.email}) will be deleted after its records move to {fullName(p)} ({p.email}). This cannot
            be undone.
          </p>
        </FormDialog>
      )}
    </>
  );
}
