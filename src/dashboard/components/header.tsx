// Navigation, the workspace and environment switches, and sign-out.
import { useLocation } from 'preact-iso/router';
import { signOut, switchSession, type Environment, type Session } from '../api/session.ts';
import { useAction } from '../lib/use-action.ts';
import { ErrorMessage } from './error-message.tsx';

const LINKS = [
  { href: '/dashboard/pipeline', label: 'Pipeline' },
  { href: '/dashboard/contacts', label: 'Contacts' },
  { href: '/dashboard/companies', label: 'Companies' },
  { href: '/dashboard/tasks', label: 'Tasks' },
  { href: '/dashboard/activity', label: 'Activity' },
  { href: '/dashboard/insight', label: 'Insight' },
  { href: '/dashboard/keys', label: 'API keys' },
  { href: '/dashboard/webhooks', label: 'Webhooks' },
  { href: '/dashboard/imports', label: 'Imports' },
  { href: '/dashboard/custom-fields', label: 'Custom fields' },
  { href: '/dashboard/audit', label: 'Audit log' },
  { href: '/dashboard/team', label: 'Team' },
];

export function Header({
  session,
  onSessionChange,
}: {
  session: Session;
  onSessionChange: (s: Session | null) => void;
}) {
  const { path, route } = useLocation();
  const { error, busy, run } = useAction();
  const change = (c: { workspace_id?: string; environment?: Environment }) =>
    run(async () => onSessionChange(await switchSession(c)));
  const leave = () =>
    run(async () => {
      await signOut();
      onSessionChange(null);
      route('/dashboard', true);
    });

  return (
    <header class={session.environment === 'sandbox' ? 'top sandbox' : 'top'}>
      <div class="brand">CRM dashboard</div>
      <nav aria-label="Main">
        <ul>
          {LINKS.map((l) => (
            <li key={l.href}>
              <a href={l.href} aria-current={path.startsWith(l.href) ? 'page' : undefined}>
                {l.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <div class="switches">
        {session.workspaces.length > 1 ? (
          <label>
            Workspace
            <select
              disabled={busy}
              value={session.workspace.id}
              onChange={(e) => change({ workspace_id: e.currentTarget.value })}
            >
              {session.workspaces.map((w) => (
                <option key={w.id} value={w.id}>
                  {w.name}
                </option>
              ))}
            </select>
          </label>
        ) : (
          <span class="workspace-name" title="Workspace">
            {session.workspace.name}
          </span>
        )}
        <label>
          Data
          <select
            disabled={busy}
            value={session.environment}
            onChange={(e) => change({ environment: e.currentTarget.value as Environment })}
          >
            <option value="production">Production</option>
            <option value="sandbox">Sandbox</option>
          </select>
        </label>
        <span class="user" title={session.user.email}>
          {session.user.name}
        </span>
        <button type="button" disabled={busy} onClick={leave}>
          Sign out
        </button>
      </div>
      {session.environment === 'sandbox' && (
        <p class="sandbox-note">Sandbox: you are seeing and changing the workspace's separate test data.</p>
      )}
      <ErrorMessage error={error} />
    </header>
  );
}
