// POST /v1/imports: a file of contacts, companies or deals, read in the background. Bad rows fail
// alone with their reason (bad bytes, ragged rows, a 10 MB cell, a quote never closed, invalid
// values, duplicates) and are listed by GET /v1/imports/:id/failed-rows; good rows are written
// through the batch writes, with their events; the job's end is an import.completed event.
import http from 'node:http';
import { parse } from 'csv-parse/sync';
import { describe, expect, vi } from 'vitest';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';
import { until } from './helpers/receiver.ts';
import { subscribe } from './helpers/subscriptions.ts';

// Jobs run in the background beside the other files' work: a busy machine takes its time.
vi.setConfig({ testTimeout: 120_000 });

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

describe('settings and the file', () => {
  const csvOf = (...lines: string[]) => `${lines.join('\n')}\n`;

  it('refuses settings that do not fit the file at once, and keeps nothing of the upload', async ({ app }) => {
    const ws = await app.workspace();
    const file = csvOf('Name,Mail', `A,${uniqueEmail()}`);
    const cases: Array<[Settings, number, RegExp]> = [
      [{ resource: 'contacts', mapping: { Nope: 'first_name' } }, 400, /mapping\.Nope.*not a column/],
      [{ resource: 'contacts', mapping: { Name: 'shoe_size' } }, 400, /not a field of contacts/],
      [{ resource: 'contacts', mapping: { Name: 'email', Mail: 'email' } }, 400, /fills email/],
      [{ resource: 'contacts', mapping: '{not json' }, 400, /JSON object/],
      [{ resource: 'contacts' }, 400, /no column of the file is named like a field/],
      [{ resource: 'contacts', mode: 'upsert', mapping: { Name: 'first_name', Mail: 'email' } }, 400, /upsert_by/],
      [
        { resource: 'contacts', mode: 'upsert', upsert_by: 'domain', mapping: { Mail: 'email' } },
        400,
        /email or external_id/,
      ],
      [
        { resource: 'contacts', mode: 'upsert', upsert_by: 'external_id', mapping: { Mail: 'email' } },
        400,
        /must fill external_id/,
      ],
      [{ resource: 'invoices', mapping: { Mail: 'email' } }, 400, /resource/],
      [{ resource: 'contacts', shoe: 'x', mapping: { Mail: 'email' } }, 400, /shoe.*no setting/],
    ];
    for (const [settings, status, message] of cases) {
      const r = await upload(ws, app, settings.mapping === '{not json' ? file : file, settings);
      expect(r.status, JSON.stringify(settings)).toBe(status);
      expect(r.body.success).toBe(false);
      expect(JSON.stringify(r.body.error), JSON.stringify(settings)).toMatch(message);
    }
    const empty = await upload(ws, app, '', { resource: 'contacts' });
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.file).toEqual(['is empty']);
    // A form without a file, and a body that is not a form.
    const form = new FormData();
    form.append('resource', 'contacts');
    const noFile = await fetch(`${app.base}/v1/imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ws.key}` },
      body: form,
    });
    expect(noFile.status).toBe(400);
    expect((await noFile.json()).error.details.file[0]).toMatch(/is required/);
    const json = await ws.api('POST', '/v1/imports', { resource: 'contacts' });
    expect(json.status).toBe(415);
    expect(json.body.error.message).toMatch(/multipart\/form-data/);
    // Nothing refused is kept: no job, no stored bytes.
    const left = await app.db.sql.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM imports WHERE workspace_id = $1',
      [ws.id],
    );
    expect(left[0].n).toBe(0);
  });

  it('needs write access to the resource, and shows jobs to those who may read it', async ({ app, ws }) => {
    const reader = await ws.addKey({ scope: 'custom', permissions: ['contacts:read'] });
    const dealsWriter = await ws.addKey({ scope: 'custom', permissions: ['deals:write'] });
    const file = csvOf('first_name,email', `A,${uniqueEmail()}`);
    const refused = await upload(reader, app, file, { resource: 'contacts' });
    expect(refused.status).toBe(403);
    const ok = await upload(ws, app, file, { resource: 'contacts' });
    expect(ok.status, ok.text).toBe(202);
    const id = ok.body.data.id;
    expect((await reader.api('GET', `/v1/imports/${id}`)).status).toBe(200);
    expect((await dealsWriter.api('GET', `/v1/imports/${id}`)).status).toBe(403);
    expect((await dealsWriter.api('GET', `/v1/imports/${id}/failed-rows`)).status).toBe(403);
    const list = await dealsWriter.api('GET', '/v1/imports');
    expect(list.status).toBe(200);
    expect(list.body.data.map((j: { id: string }) => j.id)).not.toContain(id);
    const other = await app.workspace();
    expect((await other.api('GET', `/v1/imports/${id}`)).status).toBe(404);
  });

  it('refuses a file over IMPORT_MAX_BYTES with 413', async ({ startApp }) => {
    const small = await startApp({ importMaxBytes: 1000 });
    const ws = await small.workspace();
    const r = await upload(ws, small, `first_name,email\n${'A,a@example.com\n'.repeat(200)}`, {
      resource: 'contacts',
    });
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
  });
});

