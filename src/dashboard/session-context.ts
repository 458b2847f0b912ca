// The signed-in session for pages that show which workspace and environment they act on.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from './api/session.ts';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}
