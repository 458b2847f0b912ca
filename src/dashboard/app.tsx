// Signed out: the sign-in page. Signed in: header and the page of the URL. Switching workspace or
// environment remounts the pages, so nothing of the previous workspace stays on screen.
import { useEffect, useState } from 'preact/hooks';
import { LocationProvider } from 'preact-iso/router';
import { resetLive } from './api/live.ts';
import { loadSession, onSignedOut, type Session } from './api/session.ts';
import { ErrorMessage } from './components/error-message.tsx';
import { Header } from './components/header.tsx';
import { Pages } from './pages.tsx';
import { SessionContext } from './session-context.ts';
import { SignIn } from './pages/sign-in.tsx';
import { SET_PASSWORD_PATH, SetPasswordPage } from './pages/set-password.tsx';

export function App() {
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);

  useEffect(() => {
    loadSession().then(setSession, setError);
    return onSignedOut(() => {
      resetLive();
      setSession(null);
    });
  }, []);

  const changeSession = (next: Session | null) => {
    resetLive();
    setSession(next);
  };

  return (
    <LocationProvider scope="/dashboard">
      {/* A one-time link's page works signed out, and replaces a session in this browser when used. */}
      {window.location.pathname === SET_PASSWORD_PATH ? (
        <SetPasswordPage onSignedIn={changeSession} />
      ) : session === undefined ? (
        <main id="main" class="narrow">
          {error ? <ErrorMessage error={error} /> : <p role="status">Loading…</p>}
        </main>
      ) : session === null ? (
        <SignIn onSignedIn={changeSession} />
      ) : (
        <SessionContext.Provider value={session}>
          <a class="skip-link" href="#main">
            Skip to content
          </a>
          <Header session={session} onSessionChange={changeSession} />
          <Pages key={`${session.workspace.id}:${session.environment}`} />
        </SessionContext.Provider>
      )}
    </LocationProvider>
  );
}
