// The page a one-time link opens (an invitation or a password reset), signed in or not. The token
// is in the URL's fragment, which the browser never sends; it is taken off the address bar at once.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { checkLink, setPasswordWithLink, type LinkInfo } from '../api/password.ts';
import type { Session } from '../api/session.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTitle } from '../lib/use-title.ts';

export const SET_PASSWORD_PATH = '/dashboard/set-password';
const MIN = 10;
const MAX = 1024;

function tokenOfLocation(): string {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? '';
}

export function SetPasswordPage({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  useTitle('Choose your password');
  const { route } = useLocation();
  const [token] = useState(tokenOfLocation);
  const [info, setInfo] = useState<LinkInfo | null>(null);
  const [linkError, setLinkError] = useState<unknown>(null);
  const [password, setPassword] = useState('');
  const [repeat, setRepeat] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    // Off the address bar and out of the history entry: the token is kept in memory only.
    if (window.location.hash) window.history.replaceState(window.history.state, '', SET_PASSWORD_PATH);
    if (!token) {
      setLinkError(new Error('This link is not complete: open the whole link from your e-mail or message.'));
      return;
    }
    checkLink(token).then(setInfo, setLinkError);
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    if (password !== repeat) {
      setError(new Error('The two passwords are not the same.'));
      return;
    }
    setBusy(true);
    try {
      const session = await setPasswordWithLink(token, password);
      route('/dashboard/pipeline', true);
      onSignedIn(session);
    } catch (err) {
      setError(err);
      setBusy(false);
    }
  };

  return (
    <main id="main" class="narrow sign-in" tabIndex={-1}>
      <h1>{info?.purpose === 'reset' ? 'Choose a new password' : 'Choose your password'}</h1>
      {!info && !linkError && <p role="status">Checking the link…</p>}
      {linkError ? (
        <>
          <ErrorMessage error={linkError} />
          <p>
            <a href="/dashboard">Go to sign-in</a>
          </p>
        </>
      ) : null}
      {info && (
        <form onSubmit={submit}>
          <p>
            {info.purpose === 'invite' ? 'Welcome, ' : 'For '}
            <strong>{info.user.name}</strong> ({info.user.email}).
          </p>
          <p class="hint">
            At least {MIN} characters. The link works once, until {new Date(info.expires_at).toLocaleString()}. Choosing
            the password you use in another workspace opens both when you sign in.
          </p>
          <input type="email" name="email" autoComplete="username" value={info.user.email} readOnly hidden />
          <label>
            New password
            <input
              type="password"
              name="password"
              autoComplete="new-password"
              required
              minLength={MIN}
              maxLength={MAX}
              autoFocus
              value={password}
              onInput={(e) => setPassword(e.currentTarget.value)}
            />
          </label>
          <label>
            Repeat the password
            <input
              type="password"
              name="repeat"
              autoComplete="new-password"
              required
              maxLength={MAX}
              value={repeat}
              onInput={(e) => setRepeat(e.currentTarget.value)}
            />
          </label>
          <ErrorMessage error={error} />
          <button type="submit" class="primary" disabled={busy}>
            {busy ? 'Saving…' : 'Set password and sign in'}
          </button>
        </form>
      )}
    </main>
  );
}
