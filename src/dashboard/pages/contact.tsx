// One contact: its fields (edited in place), its notes and its timeline (what happened to it, newest first).
import { useState } from 'preact/hooks';
import { ApiError } from '../api/errors.ts';
import { gql } from '../api/graphql.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime, formatMoney, fullName } from '../lib/format.ts';
import { useCursorPages } from '../lib/use-cursor-pages.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { ContactActions } from './contact-actions.tsx';
import { ContactForm } from './contact-form.tsx';
import { ContactNotes } from './contact-notes.tsx';

interface Contact {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  phone: string | null;
  company: string | null;
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

const CONTACT_FIELDS = `id first_name last_name email phone company job_title status source tags
  engagement_score custom_fields created_at updated_at version
  deals(limit: 10) { id title value currency status stage_name }`;

const timeline = (contactId: string, cursor: string | null) =>
  gql<{ contactTimeline: TimelinePage }>(
    `query ($id: ID!, $cursor: String) { contactTimeline(contactId: $id, limit: 50, cursor: $cursor) {
      next_cursor nodes { id type summary occurred_at actor { type id name } } } }`,
    { id: contactId, cursor },
  ).then((d) => d.contactTimeline);

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
  // Raised by every change made here, so the timeline shows it.
  const [changes, setChanges] = useState(0);
  useTitle(c ? fullName(c) : 'Contact');
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
  const fields: [string, string][] = c
    ? [
        ['Email', c.email ?? '—'],
        ['Phone', c.phone ?? '—'],
        ['Company', [c.job_title, c.company].filter(Boolean).join(', ') || '—'],
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
                </div>
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
            <ContactActions contactId={id} onDone={() => setChanges((n) => n + 1)} />
            <ContactNotes contactId={id} onAdded={() => setChanges((n) => n + 1)} />
            <Timeline contactId={id} version={changes} />
          </div>
        </div>
      )}
    </>
  );
}
