// One contact: its fields (edited in place), its notes and its timeline (what happened to it, newest first).
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { ApiError } from '../api/errors.ts';
import { gql } from '../api/graphql.ts';
import { subscribe } from '../api/live.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime, formatMoney, fullName } from '../lib/format.ts';
import { useCursorPages } from '../lib/use-cursor-pages.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { ContactForm } from './contact-form.tsx';
import { NewDealDialog, type PipelineChoice } from './new-deal-dialog.tsx';
import { Notes } from './notes.tsx';
import { RecordActions } from './record-actions.tsx';

interface Contact {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
  company_id: string | null;
  job_title: string | null;
  status: string;
  source: string;
  tags: string[];
  engagement_score: number;
  custom_fields: Record<string, string | number | boolean>;
  created_at: string;
  updated_at: string;
  version: number;
  deals:
    | { id: string; title: string; value: number | null; currency: string; status: string; stage_name: string }[]
    | null;
}

interface TimelineEntry {
  id: string;
  type: string;
  summary: string | null;
  occurred_at: string;
  actor: { type: 'api_key' | 'user' | 'system'; id: string; name: string } | null;
}

interface TimelinePage {
  nodes: TimelineEntry[];
  next_cursor: string | null;
}

const CONTACT_FIELDS = `id first_name last_name email phone company company_id job_title status source tags
  engagement_score custom_fields created_at updated_at version
  deals(limit: 10) { id title value currency status stage_name }`;

const timeline = (contactId: string, cursor: string | null) =>
  gql<{ contactTimeline: TimelinePage }>(
    `query ($id: ID!, $cursor: String) { contactTimeline(contactId: $id, limit: 50, cursor: $cursor) {
      next_cursor nodes { id type summary occurred_at actor { type id name } } } }`,
    { id: contactId, cursor },
  ).then((d) => d.contactTimeline);

/** The pipelines with their stages, the default first, for a deal created from the contact's page. */
const loadPipelineChoices = () =>
  gql<{ pipelines: { nodes: (PipelineChoice & { is_default: boolean })[] } }>(
    '{ pipelines(limit: 100) { nodes { id name is_default stages { id name position probability } } } }',
  ).then((d) => [...d.pipelines.nodes].sort((a, b) => Number(b.is_default) - Number(a.is_default)));

/** "New deal" with this contact prefilled; the created deal opens on its page. */
function NewDealForContact({ contact, onClose }: { contact: Contact; onClose: () => void }) {
  const pipelines = useQuery(loadPipelineChoices, []);
  const { route } = useLocation();
  if (pipelines.error) return <ErrorMessage error={pipelines.error} />;
  if (!pipelines.data) return <p role="status">Loading pipelines…</p>;
  return (
    <NewDealDialog
      pipelines={pipelines.data}
      contact={contact}
      onCreated={(id) => route(`/dashboard/deals/${id}`)}
      onClose={onClose}
    />
  );
}

/** What a timeline entry says when the event has no summary: its name in words ("deal stage changed"). */
const inWords = (type: string) => type.replace(/[._]/g, ' ');

function Timeline({ contactId, version }: { contactId: string; version: number }) {
  const {
    first,
    items: entries,
    error,
    hasMore,
    loadMore,
  } = useCursorPages<TimelineEntry>((cursor) => timeline(contactId, cursor), [contactId, version]);
  return (
    <section aria-labelledby="timeline">
      <h2 id="timeline">Timeline</h2>
      <ErrorMessage error={error} />
      <ol class="timeline">
        {entries.map((e) => (
          <li key={e.id}>
            <time dateTime={e.occurred_at}>{formatDateTime(e.occurred_at)}</time>
            <span class="summary">{e.summary ?? inWords(e.type)}</span>
            {e.actor?.name && <span class="hint">by {e.actor.name}</span>}
          </li>
        ))}
        {first.data && entries.length === 0 && <li>Nothing has happened yet.</li>}
      </ol>
      {hasMore && (
        <button type="button" onClick={loadMore}>
          Show older
        </button>
      )}
    </section>
  );
}

