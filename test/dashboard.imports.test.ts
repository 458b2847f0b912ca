// The dashboard's import routes (/dashboard/api/imports): an upload and its failed rows with the
// session cookie instead of an API key, answered by the same handler as POST /v1/imports. The CSRF
// token is required on the upload; another workspace's session finds no job; the same refusals.
import { parse } from 'csv-parse/sync';
import { describe, expect, vi } from 'vitest';
import { uniqueEmail } from './helpers/app.ts';
import { setPassword, signIn, type Signed } from './helpers/dashboard.ts';
import { it } from './helpers/fixtures.ts';

// Jobs run in the background beside the other files' work: a busy machine takes its time.
vi.setConfig({ testTimeout: 60_000 });

function form(file: string, settings: Record<string, string | object>, name = 'people.csv'): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(settings)) f.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  f.append('file', new Blob([file]), name);
  return f;
}

async function finished(s: Signed, id: string) {
  const until = Date.now() + 50_000;
  for (;;) {
    const { data, errors } = await s.gql('query ($id: ID!) { import(id: $id) { status rows_read rows_failed } }', {
      id,
    });
    expect(errors).toBeUndefined();
    if (data.import.status === 'completed' || data.import.status === 'failed') return data.import;
    if (Date.now() > until) throw new Error(`import ${id} still ${data.import.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

let email: string;
let userId: string;
let otherEmail: string;

it.beforeAll(async ({ app, ws, other }) => {
  email = uniqueEmail('importer');
  userId = (await ws.addUser('Ida Importer', email)).id;
  await setPassword(app.db, email);
  otherEmail = uniqueEmail('neighbour');
  await other.addUser('Nina Neighbour', otherEmail);
  await setPassword(app.db, otherEmail);
});

const GOOD_AND_BAD = (good: string) => `Name,Mail\nAda,${good}\nGrace,not-an-email\n`;

describe('POST /dashboard/api/imports', () => {
  it('takes a file with the session and its CSRF token, and the job writes as the user', async ({ app, ws }) => {
    app.importRunner();
    const s = await signIn(app.base, email);
    const good = uniqueEmail('ada');
    const r = await s.api(
      'POST',
      '/dashboard/api/imports',
      form(GOOD_AND_BAD(good), { resource: 'contacts', mapping: { Name: 'first_name', Mail: 'email' } }),
    );
    expect(r.status, r.text).toBe(202);
    const id = r.body.data.id;
    expect(r.headers.get('location')).toBe(`/dashboard/api/imports/${id}`);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body.data).toMatchObject({ status: 'queued', resource: 'contacts', filename: 'people.csv' });
    const [row] = await app.db.sql.query<{ user_id: string | null; key_id: string | null }>(
      'SELECT user_id, key_id FROM imports WHERE id = $1',
      [id],
    );
    expect(row).toEqual({ user_id: userId, key_id: null });

    expect(await finished(s, id)).toEqual({ status: 'completed', rows_read: 2, rows_failed: 1 });
    // The job's JSON is a read like /graphql's: with the token only.
    expect((await s.api('GET', `/dashboard/api/imports/${id}`, undefined, { csrf: false })).status).toBe(403);
    const job = await s.api('GET', `/dashboard/api/imports/${id}`);
    expect(job.status, job.text).toBe(200);
    expect(job.body.data).toMatchObject({ id, rows_written: 1, rows_failed: 1 });

    // A plain link: no CSRF token needed for the download.
    const failed = await s.api('GET', `/dashboard/api/imports/${id}/failed-rows`, undefined, { csrf: false });
    expect(failed.status, failed.text).toBe(200);
    expect(failed.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(failed.headers.get('content-disposition')).toBe(`attachment; filename="${id}-failed-rows.csv"`);
    expect(parse(failed.text)).toEqual([
      ['error', 'line', 'Name', 'Mail'],
      ['Invalid fields: email: must be a valid email address', '3', 'Grace', 'not-an-email'],
    ]);
    // The same file as the API key gets.
    expect((await ws.api('GET', `/v1/imports/${id}/failed-rows`)).text).toBe(failed.text);
  });

  it('refuses an upload without the CSRF token, or without a session, and keeps nothing', async ({ app, ws }) => {
    const s = await signIn(app.base, email);
    const before = await app.db.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1',
      [ws.id],
    );
    const body = () => form(GOOD_AND_BAD(uniqueEmail()), { resource: 'contacts' });
    const noToken = await s.api('POST', '/dashboard/api/imports', body(), { csrf: false });
    expect(noToken.status, noToken.text).toBe(403);
    expect(noToken.body.error).toMatchObject({ code: 'forbidden', message: 'Missing or invalid CSRF token' });
    const wrongToken = await s.api('POST', '/dashboard/api/imports', body(), {
      csrf: false,
      headers: { 'x-csrf-token': `${s.csrf}x` },
    });
    expect(wrongToken.status).toBe(403);
    // The route takes sessions only: an API key is not a session.
    const keyOnly = await ws.api('POST', '/dashboard/api/imports', body());
    expect(keyOnly.status, keyOnly.text).toBe(401);
    const after = await app.db.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1',
      [ws.id],
    );
    expect(after[0].n).toBe(before[0].n);
  });

  it('answers the refusals of POST /v1/imports, with the details naming the setting', async ({ app }) => {
    const s = await signIn(app.base, email);
    const json = await s.api('POST', '/dashboard/api/imports', { resource: 'contacts' });
    expect(json.status).toBe(415);
    expect(json.body.error.code).toBe('unsupported_media_type');
    const unknownColumn = await s.api(
      'POST',
      '/dashboard/api/imports',
      form('Name\nAda\n', { resource: 'contacts', mapping: { Nom: 'first_name' } }),
    );
    expect(unknownColumn.status, unknownColumn.text).toBe(400);
    expect(Object.keys(unknownColumn.body.error.details)).toEqual(['mapping.Nom']);
    const unknownField = await s.api(
      'POST',
      '/dashboard/api/imports',
      form('Name\nAda\n', { resource: 'contacts', mapping: { Name: 'nickname' } }),
    );
    expect(unknownField.status, unknownField.text).toBe(400);
    expect(unknownField.body.error.details).toEqual({
      'mapping.Name': [expect.stringMatching(/is not a field of contacts/)],
    });
    const noKey = await s.api(
      'POST',
      '/dashboard/api/imports',
      form('Name\nAda\n', { resource: 'contacts', mode: 'upsert' }),
    );
    expect(noKey.status, noKey.text).toBe(400);
    expect(noKey.body.error.details).toHaveProperty('upsert_by');
  });

  it('takes no file over IMPORT_MAX_BYTES', async ({ startApp }) => {
    const small = await startApp({ importMaxBytes: 64 });
    const ws = await small.workspace();
    const mail = uniqueEmail('small');
    await ws.addUser('Sam Small', mail);
    await setPassword(small.db, mail);
    const s = await signIn(small.base, mail);
    const r = await s.api(
      'POST',
      '/dashboard/api/imports',
      form(`Name\n${'Ada\n'.repeat(40)}`, { resource: 'contacts' }),
    );
    expect(r.status, r.text).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });
});

describe('GET /dashboard/api/imports/:id/failed-rows', () => {
  it('finds no job of another workspace, nor of the other environment', async ({ app, ws }) => {
    const r = await ws.api(
      'POST',
      '/v1/imports',
      form(GOOD_AND_BAD(uniqueEmail()), { resource: 'contacts', mapping: { Name: 'first_name', Mail: 'email' } }),
    );
    expect(r.status, r.text).toBe(202);
    const id = r.body.data.id;
    const neighbour = await signIn(app.base, otherEmail);
    for (const path of [`/dashboard/api/imports/${id}/failed-rows`, `/dashboard/api/imports/${id}`]) {
      const res = await neighbour.api('GET', path);
      expect(res.status, `${path}: ${res.text}`).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    const sandbox = await signIn(app.base, email);
    expect((await sandbox.api('POST', '/dashboard/api/session', { environment: 'sandbox' })).status).toBe(200);
    expect((await sandbox.api('GET', `/dashboard/api/imports/${id}/failed-rows`)).status).toBe(404);
    const signedOut = await neighbour.api('GET', `/dashboard/api/imports/${id}/failed-rows`, undefined, {
      headers: { cookie: 'crm_session=nope' },
    });
    expect(signedOut.status).toBe(401);
  });
});

describe('importFields', () => {
  it('lists what columns may fill, custom fields included, for signed-in users only', async ({ app, ws }) => {
    await ws.addCustomField('tier', 'text');
    const s = await signIn(app.base, email);
    const { data, errors } = await s.gql('{ importFields { resource fields } }');
    expect(errors).toBeUndefined();
    const contacts = data.importFields.find((f: { resource: string }) => f.resource === 'contacts').fields;
    expect(contacts).toEqual(expect.arrayContaining(['first_name', 'email', 'address.city', 'custom_fields.tier']));
    expect(data.importFields.map((f: { resource: string }) => f.resource)).toEqual(['contacts', 'companies', 'deals']);
    const byKey = await ws.api('POST', '/graphql', { query: '{ importFields { resource } }' });
    expect(byKey.body.errors[0].extensions.code).toBe('forbidden');
  });
});
