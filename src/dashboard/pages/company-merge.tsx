// Merging a duplicate into the company shown: find it by search, choose whose values win where both
// have one, confirm. Its contacts and deals then belong to this company, and it is deleted.
import { useState } from 'preact/hooks';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { useAction } from '../lib/use-action.ts';
import { type Company, type CompanyRow, findOtherCompanies, type MergeStrategy, mergeInto } from './company-model.ts';

export function MergeCompany({ company, onMerged }: { company: Company; onMerged: (c: Company) => void }) {
  const [q, setQ] = useState('');
  const [found, setFound] = useState<CompanyRow[] | null>(null);
  const [chosen, setChosen] = useState<CompanyRow | null>(null);
  const [strategy, setStrategy] = useState<MergeStrategy>('prefer_primary');
  const [done, setDone] = useState('');
  const search = useAction();
  const merge = useAction();
  const find = (e: Event) => {
    e.preventDefault();
    if (!q.trim()) return;
    void search.run(async () => {
      setChosen(null);
      setFound(await findOtherCompanies(q.trim(), company.id));
    });
  };
  const confirm = () =>
    merge.run(async () => {
      if (!chosen) return;
      const merged = await mergeInto(company, chosen.id, strategy);
      setDone(`Merged “${chosen.name}” into this company: its contacts and deals are now here.`);
      setFound(null);
      setChosen(null);
      setQ('');
      onMerged(merged);
    });
  return (
    <details>
      <summary>Merge another company into this one</summary>
      <form role="search" class="search" onSubmit={find}>
        <label>
          Find the duplicate
          <input type="search" name="merge-q" value={q} onInput={(e) => setQ(e.currentTarget.value)} />
        </label>
        <button type="submit" disabled={search.busy}>
          Find
        </button>
      </form>
      <ErrorMessage error={search.error} />
      {found && found.length === 0 && <p role="status">No other company matches.</p>}
      {found && found.length > 0 && (
        <div class="stack">
          <fieldset>
            <legend>Company to merge into “{company.name}”</legend>
            {found.map((c) => (
              <label key={c.id} class="inline">
                <input
                  type="radio"
                  name="merge-secondary"
                  checked={chosen?.id === c.id}
                  onChange={() => setChosen(c)}
                />{' '}
                {c.name}
                {c.domain && <span class="hint"> · {c.domain}</span>}
              </label>
            ))}
          </fieldset>
          <label>
            Where both have a value, keep
            <select
              name="merge-strategy"
              value={strategy}
              onChange={(e) => setStrategy(e.currentTarget.value as MergeStrategy)}
            >
              <option value="prefer_primary">this company’s</option>
              <option value="prefer_secondary">the merged company’s</option>
            </select>
          </label>
          <div class="actions">
            <ConfirmButton
              label="Merge into this company"
              confirmLabel={chosen ? `Merge and delete “${chosen.name}”` : 'Merge'}
              disabled={!chosen || merge.busy}
              onConfirm={confirm}
            />
          </div>
        </div>
      )}
      <ErrorMessage error={merge.error} />
      {done && <p role="status">{done}</p>}
    </details>
  );
}