export function ContactPage({ id }: { id: string }) {
  const contact = useQuery(
    () =>
      gql<{ contact: Contact }>(`query ($id: ID!) { contact(id: $id) { ${CONTACT_FIELDS} } }`, { id }).then(
        (d) => d.contact,
      ),
    [id],
  );
  const c = contact.data;
  const [editing, setEditing] = useState(false);
  /** Counts the "New deal" clicks (0: closed), so that each opens the dialog afresh. */
  const [newDeal, setNewDeal] = useState(0);
  // Raised by every change made here, so the timeline shows it.
  const [changes, setChanges] = useState(0);
  useTitle(c ? fullName(c) : 'Contact');
  // Changes made elsewhere show at once. Not while the form is open: it was filled from the version
  // shown, which its save must name, so that a change made meanwhile is refused rather than
  // overwritten; the page says so, and reads the contact again when the form closes.
  const editingRef = useRef(editing);
  editingRef.current = editing;
  const [changedElsewhere, setChangedElsewhere] = useState(false);
  useEffect(
    () =>
      subscribe<{ contactChanged: { event: string } }>(
        'subscription ($id: ID) { contactChanged(id: $id) { event } }',
        { id },
        {
          onData: () => {
            if (editingRef.current) return setChangedElsewhere(true);
            setChanges((n) => n + 1);
            void contact.reload();
          },
        },
      ),
    [id],
  );
  useEffect(() => {
    if (editing || !changedElsewhere) return;
    setChangedElsewhere(false);
    setChanges((n) => n + 1);
    void contact.reload();
  }, [editing, changedElsewhere]);
  const save = async (input: Record<string, unknown>) => {
    try {
      await gql(
        `mutation ($id: ID!, $version: Int, $input: ContactUpdateInput!) {
          updateContact(id: $id, expected_version: $version, input: $input) { id } }`,
        { id, version: c?.version, input },
      );
    } catch (err) {
      // Someone else saved in between: what they wrote is not overwritten unseen.
      if (err instanceof ApiError && err.status === 412)
        throw new ApiError(
          'Someone else changed this contact meanwhile: reload to see their change, then edit again.',
          412,
          err.code,
        );
      throw err;
    }
    setEditing(false);
    setChanges((n) => n + 1);
    await contact.reload();
  };
  // The linked company opens its page; the job title and a company named only as text stay text.
  const company = c?.company_id ? (
    <a href={`/dashboard/companies/${c.company_id}`}>{c.company ?? 'Company'}</a>
  ) : (
    c?.company
  );
  const fields: [string, ComponentChildren][] = c
    ? [
        ['Email', c.email ?? '—'],
        ['Phone', c.phone ?? '—'],
        [
          'Company',
          c.job_title && company ? (
            <>
              {c.job_title}, {company}
            </>
          ) : (
            c.job_title || company || '—'
          ),
        ],
        ['Status', c.status ?? '—'],
        ['Source', c.source ?? '—'],
        ['Tags', c.tags.join(', ') || '—'],
        ['Engagement score', String(c.engagement_score ?? '—')],
        ...Object.entries(c.custom_fields ?? {}).map(([k, v]): [string, string] => [k, String(v)]),
        ['Created', formatDateTime(c.created_at)],
        ['Updated', formatDateTime(c.updated_at)],
      ]
    : [];
  return (
    <>
      <p class="crumbs">
        <a href="/dashboard/contacts">Contacts</a> /
      </p>
      <ErrorMessage error={contact.error} />
      {c && (
        <div class="contact">
          <div>
            <h1>{fullName(c)}</h1>
            {editing && changedElsewhere && (
              <p role="status">
                Someone else changed this contact while this form was open: saving will be refused. Cancel to see their
                change.
              </p>
            )}
            {editing ? (
              <ContactForm
                initial={{ ...c, first_name: c.first_name ?? '', email: c.email ?? '' }}
                submitLabel="Save"
                onSubmit={save}
                onCancel={() => setEditing(false)}
              />
            ) : (
              <>
                <dl class="settings">
                  {fields.map(([k, v]) => (
                    <div key={k}>
                      <dt>{k}</dt>
                      <dd>{v}</dd>
                    </div>
                  ))}
                </dl>
                <div class="actions">
                  <button type="button" onClick={() => setEditing(true)}>
                    Edit contact
                  </button>
                  <a class="button" href={`/dashboard/contacts/${c.id}/merge`}>
                    Merge with another contact…
                  </a>
                  <button type="button" onClick={() => setNewDeal((n) => n + 1)}>
                    New deal
                  </button>
                </div>
                {newDeal > 0 && <NewDealForContact key={newDeal} contact={c} onClose={() => setNewDeal(0)} />}
              </>
            )}
            {c.deals && c.deals.length > 0 && (
              <section aria-labelledby="deals">
                <h2 id="deals">Deals</h2>
                <ul class="plain">
                  {c.deals.map((d) => (
                    <li key={d.id}>
                      <a href={`/dashboard/deals/${d.id}`}>{d.title}</a> · {formatMoney(d.value, d.currency)} ·{' '}
                      {d.status === 'open' ? d.stage_name : d.status}
                    </li>
                  ))}
                </ul>
              </section>
            )}
          </div>
          <div>
            <RecordActions about={{ type: 'contact', id }} onDone={() => setChanges((n) => n + 1)} />
            <Notes of={{ type: 'contact', id }} onAdded={() => setChanges((n) => n + 1)} />
            <Timeline contactId={id} version={changes} />
          </div>
        </div>
      )}
    </>
  );
}
