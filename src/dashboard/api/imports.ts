// An import's file goes to the session route /dashboard/api/imports as a form (the same handler
// as POST /v1/imports); its failed rows download from a plain link to the session route.
import { errorFrom } from './errors.ts';
import { currentCsrfToken, sessionEnded } from './session.ts';

/** Sends the form (the file and the settings); answers the queued job's id. */
export async function uploadImport(form: FormData): Promise<{ id: string }> {
  const res = await fetch('/dashboard/api/imports', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { accept: 'application/json', 'x-csrf-token': currentCsrfToken() },
    body: form,
  });
  const body = await res.json().catch(() => null);
  if (res.status === 401) sessionEnded();
  if (!res.ok) throw errorFrom(res.status, body);
  return body.data as { id: string };
}

export const failedRowsUrl = (id: string) => `/dashboard/api/imports/${encodeURIComponent(id)}/failed-rows`;
