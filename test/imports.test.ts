// POST /v1/imports: a file of contacts, companies or deals, read in the background. Bad rows fail
// alone with their reason (bad bytes, ragged rows, a 10 MB cell, a quote never closed, invalid
// values, duplicates) and are listed by GET /v1/imports/:id/failed-rows; good rows are written
// through the batch writes, with their events; the job's end is an import.completed event.
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

type Settings = Record<string, string | object>;

/** Sends `file` as undici's FormData does, the way a browser or generated client sends a form. */
async function upload(ws: { key: string }, app: TestApp, file: Buffer | string, settings: Settings, name = 'data.csv') {
  const form = new FormData();
  for (const [k, v] of Object.entries(settings)) form.append(k, typeof v === 'string' ? v : JSON.stringify(v));
  form.append('file', new Blob([typeof file === 'string' ? file : new Uint8Array(file)]), name);
  const r = await fetch(`${app.base}/v1/imports`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ws.key}` },
    body: form,
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: JSON.parse(text), text };
}

/** The job once it is over. */
async function finished(ws: TestWorkspace, id: string, ms = 60_000) {
  const until = Date.now() + ms;
  for (;;) {
    const r = await ws.api('GET', `/v1/imports/${id}`);
    expect(r.status, r.text).toBe(200);
    if (r.body.data.status === 'completed' || r.body.data.status === 'failed') return r.body.data;
    if (Date.now() > until) throw new Error(`import ${id} still ${r.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function failedRows(ws: TestWorkspace, id: string): Promise<string[][]> {
  const r = await ws.api('GET', `/v1/imports/${id}/failed-rows`);
  expect(r.status, r.text).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/csv/);
  return parse(r.text, { relax_column_count: true });
}

describe('a CSV of contacts', () => {
  it('imports the good rows and lists each bad one with its reason', async ({ app, ws }) => {
    app.importRunner();
    await ws.addCustomField('tier', 'select', ['gold', 'silver']);
    await ws.addCustomField('seats', 'number');
    const a = uniqueEmail();
    const b = uniqueEmail();
    const c = uniqueEmail();
    const file = Buffer.concat([
      Buffer.from('\uFEFFFirst name,E-mail,Tier,Seats,Tags,City,Ignored\r\n'),
      Buffer.from(`Ada,${a},gold,12,"vip, early",London,x\r\n`),
      // A quoted cell holding a line break, and a doubled quote.
      Buffer.from(`"Grace ""Amazing""\nHopper",${b},silver,,,,\r\n`),
      // Ragged: one cell short.
      Buffer.from(`Short,${uniqueEmail()},gold,1,,\r\n`),
      // Not UTF-8 (Latin-1 é).
      Buffer.from([0x52, 0xe9, 0x6d, 0x79, 0x2c]),
      Buffer.from(`${uniqueEmail()},gold,1,,,\r\n`),
      // Invalid values: the API's own messages.
      Buffer.from(`Bad,not-an-email,bronze,many,,,\r\n`),
      // A 10 MB cell.
      Buffer.from(`Huge,${uniqueEmail()},gold,1,"${'x'.repeat(10 * 1024 * 1024)}",,\r\n`),
      // A NUL byte.
      Buffer.from(`Nul\u0000l,${uniqueEmail()},gold,1,,,\r\n`),
      // The same email as an earlier row: a conflict, with the existing record's id.
      Buffer.from(`Again,${a},gold,1,,,\r\n`),
      Buffer.from(`Last,${c},,,,,\r\n`),
    ]);
    const mapping = {
      'First name': 'first_name',
      'E-mail': 'email',
      Tier: 'custom_fields.tier',
      Seats: 'custom_fields.seats',
      Tags: 'tags',
      City: 'address.city',
    };
    const r = await upload(ws, app, file, { resource: 'contacts', mapping }, 'people.csv');
    expect(r.status, r.text).toBe(202);
    expect(r.headers.get('location')).toBe(`/v1/imports/${r.body.data.id}`);
    expect(r.body.data).toMatchObject({
      status: 'queued',
      resource: 'contacts',
      mode: 'create',
      filename: 'people.csv',
    });
    const job = await finished(ws, r.body.data.id);
    expect(job).toMatchObject({ status: 'completed', rows_read: 9, rows_written: 3, rows_created: 3, rows_failed: 6 });
    expect(job.bytes_read).toBe(file.length);
    expect(job.eta_seconds).toBe(0);

    const ada = (await ws.api('GET', `/v1/contacts?limit=100`)).body.data.find((x: any) => x.email === a);
    expect(ada).toMatchObject({
      first_name: 'Ada',
      custom_fields: { tier: 'gold', seats: 12 },
      tags: ['vip', 'early'],
      address: { city: 'London' },
    });
    const grace = (await ws.api('GET', `/v1/contacts?limit=100`)).body.data.find((x: any) => x.email === b);
    expect(grace.first_name).toBe('Grace "Amazing"\nHopper');

    const rows = await failedRows(ws, job.id);
    expect(rows[0]).toEqual(['error', 'line', 'First name', 'E-mail', 'Tier', 'Seats', 'Tags', 'City', 'Ignored']);
    const byLine = new Map(rows.slice(1).map((row) => [Number(row[1]), row]));
    expect(byLine.get(5)![0]).toMatch(/has 6 cells; the header has 7/);
    expect(byLine.get(6)![0]).toMatch(/not valid UTF-8/);
    expect(byLine.get(7)![0]).toBe('Invalid fields: email: must be a valid email address');
    expect(byLine.get(8)![0]).toMatch(/larger than 1 MiB/);
    expect(byLine.get(9)![0]).toMatch(/control characters/);
    expect(byLine.get(10)![0]).toMatch(/already exists.*con_/);
    expect(byLine.get(10)!.slice(2, 4)).toEqual(['Again', a]);
    expect(byLine.size).toBe(6);
  });
});
