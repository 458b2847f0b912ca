// The workspace's people: invite a colleague (a one-time link, shown once and e-mailed when the
// server can), a password reset link, deactivate and reactivate.
import { useState } from 'preact/hooks';
import { gql } from '../api/graphql.ts';
import { ConfirmButton } from '../components/confirm-button.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { ScrollBox } from '../components/scroll-box.tsx';
import { SecretOnce } from '../components/secret-once.tsx';
import { formatDateTime } from '../lib/format.ts';
import { useAction } from '../lib/use-action.ts';
import { useQuery } from '../lib/use-query.ts';
import { useTitle } from '../lib/use-title.ts';
import { useSession } from '../session-context.ts';

interface Member {
  id: string;
  name: string;
  email: string;
  active: boolean;
  password_set: boolean | null;
  invited_until: string | null;
}

interface IssuedLink {
  url: string;
  expires_at: string;
  emailed: boolean;
}

const MEMBER_FIELDS = 'id name email active password_set invited_until';
const LINK_FIELDS = 'url expires_at emailed';
/** The list shows the workspace's first 100 users by name (the API's page size). */
const SHOWN = 100;

function status(m: Member): { label: string; tone: string } {
  if (!m.active) return { label: 'Deactivated', tone: 'off' };
  if (m.password_set) return { label: 'Active', tone: 'ok' };
  if (m.invited_until) return { label: `Invitation pending until ${formatDateTime(m.invited_until)}`, tone: 'wait' };
  return { label: 'No password yet', tone: 'wait' };
}

function InviteForm({ onInvited }: { onInvited: (name: string, email: string, link: IssuedLink) => Promise<void> }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const { error, busy, run } = useAction();
  const submit = (e: Event) => {
    e.preventDefault();
    return run(async () => {
      const data = await gql<{ inviteUser: { user: Member; link: IssuedLink } }>(
        `mutation ($input: UserInviteInput!) {
          inviteUser(input: $input) { user { ${MEMBER_FIELDS} } link { ${LINK_FIELDS} } }
        }`,
        { input: { name, email } },
      );
      setName('');
      setEmail('');
      await onInvited(data.inviteUser.user.name, data.inviteUser.user.email, data.inviteUser.link);
    });
  };
  return (
    <form onSubmit={submit} class="stack">
      <div class="columns">
        <label>
          Name
          <input name="name" required maxLength={255} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Email
          <input
            name="email"
            type="email"
            required
            maxLength={255}
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
      </div>
      <ErrorMessage error={error} />
      <div>
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Inviting…' : 'Invite'}
        </button>
      </div>
    </form>
  );
}

export function TeamPage() {
  useTitle('Team');
  const session = useSession();
  const members = useQuery(
    () =>
      gql<{ users: { nodes: Member[]; total: number } }>(
        `{ users(limit: ${SHOWN}) { nodes { ${MEMBER_FIELDS} } total } }`,
      ).then((d) => d.users),
    [],
  );
  const [shown, setShown] = useState<{ title: string; link: IssuedLink; email: string } | null>(null);
  const { error, run } = useAction();

  const reset = (m: Member) =>
    run(async () => {
      const data = await gql<{ createPasswordResetLink: IssuedLink }>(
        `mutation ($id: ID!) { createPasswordResetLink(userId: $id) { ${LINK_FIELDS} } }`,
        { id: m.id },
      );
      setShown({ title: `Password reset link for ${m.name}`, link: data.createPasswordResetLink, email: m.email });
      await members.reload();
    });
  const setActive = (m: Member, active: boolean) =>
    run(async () => {
      const variables = { id: m.id };
      // Two whole documents, so that each is checked against the schema (test/dashboard.queries.test.ts).
      if (active) await gql('mutation ($id: ID!) { reactivateUser(id: $id) { id active } }', variables);
      else await gql('mutation ($id: ID!) { deactivateUser(id: $id) { id active } }', variables);
      await members.reload();
    });

  const list = members.data?.nodes;
  return (
    <>
      <h1>Team</h1>
      <p class="lead">
        The people who work in {session.workspace.name}. Each signs in to this dashboard with their own password, and
        has full access to the workspace.
      </p>
      {shown && (
        <>
          <SecretOnce label={shown.title} value={shown.link.url} id="password-link" />
          <p role="status" class="hint">
            {shown.link.emailed
              ? `E-mailed to ${shown.email}. `
              : 'Not e-mailed (no mail server is configured, or it refused): ' +
                `send the link to ${shown.email} yourself. `}
            It works once, until {formatDateTime(shown.link.expires_at)}.
          </p>
        </>
      )}
      <section class="panel" aria-labelledby="invite">
        <h2 id="invite">Invite a colleague</h2>
        <InviteForm
          onInvited={async (name, email, link) => {
            setShown({ title: `Invitation link for ${name}`, link, email });
            await members.reload();
          }}
        />
      </section>
      <ErrorMessage error={error ?? members.error} />
      <ScrollBox label="Team">
        <table class="team">
          <caption>People of {session.workspace.name}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Email</th>
              <th scope="col">Status</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list?.map((m) => {
              const s = status(m);
              const me = m.id === session.user.id;
              return (
                <tr key={m.id} class={m.active ? undefined : 'muted'}>
                  <td>
                    {m.name}
                    {me && <span class="hint"> (you)</span>}
                  </td>
                  <td class="email">{m.email}</td>
                  <td>
                    <span class={`badge ${s.tone}`}>{s.label}</span>
                  </td>
                  <td>
                    <div class="actions">
                      {m.active && (
                        <ConfirmButton
                          label={m.password_set ? 'Reset password' : 'New invitation link'}
                          confirmLabel={`Create a link for ${m.name}`}
                          onConfirm={() => reset(m)}
                        />
                      )}
                      {m.active && !me && (
                        <ConfirmButton
                          label="Deactivate"
                          confirmLabel={`Deactivate ${m.name}`}
                          onConfirm={() => setActive(m, false)}
                        />
                      )}
                      {!m.active && (
                        <ConfirmButton
                          label="Reactivate"
                          confirmLabel={`Reactivate ${m.name}`}
                          onConfirm={() => setActive(m, true)}
                        />
                      )}
                    </div>
                  </td>
                </tr>
              );
            })}
            {list?.length === 0 && (
              <tr>
                <td colSpan={4}>No users yet.</td>
              </tr>
            )}
          </tbody>
        </table>
      </ScrollBox>
      {members.data && members.data.total > SHOWN && (
        <p class="hint">
          Showing the first {SHOWN} of {members.data.total} users, by name.
        </p>
      )}
      {members.loading && !members.data && <p role="status">Loading…</p>}
    </>
  );
}