describe('files that once stopped a job', () => {
  it('a column named like a built-in property, a stray quote, UTF-16 JSON Lines: each row alone', async ({ app }) => {
    const ws = await app.workspace();
    app.importRunner();
    const tag = Date.now().toString(36);
    // A column `constructor` is no field, and a quote inside an unquoted cell is text.
    const csv = [
      'first_name,email,constructor,toString',
      `Tall,tall.${tag}@example.com,x,y`,
      `Height 5'11" tall,inch.${tag}@example.com,x,y`,
      ...Array.from({ length: 30 }, (_, i) => `After${i},after.${i}.${tag}@example.com,x,y`),
    ].join('\n');
    const a = await upload(ws, app, `${csv}\n`, { resource: 'contacts' });
    expect(a.status, a.text).toBe(202);
    expect(await finished(ws, a.body.data.id)).toMatchObject({
      status: 'completed',
      rows_read: 32,
      rows_written: 32,
      rows_failed: 0,
    });
    const tall = (await ws.api('GET', `/v1/contacts?limit=100`)).body.data.find(
      (c: any) => c.email === `inch.${tag}@example.com`,
    );
    // Created by an import: the spec's source for it.
    expect(tall).toMatchObject({ first_name: `Height 5'11" tall`, source: 'import' });
    // UTF-16 JSON Lines: every line fails alone (with NULs in its text), and the job completes.
    const utf16 = Buffer.from(`{"first_name":"W","email":"w.${tag}@example.com"}\n{"x":1}\n`, 'utf16le');
    const b = await upload(ws, app, utf16, { resource: 'contacts', format: 'jsonl' }, 'u.jsonl');
    expect(b.status, b.text).toBe(202);
    const job = await finished(ws, b.body.data.id);
    expect(job).toMatchObject({ status: 'completed', rows_written: 0 });
    expect(job.rows_failed).toBe(job.rows_read);
    expect((await failedRows(ws, job.id)).length).toBe(job.rows_read + 1);
    // Lines ended by CR alone: refused at once.
    const mac = await upload(ws, app, 'first_name,email\rA,a@example.com\r', { resource: 'contacts' });
    expect(mac.status).toBe(400);
    expect(mac.body.error.details.file[0]).toMatch(/CR alone/);
  });

  it('an Idempotency-Key does not make a second file a replay of the first', async ({ app }) => {
    const ws = await app.workspace();
    const send = async (file: string) => {
      const form = new FormData();
      form.append('resource', 'contacts');
      form.append('file', new Blob([file]));
      const r = await fetch(`${app.base}/v1/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}`, 'idempotency-key': 'same-key' },
        body: form,
      });
      return { status: r.status, replayed: r.headers.get('idempotent-replayed'), body: await r.json() };
    };
    const first = await send(`first_name,email\nA,${uniqueEmail()}\n`);
    const second = await send(`first_name,email\nB,${uniqueEmail()}\n`);
    expect([first.status, second.status]).toEqual([202, 202]);
    expect(second.replayed).toBeNull();
    expect(second.body.data.id).not.toBe(first.body.data.id);
  });
});

