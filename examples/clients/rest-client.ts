// A REST client as an integrator writes one: openapi-fetch, typed by openapi-typescript from the
// service's own /v1/openapi.json. Answers are read as the types say, without `!` or casts.
// Run: CRM_URL=http://127.0.0.1:3000 CRM_KEY=crm_live_... npx tsx examples/clients/rest-client.ts
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/rest-api.ts';

export type Contact = components['schemas']['Contact'];
export type Deal = components['schemas']['Deal'];
/** A contact as lists answer it: `?fields=` lets a client pick the fields, so only `id` is sure to be there. */
export type ListedContact =
  paths['/v1/contacts']['get']['responses'][200]['content']['application/json']['data'][number];

export function crmClient(baseUrl: string, apiKey: string) {
  return createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
}
type Crm = ReturnType<typeof crmClient>;

/** The error envelope's message, for a failed call. */
function failure(what: string, error: { error: { code: string; message: string } } | undefined): Error {
  return new Error(`${what}: ${error ? `${error.error.code}: ${error.error.message}` : 'no answer'}`);
}

export async function createContact(api: Crm, email: string): Promise<Contact> {
  const { data, error } = await api.POST('/v1/contacts', {
    body: {
      first_name: 'Ada',
      last_name: 'Lovelace',
      email,
      company: 'Analytical Engines',
      tags: ['vip'],
      address: { city: 'London', country: 'GB' },
    },
    headers: { 'Idempotency-Key': `create-${email}` },
  });
  if (!data) throw failure('creating a contact', error);
  return data.data;
}

/** Every contact with a tag, page by page. */
export async function contactsTagged(api: Crm, tag: string): Promise<ListedContact[]> {
  const found: ListedContact[] = [];
  let cursor: string | undefined;
  do {
    const { data, error } = await api.GET('/v1/contacts', {
      params: { query: { tags: tag, sort: '-created_at', limit: 50, cursor } },
    });
    if (!data) throw failure('listing contacts', error);
    found.push(...data.data);
    cursor = data.meta.next_cursor ?? undefined;
  } while (cursor);
  return found;
}

/** A deal in the default pipeline's first stage, moved to its second stage and won. */
export async function winDeal(api: Crm, contact: Contact): Promise<Deal> {
  const pipelines = await api.GET('/v1/pipelines');
  if (!pipelines.data) throw failure('listing pipelines', pipelines.error);
  const pipeline = pipelines.data.data.find((p) => p.is_default);
  if (!pipeline) throw new Error('the workspace has no default pipeline');
  const [first, second] = pipeline.stages;

  const created = await api.POST('/v1/deals', {
    body: {
      title: `${contact.company ?? contact.first_name} licence`,
      pipeline_id: pipeline.id,
      stage_id: first.id,
      value: 12_000,
      contact_id: contact.id,
    },
  });
  if (!created.data) throw failure('creating a deal', created.error);
  const deal = created.data.data;

  const moved = await api.PUT('/v1/deals/{id}/stage', {
    params: { path: { id: deal.id } },
    body: { stage_id: second.id, note: 'qualified on a call' },
  });
  if (!moved.data) throw failure('moving the deal', moved.error);
  const history = moved.data.data.stage_history.map((h) => `${h.from_stage_name ?? 'start'} → ${h.to_stage_name}`);
  console.log(`deal ${deal.id}: ${history.join(', ')}`);

  const won = await api.PUT('/v1/deals/{id}', {
    params: { path: { id: deal.id } },
    body: { status: 'won', won_reason: 'best fit' },
  });
  if (!won.data) throw failure('winning the deal', won.error);
  return won.data.data;
}

export type ImportJob = components['schemas']['Import'];
type ImportBody = NonNullable<paths['/v1/imports']['post']['requestBody']>['content']['multipart/form-data'];

/**
 * A CSV of contacts imported: `POST /v1/imports` takes multipart/form-data, which openapi-fetch
 * sends when given a FormData (the file a Blob, the mapping a JSON text part). Then the job is
 * read until it ends.
 */
export async function importContacts(api: Crm, csv: string): Promise<ImportJob> {
  const body: ImportBody = {
    resource: 'contacts',
    format: 'csv',
    mapping: { 'E-mail': 'email', Name: 'first_name' },
    file: new Blob([csv], { type: 'text/csv' }),
  };
  const { data, error } = await api.POST('/v1/imports', {
    body,
    bodySerializer: (fields) => {
      const form = new FormData();
      for (const [name, value] of Object.entries(fields))
        if (value instanceof Blob) form.append(name, value, 'contacts.csv');
        else form.append(name, typeof value === 'string' ? value : JSON.stringify(value));
      return form;
    },
  });
  if (!data) throw failure('uploading an import', error);
  let job = data.data;
  while (job.status === 'queued' || job.status === 'running') {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const read = await api.GET('/v1/imports/{id}', { params: { path: { id: job.id } } });
    if (!read.data) throw failure('reading the import', read.error);
    job = read.data.data;
  }
  return job;
}

/** A refused input answers the error envelope, with the fields at fault. */
export async function refusedEmail(api: Crm): Promise<string[]> {
  const { data, error, response } = await api.POST('/v1/contacts', {
    body: { first_name: 'No', email: 'not-an-email' },
  });
  if (data || response.status !== 400) throw new Error(`expected a 400, got ${response.status}`);
  return error?.error.details?.email ?? [];
}

async function main(): Promise<void> {
  const key = process.env.CRM_KEY;
  if (!key) throw new Error('Set CRM_KEY to an API key');
  const api = crmClient(process.env.CRM_URL ?? 'http://127.0.0.1:3000', key);

  const email = `ada.${Date.now()}@example.com`;
  const contact = await createContact(api, email);
  console.log(`contact ${contact.id} in ${contact.address?.city ?? 'no city'}, status ${contact.status}`);

  const vips = await contactsTagged(api, 'vip');
  if (!vips.some((c) => c.email === email)) throw new Error('the new contact is not listed under its tag');
  console.log(`${vips.length} vip contact(s); cities: ${vips.map((c) => c.address?.city ?? '-').join(', ')}`);

  const deal = await winDeal(api, contact);
  if (deal.status !== 'won' || deal.closed_at === null)
    throw new Error(`the deal is ${deal.status}, closed at ${deal.closed_at}`);
  console.log(
    `deal ${deal.title} won at ${new Date(deal.closed_at).toISOString()}, worth ${deal.value ?? 0} ${deal.currency}`,
  );

  const stamp = Date.now();
  const job = await importContacts(api, `Name,E-mail\nGrace,grace.${stamp}@example.com\nNobody,not-an-email\n`);
  if (job.status !== 'completed' || job.rows_written !== 1 || job.rows_failed !== 1)
    throw new Error(`the import ended ${job.status}: ${job.rows_written} written, ${job.rows_failed} failed`);
  console.log(`import ${job.id}: ${job.rows_written} written, ${job.rows_failed} failed`);

  const messages = await refusedEmail(api);
  if (messages.length === 0) throw new Error('a refused email names no reason');
  console.log(`a bad email is refused: ${messages.join('; ')}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
