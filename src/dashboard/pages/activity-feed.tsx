// The activity feed: the workspace's calls, emails, meetings, notes and texts, newest first, in
// sentences with links to the contact and deal. Older ones load on demand; activities logged by
// anyone else arrive live over the events subscription.
import { useEffect, useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { subscribe } from '../api/live.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { formatDateTime, fullName } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';

interface Activity {
  id: string;
  type: 'call' | 'email' | 'meeting' | 'note' | 'sms';
  subject: string | null;
  description: string | null;
  outcome: string | null;
  duration: number | null;
  occurred_at: string;
  user_id: string | null;
  contact: { id: string; first_name: string | null; last_name: string | null } | null;
  deal: { id: string; title: string } | null;
}

interface Page {
  nodes: Activity[];
  next_cursor: string | null;
}

const ACTIVITY_FIELDS = `id type subject description outcome duration occurred_at user_id
  contact { id first_name last_name } deal { id title }`;

/** What someone did, with the contact and without one. */
const DID: Record<Activity['type'], { label: string; with: string; alone: string }> = {
  call: { label: 'Call', with: 'called', alone: 'made a call' },
  email: { label: 'Email', with: 'emailed', alone: 'sent an email' },
  meeting: { label: 'Meeting', with: 'met', alone: 'held a meeting' },
  note: { label: 'Note', with: 'wrote a note on', alone: 'wrote a note' },
  sms: { label: 'Text message', with: 'texted', alone: 'sent a text message' },
};

const OUTCOMES: Record<string, string> = {
  busy: 'Line busy',
  completed: 'Completed',
  connected: 'Connected',
  no_answer: 'No answer',
  scheduled: 'Scheduled',
  voicemail: 'Left a voicemail',
};

/** Newest first by when it happened; each activity once. */
function merged(lists: Activity[][]): Activity[] {
  const byId = new Map<string, Activity>();
  for (const list of lists) for (const a of list) byId.set(a.id, a);
  return [...byId.values()].sort((a, b) => b.occurred_at.localeCompare(a.occurred_at) || b.id.localeCompare(a.id));
}

function Item({ activity: a, who, fresh }: { activity: Activity; who: string; fresh: boolean }) {
  const did = DID[a.type] ?? { label: a.type, with: `logged a ${a.type} with`, alone: `logged a ${a.type}` };
  return (
    <li class="activity" data-activity-id={a.id}>
      <p class="activity-head">
        <span class="badge">{did.label}</span> {fresh && <span class="badge ok">New</span>}{' '}
        <time dateTime={a.occurred_at}>{formatDateTime(a.occurred_at)}</time>
      </p>
      <p class="activity-what">
        {who}{' '}
        {a.contact ? (
          <>
            {did.with} <a href={`/dashboard/contacts/${a.contact.id}`}>{fullName(a.contact)}</a>
          </>
        ) : (
          did.alone
        )}
        {a.deal && (
          <>
            {' '}
            about the deal <a href={`/dashboard/deals/${a.deal.id}`}>{a.deal.title}</a>
          </>
        )}
        {a.subject && <>: “{a.subject}”</>}
      </p>
      {(a.outcome || a.duration != null) && (
        <p class="hint">
          {[a.outcome && (OUTCOMES[a.outcome] ?? a.outcome), a.duration != null && `${a.duration} min`]
            .filter(Boolean)
            .join(' · ')}
        </p>
      )}
      {a.description && <p class="activity-description">{a.description}</p>}
    </li>
  );
}

export function ActivityFeedPage() {
  useTitle('Activity');
  const [older, setOlder] = useState<Activity[]>([]);
  const [arrived, setArrived] = useState<Activity[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [live, setLive] = useState('connecting');
  const { error, busy, run } = useAction();

  const users = useQuery(
    () =>
      gql<{ users: { nodes: { id: string; name: string }[] } }>('{ users(limit: 100) { nodes { id name } } }').then(
        (d) => new Map(d.users.nodes.map((u) => [u.id, u.name])),
      ),
    [],
  );
  const first = useQuery(async () => {
    const page = (
      await gql<{ activityFeed: Page }>(`{ activityFeed(limit: 25) { next_cursor nodes { ${ACTIVITY_FIELDS} } } }`)
    ).activityFeed;
    setCursor(page.next_cursor);
    return page.nodes;
  }, []);
  const loadOlder = () =>
    run(async () => {
      const page = (
        await gql<{ activityFeed: Page }>(
          `query ($cursor: String) { activityFeed(limit: 25, cursor: $cursor) {
            next_cursor nodes { ${ACTIVITY_FIELDS} } } }`,
          { cursor },
        )
      ).activityFeed;
      setOlder((o) => [...o, ...page.nodes]);
      setCursor(page.next_cursor);
    });

  useEffect(
    () =>
      subscribe(
        'subscription { events(types: ["activity.logged"]) { id data } }',
        {},
        {
          onData: ({ events }: { events: { data: { activity?: { id: string } } | null } }) => {
            const id = events.data?.activity?.id;
            if (!id) return;
            // The event carries ids only: the activity is read again for its contact's and deal's names.
            gql<{ activity: Activity }>(`query ($id: ID!) { activity(id: $id) { ${ACTIVITY_FIELDS} } }`, { id }).then(
              (d) => setArrived((a) => [d.activity, ...a]),
              (err) => setLive(err instanceof Error ? err.message : 'an activity could not be read'),
            );
          },
          onError: (message) => setLive(message),
          onConnection: (up) => setLive(up ? 'on' : 'connecting'),
        },
      ),
    [],
  );

  const activities = merged([first.data ?? [], older, arrived]);
  const fresh = new Set(arrived.map((a) => a.id));
  const whoOf = (a: Activity) => (a.user_id ? (users.data?.get(a.user_id) ?? 'A former user') : 'An API client');

  return (
    <>
      <h1>Activity</h1>
      <p class="lead">Calls, emails, meetings, notes and text messages logged in this workspace, newest first.</p>
      <p class="hint live" role="status">
        {live === 'on'
          ? 'Live: activities logged by others appear here as they happen.'
          : live === 'connecting'
            ? 'Connecting for live updates…'
            : `Live updates unavailable: ${live}`}
      </p>
      <ErrorMessage error={first.error ?? users.error ?? error} />
      {first.loading && <p role="status">Loading…</p>}
      {first.data && activities.length === 0 && <p>No activities have been logged yet.</p>}
      <ol class="activities" aria-label="Activities, newest first">
        {activities.map((a) => (
          <Item key={a.id} activity={a} who={whoOf(a)} fresh={fresh.has(a.id)} />
        ))}
      </ol>
      {cursor && !first.loading && (
        <button type="button" disabled={busy} onClick={() => void loadOlder()}>
          Show older activities
        </button>
      )}
    </>
  );
}
