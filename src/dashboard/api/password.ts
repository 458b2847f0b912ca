// The set-password page's routes (signed out): whom a one-time link is for, and setting the password.
import { errorFrom } from './errors.ts';
import type { Session } from './session.ts';
import { adoptSession } from './session.ts';

export interface LinkInfo {
  purpose: 'invite' | 'reset';
  user: { name: string; email: string };
  expires_at: string;
}

async function post(path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`/dashboard/api${path}`, {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await res.json().catch(() => null);
  if (!res.ok) throw errorFrom(res.status, answer);
  return answer;
}

export const checkLink = async (token: string) => (await post('/password-link', { token })) as LinkInfo;

/** Sets the password and signs in: the new session. */
export const setPasswordWithLink = async (token: string, password: string): Promise<Session> =>
  adoptSession((await post('/password', { token, password })) as Session);
