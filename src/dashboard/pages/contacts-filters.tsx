// The Contacts list's search and filter form, and the saved views (named query strings kept in
// this browser per workspace).
import { useEffect, useState } from 'preact/hooks';
import { FormDialog } from '../components/form-dialog.tsx';
import {
  CONTACT_SOURCES,
  CONTACT_STATUSES,
  type ContactsView,
  isFiltered,
  parseSavedViews,
  type SavedView,
  savedViewsKey,
  withSavedView,
} from './contacts-model.ts';

export interface ContactsMeta {
  users: { nodes: { id: string; name: string; active: boolean }[] };
  customFields: { key: string; label: string | null; type: string; options: string[] }[];
}

const label = (s: string) => s.replace('_', ' ');

export function ContactFilters({
  view,
  meta,
  onApply,
}: {
  view: ContactsView;
  meta: ContactsMeta | undefined;
  onApply(view: ContactsView): void;
}) {
  const [draft, setDraft] = useState(view);
  // Back, Forward or a saved view show their own values in the form.
  useEffect(() => setDraft(view), [view]);
  const set = (k: keyof ContactsView) => (e: Event) =>
    setDraft({ ...draft, [k]: (e.currentTarget as HTMLInputElement).value });
  const field = meta?.customFields.find((f) => f.key === draft.cf);
  const active = isFiltered({ ...view, q: '' });
  const submit = (e: Event) => {
    e.preventDefault();
    onApply({ ...draft, q: draft.q.trim(), tag: draft.tag.trim(), cfv: draft.cf ? draft.cfv.trim() : '' });
  };

  return (
    <form role="search" aria-label="Contacts" onSubmit={submit} class="contact-filters">
      <div class="search">
        <label>
          Search contacts <span class="hint">(names, email, company)</span>
          <input type="search" name="q" value={draft.q} onInput={set('q')} />
        </label>
        <button type="submit">Search</button>
      </div>
      <details open={active}>
        <summary>Filters{active ? ' (in use)' : ''}</summary>
        <div class="columns">
          <label>
            Status
            <select value={draft.status} onChange={set('status')}>
              <option value="">Any status</option>
              {CONTACT_STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </label>
          <label>
            Source
            <select value={draft.source} onChange={set('source')}>
              <option value="">Any source</option>
              {CONTACT_SOURCES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Tag
            <input value={draft.tag} maxLength={100} onInput={set('tag')} />
          </label>
          <label>
            Assigned to
            <select value={draft.owner} onChange={set('owner')}>
              <option value="">Anyone</option>
              <option value="none">Nobody (unassigned)</option>
              {(meta?.users.nodes ?? []).map((u) => (
                <option key={u.id} value={u.id}>
                  {u.active ? u.name : `${u.name} (inactive)`}
                </option>
              ))}
            </select>
          </label>
          <label>
            Created from
            <input type="date" value={draft.created_from} onInput={set('created_from')} />
          </label>
          <label>
            Created until
            <input type="date" value={draft.created_to} onInput={set('created_to')} />
          </label>
          <label>
            Updated from
            <input type="date" value={draft.updated_from} onInput={set('updated_from')} />
          </label>
          <label>
            Updated until
            <input type="date" value={draft.updated_to} onInput={set('updated_to')} />
          </label>
          {(meta?.customFields.length ?? 0) > 0 && (
            <>
              <label>
                Custom field
                <select value={draft.cf} onChange={(e) => setDraft({ ...draft, cf: e.currentTarget.value, cfv: '' })}>
                  <option value="">None</option>
                  {meta?.customFields.map((f) => (
                    <option key={f.key} value={f.key}>
                      {f.label ?? f.key}
                    </option>
                  ))}
                </select>
              </label>
              {field && (field.type === 'select' || field.type === 'boolean') && (
                <label>
                  {field.label ?? field.key} is
                  <select value={draft.cfv} onChange={set('cfv')}>
                    <option value="">Any</option>
                    {(field.type === 'boolean' ? ['true', 'false'] : field.options).map((o) => (
                      <option key={o} value={o}>
                        {o === 'true' ? 'yes' : o === 'false' ? 'no' : o}
                      </option>
                    ))}
                  </select>
                </label>
              )}
              {field && field.type !== 'select' && field.type !== 'boolean' && (
                <label>
                  {field.label ?? field.key} {field.type === 'text' ? 'contains' : 'is'}
                  <input
                    type={(field.type === 'number' || field.type === 'date' ? field.type : 'text') as 'text'}
                    value={draft.cfv}
                    onInput={set('cfv')}
                  />
                </label>
              )}
            </>
          )}
        </div>
        <div class="actions">
          <button type="submit" class="primary">
            Apply filters
          </button>
          {active && (
            <a href={view.q ? `/dashboard/contacts?q=${encodeURIComponent(view.q)}` : '/dashboard/contacts'}>
              Clear filters
            </a>
          )}
        </div>
      </details>
    </form>
  );
}

function readViews(key: string): SavedView[] {
  try {
    return parseSavedViews(localStorage.getItem(key));
  } catch {
    return [];
  }
}

/** The saved views as links (a saved view is just a URL), and saving the current one under a name. */
export function SavedViews({ workspaceId, current }: { workspaceId: string; current: string }) {
  const key = savedViewsKey(workspaceId);
  const [views, setViews] = useState(() => readViews(key));
  const [saving, setSaving] = useState(false);
  const [name, setName] = useState('');
  const store = (next: SavedView[]) => {
    localStorage.setItem(key, JSON.stringify(next));
    setViews(next);
  };

  return (
    <div class="saved-views">
      <nav aria-label="Saved views">
        <span class="hint">Saved views:</span> {views.length === 0 && <span class="hint">none yet</span>}
        <ul>
          {views.map((v) => (
            <li key={v.name}>
              <a href={`/dashboard/contacts${v.query}`} aria-current={v.query === current ? 'page' : undefined}>
                {v.name}
              </a>
              <button
                type="button"
                class="link"
                aria-label={`Forget the saved view ${v.name}`}
                onClick={() => store(views.filter((x) => x.name !== v.name))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <button type="button" onClick={() => setSaving(true)}>
        Save view…
      </button>
      {saving && (
        <FormDialog
          title="Save this view"
          submitLabel="Save view"
          onSubmit={async () => {
            if (!name.trim()) throw new Error('Give the view a name.');
            store(withSavedView(views, { name, query: current }));
          }}
          onClose={() => {
            setSaving(false);
            setName('');
          }}
        >
          <p class="hint">The search, filters and sort as they are now, kept in this browser for this workspace.</p>
          <label>
            Name
            <input value={name} maxLength={80} required onInput={(e) => setName(e.currentTarget.value)} />
          </label>
        </FormDialog>
      )}
    </div>
  );
}
