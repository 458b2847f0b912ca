import { useState } from 'preact/hooks';
import { ApiError } from '../api/errors.ts';
import { signIn, type Session } from '../api/session.ts';
import { ErrorMessage } from '../components/error-message.tsx';
import { useTitle } from '../lib/use-title.ts';

export function SignIn({ onSignedIn }: { onSignedIn: (s: Session) => void }) {
  useTitle('Sign in');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      onSignedIn(await signIn(email, password));
    } catch (err) {
      setError(
        err instanceof ApiError && err.status === 401 ? new Error('The email or password is not correct.') : err,
      );
      setBusy(false);
    }
  };

  return (
    <main id="main" class="narrow sign-in">
      <h1>Sign in to the CRM dashboard</h1>
      <form onSubmit={submit}>
        <label>
          Email
          <input
            type="email"
            name="email"
            autoComplete="username"
            required
            autoFocus
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            name="password"
            autoComplete="current-password"
            required
            value={password}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
        </label>
        <ErrorMessage error={error} />
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="hint">
        New here, or forgot your password? Ask a colleague for a link from the Team page (an administrator can also set
        it with <code>npm run cli -- user set-password</code>).
      </p>
    </main>
  );
}
