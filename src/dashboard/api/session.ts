// The signed-in session: /dashboard/api routes, and the CSRF token every state-changing call carries.
import { ApiError, errorFrom } from './errors.ts';

export type Environment = 'production' | 'sandbox';

export interface Session {
  user: { id: string; name: string; email: string };
  workspaces: { id: string; name: string }[];
  workspace: { id: string; name: string };
  environment: Environment;
  csrf_token: string;
}

let csrfToken = '';
const signedOutListeners = new Set<() => void>();

export const currentCsrfToken = () => csrfToken;

/** Called when the server says the session is gone (expired, or signed out in another tab). */
export function onSignedOut(listener: () => void): () => void {
  signedOutListeners.add(listener);
  return () => signedOutListeners.delete(listener);
}

export function sessionEnded(): void {
  csrfToken = '';
  for (const listener of signedOutListeners) listener();
}

async function call(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  return fetch(`/dashboard/api${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
}

async function sessionFrom(res: Response): Promise<Session> {
  const body = await res.json().catch(() => null);
  if (!res.ok) throw errorFrom(res.status, body);
  const session = body as Session;
  csrfToken = session.csrf_token;
  return session;
}

/** A session body another route answered with (setting a password signs in): its CSRF token is kept. */
export function adoptSession(session: Session): Session {
  csrfToken = session.csrf_token;
  return session;
}

export const signIn = async (email: string, password: string) =>
  sessionFrom(await call('POST', '/login', { email, password }));

/** The current session, or null when not signed in. */
export async function loadSession(): Promise<Session | null> {
  try {
    return await sessionFrom(await call('GET', '/session'));
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) return null;
    throw err;
  }
}

export const switchSession = async (change: { workspace_id?: string; environment?: Environment }) =>
  sessionFrom(await call('POST', '/session', change));

export async function signOut(): Promise<void> {
  const res = await call('POST', '/logout');
  if (!res.ok && res.status !== 401) throw errorFrom(res.status, await res.json().catch(() => null));
  csrfToken = '';
}