describe('slow uploads', () => {
  /** Sends a form's bytes a piece every `everyMs`, then stops after `stopAfter` pieces if given. */
  function trickle(app: TestApp, key: string, pieces: string[], everyMs: number, stopAfter?: number) {
    return new Promise<{ status: number | null; body: string; closedMs: number }>((resolve) => {
      const started = Date.now();
      const boundary = 'trickleBoundary';
      const req = http.request(`${app.base}/v1/imports`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': `multipart/form-data; boundary=${boundary}` },
      });
      let body = '';
      req.on('response', (res) => {
        res.on('data', (d) => (body += d));
        res.on('end', () => resolve({ status: res.statusCode ?? null, body, closedMs: Date.now() - started }));
      });
      req.on('error', () => resolve({ status: null, body, closedMs: Date.now() - started }));
      const parts = [
        `--${boundary}\r\nContent-Disposition: form-data; name="resource"\r\n\r\ncontacts\r\n`,
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\n\r\nfirst_name,email\n`,
        ...pieces,
        `\r\n--${boundary}--\r\n`,
      ];
      let i = 0;
      const timer = setInterval(() => {
        if (stopAfter !== undefined && i >= stopAfter) return clearInterval(timer);
        if (i >= parts.length) {
          clearInterval(timer);
          return req.end();
        }
        req.write(parts[i++]);
      }, everyMs);
      req.on('close', () => clearInterval(timer));
    });
  }

  it('an upload may outlast the request deadline while bytes keep coming; a stalled one is cut off', async ({
    startApp,
  }) => {
    // Bytes every 500 ms for 7 s, beside a request deadline of 5 s: what counts is the silence.
    const app = await startApp({ httpRequestTimeoutMs: 5000 });
    const ws = await app.workspace();
    const rows = Array.from({ length: 12 }, (_, i) => `Slow${i},slow.${i}.${Date.now()}@example.com\n`);
    const slow = await trickle(app, ws.key, rows, 500);
    expect(slow.status, slow.body).toBe(202);
    expect(slow.closedMs).toBeGreaterThan(5000);
    const stalled = await trickle(app, ws.key, rows, 100, 4);
    expect(stalled.status).toBeNull();
    expect(stalled.closedMs).toBeLessThan(30_000);
    // Only the finished upload left a job; the stalled one's bytes are gone (once its handler has
    // seen the connection close).
    const left = () =>
      app.db.sql.query<{ jobs: number; chunks: number }>(
        `SELECT (SELECT count(*)::int FROM imports WHERE workspace_id = $1) AS jobs,
          (SELECT count(*)::int FROM import_chunks c JOIN imports i ON i.id = c.import_id
            WHERE i.workspace_id = $1 AND i.status = 'receiving') AS chunks`,
        [ws.id],
      );
    await until(async () => (await left())[0].jobs === 1, 30_000);
    expect((await left())[0]).toEqual({ jobs: 1, chunks: 0 });
  });

  it('a bad key on an upload gets 401 before any of the file is stored', async ({ startApp }) => {
    // A schema of its own on PostgreSQL: the count below is of this app's uploads alone.
    const app = await startApp({ httpRequestTimeoutMs: 1000, isolated: true });
    const r = await trickle(app, 'crm_live_00000000000000000000000000000000', ['a,b\n'], 100, 3);
    expect(r.status).toBe(401);
    const [left] = await app.db.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM imports');
    expect(left.n).toBe(0);
  });
});

describe('modes and resources', () => {
  it('upserts by email: a second file updates what the first created', async ({ app, ws }) => {
    app.importRunner();
    const [a, b] = [uniqueEmail(), uniqueEmail()];
    const first = await upload(ws, app, `first_name,email\nAnn,${a}\nBob,${b}\n`, { resource: 'contacts' });
    expect((await finished(ws, first.body.data.id)).rows_created).toBe(2);
    const second = await upload(ws, app, `name,mail,title\nAnna,${a.toUpperCase()},CEO\nCyd,${uniqueEmail()},\n`, {
      resource: 'contacts',
      mode: 'upsert',
      upsert_by: 'email',
      mapping: { name: 'first_name', mail: 'email', title: 'job_title' },
    });
    const job = await finished(ws, second.body.data.id);
    expect(job).toMatchObject({ rows_read: 2, rows_written: 2, rows_created: 1, rows_failed: 0 });
    const list = (await ws.api('GET', '/v1/contacts?limit=100')).body.data;
    expect(list.find((c: any) => c.email === a)).toMatchObject({ first_name: 'Anna', job_title: 'CEO' });
  });

  it('imports companies from JSON Lines and deals from CSV, each line failing alone', async ({ app, ws }) => {
    app.importRunner();
    const domain = `acme-${Date.now()}.example`;
    const lines = [
      JSON.stringify({ name: 'Acme', domain, tags: ['x'], external_id: `acme-${Date.now()}` }),
      '[1, 2]',
      '{"name": "Broken"',
      JSON.stringify({ name: 'Beta', size: 'huge' }),
      JSON.stringify({ name: 'Nul\u0000' }),
    ].join('\r\n');
    const companies = await upload(ws, app, `\uFEFF${lines}`, { resource: 'companies', format: 'jsonl' }, 'c.jsonl');
    expect(companies.status, companies.text).toBe(202);
    const job = await finished(ws, companies.body.data.id);
    expect(job).toMatchObject({ rows_read: 5, rows_written: 1, rows_failed: 4 });
    const rows = await failedRows(ws, job.id);
    expect(rows[0]).toEqual(['error', 'line', 'data']);
    expect(rows.slice(1).map((r) => r[0])).toEqual([
      'The line is not a JSON object',
      expect.stringMatching(/^The line is not JSON/),
      expect.stringMatching(/size/),
      expect.stringMatching(/control characters/),
    ]);
    expect(rows[2][2]).toBe('{"name": "Broken"');
    const acme = (await ws.api('GET', `/v1/companies?limit=100`)).body.data.find((c: any) => c.domain === domain);
    expect(acme).toMatchObject({ name: 'Acme', tags: ['x'] });

    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0].id;
    const deals = await upload(
      ws,
      app,
      `title,value,currency,pipeline\nBig,"1,000",USD,${pipeline}\nSmall,250.5,EUR,${pipeline}\n`,
      {
        resource: 'deals',
        mapping: { title: 'title', value: 'value', currency: 'currency', pipeline: 'pipeline_id' },
      },
    );
    const dealJob = await finished(ws, deals.body.data.id);
    expect(dealJob).toMatchObject({ rows_read: 2, rows_written: 1, rows_failed: 1 });
    expect((await failedRows(ws, dealJob.id))[1][0]).toBe('Invalid fields: value: must be a JSON number');
    const small = (await ws.api('GET', '/v1/deals?limit=100')).body.data.find((d: any) => d.title === 'Small');
    expect(small).toMatchObject({ value: 250.5, currency: 'EUR' });
  });
});

describe('the job as it runs', () => {
  // On an app of its own (a schema of its own on PostgreSQL): no runner of another file's app takes
  // the job before the test says so, and no other file's event feed wades through its events.
  it('stops when its key is revoked', async ({ startApp }) => {
    const app = await startApp({ isolated: true });
    const ws = await app.workspace();
    const key = await ws.addKey({ scope: 'custom', permissions: ['contacts:write'] });
    const rows = Array.from({ length: 3000 }, (_, i) => `R${i},revoked.${i}.${Date.now()}@example.com`);
    const r = await upload(key, app, `first_name,email\n${rows.join('\n')}\n`, { resource: 'contacts' });
    expect(r.status, r.text).toBe(202);
    await app.db.prisma.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    app.importRunner();
    const job = await finished(ws, r.body.data.id);
    expect(job).toMatchObject({ status: 'failed', rows_read: 0, error: { code: 'forbidden' } });
    expect(job.error.message).toMatch(/revoked/);
    const events = (await ws.api('GET', '/v1/events?type=import.completed&limit=100')).body.data;
    const ended = events.find((e: any) => e.data.import.id === job.id);
    expect(ended.data.import).toMatchObject({ status: 'failed', error: { code: 'forbidden' } });
  });

  it('streams its progress over GraphQL until it completes, and ends with import.completed', async ({ startApp }) => {
    const app = await startApp({ isolated: true });
    const ws = await app.workspace();
    const rows = Array.from({ length: 2500 }, (_, i) => `P${i},progress.${i}.${Date.now()}@example.com`);
    const r = await upload(ws, app, `first_name,email\n${rows.join('\n')}\n`, { resource: 'contacts' });
    const sub = subscribe(
      app.base,
      { authorization: `Bearer ${ws.key}` },
      'subscription ($id: ID!) { importProgress(id: $id) { id status rows_read rows_written eta_seconds } }',
      { id: r.body.data.id },
    );
    await sub.waitFor((d) => d.importProgress.status === 'queued');
    // Another workspace's key, and a key that may not read contacts, get nothing of it.
    const query = 'subscription ($id: ID!) { importProgress(id: $id) { id status rows_read } }';
    const other = await app.workspace();
    const dealsOnly = await ws.addKey({ scope: 'custom', permissions: ['deals:read'] });
    for (const [key, code] of [
      [other.key, 'not_found'],
      [dealsOnly.key, 'forbidden'],
    ]) {
      const refused = subscribe(app.base, { authorization: `Bearer ${key}` }, query, { id: r.body.data.id });
      await refused.ended;
      expect(refused.received).toEqual([]);
      expect(refused.errors[0]?.[0]?.extensions?.code ?? refused.errors[0]?.extensions?.code).toBe(code);
    }
    app.importRunner();
    await sub.ended;
    expect(sub.errors).toEqual([]);
    const seen = sub.received.map((d) => d.importProgress);
    expect(seen.at(-1)).toMatchObject({ status: 'completed', rows_read: 2500, rows_written: 2500, eta_seconds: 0 });
    // Each message is a step forward.
    for (let i = 1; i < seen.length; i++) expect(seen[i].rows_read).toBeGreaterThanOrEqual(seen[i - 1].rows_read);
    const events = (await ws.api('GET', '/v1/events?type=import.completed&limit=100')).body.data;
    expect(events.find((e: any) => e.data.import.id === r.body.data.id).data.import).toMatchObject({
      status: 'completed',
      rows_written: 2500,
    });
  });
});

describe('a large file', () => {
  // 100,000 rows on PostgreSQL. The embedded database writes one batch at a time, in the test
  // process beside the other files' work: 20,000 there keeps the file in CI time (the benchmark
  // measures larger imports on it).
  const ROWS = process.env.DATABASE_URL ? 100_000 : 20_000;

  it(`imports ${ROWS.toLocaleString('en')} contacts, each once, with their events`, async ({ startApp }) => {
    // A schema of its own on PostgreSQL: other files' webhook workers and event feeds would
    // otherwise go through its 100,000 events before their own.
    const app = await startApp({ isolated: true });
    const ws = await app.workspace();
    app.importRunner();
    const tag = Date.now().toString(36);
    const lines = Array.from({ length: ROWS }, (_, i) => `Big${i},Row,big.${tag}.${i}@example.com,lead`);
    const r = await upload(ws, app, `first_name,last_name,email,status\n${lines.join('\n')}\n`, {
      resource: 'contacts',
    });
    expect(r.status, r.text).toBe(202);
    const job = await finished(ws, r.body.data.id, 170_000);
    expect(job).toMatchObject({ status: 'completed', rows_read: ROWS, rows_written: ROWS, rows_failed: 0 });
    const [counted] = await app.db.sql.query<{ contacts: number; events: number }>(
      `SELECT (SELECT count(*)::int FROM contacts WHERE workspace_id = $1) AS contacts,
        (SELECT count(*)::int FROM events WHERE workspace_id = $1 AND type = 'contact.created') AS events`,
      [ws.id],
    );
    expect(counted).toEqual({ contacts: ROWS, events: ROWS });
    console.log(`imports: ${ROWS.toLocaleString('en')} contacts at ${job.rows_per_second} rows/s`);
  }, 180_000);
});
