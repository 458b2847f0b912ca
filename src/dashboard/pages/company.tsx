// One company: its fields (each edits in place, only over the version shown), its contacts and deals
// as links, what a person records about it (an activity, a follow-up task, a note), the activities
// logged with it and its contacts, and its timeline in words, newest first.
import type { ComponentChildren } from 'preact';
import { useCallback, useState } from 'preact/hooks';
import { ErrorMessage } from '../components/error-message.tsx';
import { InlineEdit } from '../components/inline-edit.tsx';
import { formatDateTime, formatMoney, fullName } from '../lib/format.ts';
import { useCursorPages } from '../lib/use-cursor-pages.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import {
  type Company,
  type CompanyActivity,
  type CompanyContact,
  type CompanyDeal,
  type CompanyTimelineEntry,
  loadCompany,
  loadCompanyActivities,
  loadCompanyContacts,
  loadCompanyDeals,
  loadCompanyTimeline,
  sizeOf,
  tagsOf,
  timelineText,
  updateCompany,
} from './company-model.ts';
import { type Gone, useCompanyLive } from './company-live.ts';
import { MergeCompany } from './company-merge.tsx';
import { loadUsers } from './deal-model.ts';
import { Notes } from './notes.tsx';
import { RecordActions } from './record-actions.tsx';

