// GraphQL over HTTP as the signed-in user: the session cookie plus the CSRF token header.
import { errorFrom } from './errors.ts';
import { currentCsrfToken, sessionEnded } from './session.ts';

export async function gql<T = unknown>(query: string, variables?: Record<string, unknown>): Promise<T> {
  const res = await fetch('/graphql', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'content-type': 'application/json', accept: 'application/json', 'x-csrf-token': currentCsrfToken() },
    body: JSON.stringify({ query, variables }),
  });
  const body = await res.json().catch(() => null);
  if (res.status === 401) sessionEnded();
  if (!res.ok || body?.errors?.length) throw errorFrom(res.status, body);
  return body.data as T;
}