function Row({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

interface FieldsProps {
  company: Company;
  onSaved: (c: Company) => void;
  onEditing: (open: boolean) => void;
}

function Fields({ company: c, onSaved, onEditing }: FieldsProps) {
  const users = useQuery(loadUsers, []);
  const save = (input: Record<string, unknown>) => updateCompany(c, input).then(onSaved);
  // Blank clears a field; the name is required, so a blank one is the API's to refuse.
  const text = (key: 'name' | 'domain' | 'industry' | 'phone', label: string) => (
    <Row label={label}>
      <InlineEdit
        label={label.toLowerCase()}
        value={c[key] ?? ''}
        onEditing={onEditing}
        onSave={(v) => save({ [key]: v === '' && key !== 'name' ? null : v })}
      >
        {c[key] ?? '—'}
      </InlineEdit>
    </Row>
  );
  const owners = [
    { value: '', label: 'No owner' },
    ...(users.data ?? []).filter((u) => u.active || u.id === c.owner_id).map((u) => ({ value: u.id, label: u.name })),
  ];
  return (
    <dl class="settings company-fields">
      {text('name', 'Name')}
      {text('domain', 'Domain')}
      {text('industry', 'Industry')}
      <Row label="Employees">
        {/* Text, not a number input: that hands over '' for text it cannot read, which would clear the size. */}
        <InlineEdit
          label="employees"
          value={c.size === null ? '' : String(c.size)}
          onEditing={onEditing}
          onSave={(v) => save({ size: sizeOf(v) })}
        >
          {c.size === null ? '—' : c.size.toLocaleString()}
        </InlineEdit>
      </Row>
      {text('phone', 'Phone')}
      <Row label="Tags">
        <InlineEdit
          label="tags"
          value={c.tags.join(', ')}
          onEditing={onEditing}
          onSave={(v) => save({ tags: tagsOf(v) })}
        >
          {c.tags.join(', ') || '—'}
        </InlineEdit>
      </Row>
      <Row label="Owner">
        <InlineEdit
          label="owner"
          value={c.owner_id ?? ''}
          options={owners}
          onEditing={onEditing}
          onSave={(v) => save({ owner_id: v || null })}
        >
          {c.owner?.name ?? '—'}
        </InlineEdit>
        <ErrorMessage error={users.error} />
      </Row>
      <Row label="Created">{formatDateTime(c.created_at)}</Row>
      <Row label="Updated">{formatDateTime(c.updated_at)}</Row>
    </dl>
  );
}

/** A section listing a page of related records, with its loading, empty and error states. */
function Related<T extends { id: string }>({
  id,
  title,
  empty,
  load,
  deps,
  item,
  list = 'plain',
}: {
  id: string;
  title: string;
  empty: string;
  load: (cursor: string | null) => Promise<{ nodes: T[]; next_cursor: string | null }>;
  deps: unknown[];
  item: (row: T) => ComponentChildren;
  list?: 'plain' | 'timeline';
}) {
  const { first, items, error, hasMore, loadMore } = useCursorPages<T>(load, deps);
  return (
    <section aria-labelledby={id}>
      <h2 id={id}>{title}</h2>
      <ErrorMessage error={error} />
      {first.loading && !first.data && <p role="status">Loading…</p>}
      {first.data && items.length === 0 ? (
        <p>{empty}</p>
      ) : list === 'plain' ? (
        <ul class="plain">
          {items.map((row) => (
            <li key={row.id}>{item(row)}</li>
          ))}
        </ul>
      ) : (
        <ol class="timeline">
          {items.map((row) => (
            <li key={row.id}>{item(row)}</li>
          ))}
        </ol>
      )}
      {hasMore && (
        <button type="button" onClick={loadMore}>
          Show more
        </button>
      )}
    </section>
  );
}

const contactItem = (c: CompanyContact) => (
  <>
    <a href={`/dashboard/contacts/${c.id}`}>{fullName(c)}</a>
    {c.job_title && ` · ${c.job_title}`}
    {c.email && <span class="hint"> · {c.email}</span>}
  </>
);

const dealItem = (d: CompanyDeal) => (
  <>
    <a href={`/dashboard/deals/${d.id}`}>{d.title}</a> · {formatMoney(d.value, d.currency)} ·{' '}
    {d.status === 'open' ? d.stage_name : d.status}
  </>
);

const activityItem = (a: CompanyActivity) => (
  <>
    <time dateTime={a.occurred_at}>{formatDateTime(a.occurred_at)}</time>
    <span class="summary">
      {a.subject ?? a.type}
      {a.contact && (
        <>
          {' '}
          with <a href={`/dashboard/contacts/${a.contact.id}`}>{fullName(a.contact)}</a>
        </>
      )}
    </span>
    <span class="hint">{a.type}</span>
  </>
);

const timelineItem = (e: CompanyTimelineEntry) => (
  <>
    <time dateTime={e.occurred_at}>{formatDateTime(e.occurred_at)}</time>
    <span class="summary">{timelineText(e)}</span>
    {e.actor?.name && <span class="hint">by {e.actor.name}</span>}
  </>
);

/** What the page shows once the company is deleted or merged away, instead of its fields. */
function GoneNotice({ name, gone }: { name: string; gone: Gone }) {
  return (
    <>
      <h1>{name}</h1>
      <p role="status">
        {gone.kind === 'deleted' ? (
          <>This company was deleted.</>
        ) : (
          <>
            This company was merged into <a href={`/dashboard/companies/${gone.into.id}`}>{gone.into.name}</a>: its
            contacts and deals are there now.
          </>
        )}
      </p>
      <p>
        <a href="/dashboard/companies">All companies</a>
      </p>
    </>
  );
}

export function CompanyPage({ id }: { id: string }) {
  const company = useQuery(() => loadCompany(id), [id]);
  const [shown, setShown] = useState<Company | null>(null);
  const c = shown?.id === id && company.data && shown.version >= company.data.version ? shown : company.data;
  // Raised by every activity, task or note recorded here, so the lists below show it.
  const [recorded, setRecorded] = useState(0);
  const record = () => setRecorded((n) => n + 1);
  // Open inline editors: a change made elsewhere waits until none is.
  const [editors, setEditors] = useState(0);
  const onEditing = useCallback((open: boolean) => setEditors((n) => n + (open ? 1 : -1)), []);
  const live = useCompanyLive(id, c?.version ?? 0, editors > 0, () => void company.reload());
  useTitle(c ? c.name : 'Company');
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/companies">Companies</a> /
      </p>
      {company.loading && !c && <p role="status">Loading…</p>}
      {/* A read in flight when the company went finds nothing: the notice below says why. */}
      <ErrorMessage error={live.gone ? null : company.error} />
      {c && live.gone && <GoneNotice name={c.name} gone={live.gone} />}
      {c && !live.gone && (
        <div class="company">
          <div>
            <h1>{c.name}</h1>
            {live.held && (
              <p role="status">
                Someone else changed this company while a field was open for editing: saving it will be refused. Cancel
                to see their change.
              </p>
            )}
            <Fields company={c} onSaved={setShown} onEditing={onEditing} />
            <Related
              id="company-contacts"
              title="Contacts"
              empty="No contacts work here yet."
              load={(cursor) => loadCompanyContacts(id, cursor)}
              deps={[id, c.version, live.related]}
              item={contactItem}
            />
            <Related
              id="company-deals"
              title="Deals"
              empty="No deals with this company yet."
              load={(cursor) => loadCompanyDeals(id, cursor)}
              deps={[id, c.version, live.related]}
              item={dealItem}
            />
          </div>
          <div>
            <section aria-label="Merge a duplicate" class="company-actions">
              <MergeCompany company={c} onMerged={setShown} />
            </section>
            <RecordActions about={{ type: 'company', id }} onDone={record} />
            <Notes of={{ type: 'company', id }} onAdded={record} />
            <Related
              id="company-activities"
              title="Activities"
              empty="No activities logged with it or its contacts yet."
              load={(cursor) => loadCompanyActivities(id, cursor)}
              deps={[id, c.version, recorded, live.related]}
              item={activityItem}
              list="timeline"
            />
            <Related
              id="timeline"
              title="Timeline"
              empty="Nothing has happened yet."
              load={(cursor) => loadCompanyTimeline(id, cursor)}
              deps={[id, c.version, recorded, live.related]}
              item={timelineItem}
              list="timeline"
            />
          </div>
        </div>
      )}
    </>
  );
}
