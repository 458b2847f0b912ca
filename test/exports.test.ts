// GET|POST /v1/<resource>/export: every matching record in one file, each as its GET answers it
// (JSON Lines) or flattened with custom fields as columns (CSV); the list's filters; one snapshot
// however writes interleave; bad input answered before any byte; a dropped client frees everything.
import { parse } from 'csv-parse/sync';
import { describe, expect } from 'vitest';
import { uniqueEmail, type Res, type TestWorkspace } from './helpers/app.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { exporter } from '../src/rest/export/export.stream.ts';
import { createLogger } from '../src/logger.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { readSnapshot } from '../src/schema/export/export.snapshot.ts';
import { EXPORT_SOURCES, type ExportRecord } from '../src/schema/export/export.sources.ts';
import type { Context } from '../src/schema/context.ts';

/** What the service logs at warn and above: a client leaving mid-file is no error of the service's. */
let logged = '';
const logger = createLogger(
  'warn',
  new Writable({
    write(chunk, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  }),
);
const it = withAppOptions({ logger });

const lines = (text: string) =>
  text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const csv = (text: string): Record<string, string>[] => parse(text, { columns: true });

async function everyPage(ws: TestWorkspace, path: string, body?: unknown): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const r: Res = body
      ? await ws.api('POST', path, { ...(body as object), limit: 100, ...(cursor ? { cursor } : {}) })
      : await ws.api('GET', `${path}${sep}limit=100${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status, r.text).toBe(200);
    out.push(...r.body.data);
    cursor = r.body.meta.next_cursor;
  } while (cursor);
  return out;
}

/** A workspace holding one record of each kind with every field set. */
async function filled(ws: TestWorkspace) {
  await ws.addCustomField('tier', 'select', ['gold', 'silver']);
  await ws.addCustomField('seats', 'number');
  const user = await ws.addUser('Owner Person');
  const create = async (path: string, body: unknown) => {
    const r = await ws.api('POST', path, body);
    expect(r.status, `${path}: ${r.text}`).toBe(201);
    return r.body.data;
  };
  const company = await create('/v1/companies', {
    name: 'Acme, "Quoted" Inc.',
    domain: 'acme.example',
    industry: 'Tools',
    size: 40,
    tags: ['a', 'b'],
    address: { city: 'Lyon', country: 'FR' },
    custom_fields: { tier: 'gold' },
  });
  const contact = await create('/v1/contacts', {
    first_name: 'Zoë',
    last_name: 'Line\nBreak',
    email: uniqueEmail('export'),
    phone: '+14155550100',
    tags: ['vip', 'x'],
    address: { street: '1 Rue', city: 'Paris' },
    custom_fields: { tier: 'silver', seats: 12.5 },
    assigned_to: user.id,
    external_id: 'ext-1',
  });
  const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
  const deal = await create('/v1/deals', {
    title: 'Big one',
    value: 12345.67,
    pipeline_id: pipeline.id,
    contact_id: contact.id,
    expected_close_date: '2027-01-31',
    custom_fields: { seats: 3 },
  });
  const task = await create('/v1/tasks', {
    title: 'Call back',
    due_date: '2027-01-01T10:00:00Z',
    related_to_type: 'contact',
    related_to_id: contact.id,
    reminder: { type: 'email', before_minutes: 30 },
    assignee_id: user.id,
  });
  const activity = await create('/v1/activities', {
    type: 'call',
    subject: 'Intro',
    contact_id: contact.id,
    duration: 300,
  });
  return { company, contact, deal, task, activity };
}

describe('exports', () => {
  it('hold each record exactly as its GET answers it, in JSON Lines and in CSV', async ({ app }) => {
    const ws = await app.workspace();
    const made = await filled(ws);
    const kinds = [
      ['contacts', made.contact],
      ['companies', made.company],
      ['deals', made.deal],
      ['tasks', made.task],
      ['activities', made.activity],
    ] as const;
    for (const [resource, record] of kinds) {
      const got = (await ws.api('GET', `/v1/${resource}/${record.id}`)).body.data;
      const r = await ws.api('GET', `/v1/${resource}/export?format=jsonl`);
      expect(r.status, r.text).toBe(200);
      expect(r.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
      expect(r.headers.get('content-disposition')).toMatch(
        new RegExp(`^attachment; filename="${resource}-.+\\.jsonl"$`),
      );
      const [line, ...more] = lines(r.text);
      expect(more, resource).toEqual([]);
      // A deal's contacts and stage history are lists of their own (GET /v1/deals/:id answers them too).
      for (const list of resource === 'deals' ? ['contacts', 'stage_history'] : []) delete got[list];
      expect(line, resource).toEqual(got);

      const c = await ws.api('GET', `/v1/${resource}/export`);
      expect(c.status).toBe(200);
      expect(c.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      const [row, ...others] = csv(c.text);
      expect(others).toEqual([]);
      expect(row.id).toBe(record.id);
      // Every field of the record has its column (nested parts and custom fields flattened).
      for (const [field, value] of Object.entries(got)) {
        if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          expect(row[field], `${resource} ${field} is flattened`).toBeUndefined();
          for (const [part, v] of Object.entries(value as Record<string, unknown>))
            expect(row[`${field}.${part}`], `${resource} ${field}.${part}`).toBe(v === null ? '' : String(v));
        } else if (Array.isArray(value)) expect(row[field], `${resource} ${field}`).toBe(value.join('; '));
        else {
          const text = value === null ? '' : String(value);
          expect(row[field], `${resource} ${field}`).toBe(/^[=+\-@]/.test(text) ? `'${text}` : text);
        }
      }
    }
    // Custom fields are columns in the order they were defined, also when a record holds none.
    const header = (await ws.api('GET', '/v1/companies/export')).text.split('\r\n')[0];
    expect(header).toContain('custom_fields.tier,custom_fields.seats');
  });

  it('take the list filters and the filter language, and hold every match, oldest first', async ({ app }) => {
    const ws = await app.workspace();
    const company = (await ws.api('POST', '/v1/companies', { name: 'Filter Co', domain: 'filter.example' })).body.data;
    await ws.addCustomField('score', 'number');
    const ops = Array.from({ length: 120 }, (_, i) => ({
      op: 'create',
      data: {
        first_name: `F${i}`,
        email: uniqueEmail(`f${i}`),
        status: i % 3 === 0 ? 'customer' : 'lead',
        custom_fields: { score: i },
        ...(i % 4 === 0 ? { company_id: company.id } : {}),
      },
    }));
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops })).status).toBe(201);

    const listed = await everyPage(ws, '/v1/contacts?status=customer');
    const r = await ws.api('GET', '/v1/contacts/export?format=jsonl&status=customer');
    const exported = lines(r.text);
    expect(exported.map((c) => c.id).sort()).toEqual(listed.map((c) => c.id).sort());
    const created = exported.map((c) => c.created_at);
    expect(created).toEqual([...created].sort());

    const where = { 'company.domain': 'filter.example', 'custom_fields.score': { gte: 40 } };
    const queried = await everyPage(ws, '/v1/contacts/query', { where });
    // An Idempotency-Key changes nothing for a read: the file is read afresh every time.
    const q = await ws.api(
      'POST',
      '/v1/contacts/export',
      { where, format: 'jsonl', fields: ['email'] },
      { 'idempotency-key': 'export-1' },
    );
    expect(q.status, q.text).toBe(200);
    const picked = lines(q.text);
    expect(picked.map((c) => c.id).sort()).toEqual(queried.map((c) => c.id).sort());
    expect(picked.length).toBeGreaterThan(10);
    expect(Object.keys(picked[0])).toEqual(['id', 'email']);

    // CSV with fields: only those columns.
    const c = await ws.api('GET', '/v1/contacts/export?status=customer&fields=email,custom_fields');
    expect(c.text.split('\r\n')[0]).toBe('id,email,custom_fields.score');
  });

  // Whether the writes below land while the file is still being read depends on how much the
  // connection buffers; the test after this one makes them land mid-export for certain.
  it('see one snapshot: writes committed while the file streams are not in it', async ({ app }) => {
    const ws = await app.workspace();
    const ops = Array.from({ length: 2500 }, (_, i) => ({
      op: 'create',
      data: { first_name: `S${i}`, email: uniqueEmail(`s${i}`) },
    }));
    for (let i = 0; i < ops.length; i += 1000)
      expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops.slice(i, i + 1000) })).status).toBe(201);
    const first = (await ws.api('GET', '/v1/contacts?sort=created_at&limit=1')).body.data[0];
    const last = (await ws.api('GET', '/v1/contacts?limit=1')).body.data[0];

    const response = await fetch(`${app.base}/v1/contacts/export?format=jsonl`, {
      headers: { authorization: `Bearer ${ws.key}` },
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const chunks: Uint8Array[] = [];
    const head = await reader.read();
    chunks.push(head.value!);
    // Meanwhile: an atomic batch of new contacts, a change and a delete of exported ones.
    const added = Array.from({ length: 50 }, (_, i) => ({
      op: 'create',
      data: { first_name: `Late${i}`, email: uniqueEmail(`late${i}`) },
    }));
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: added, atomic: true })).status).toBe(201);
    expect((await ws.api('PUT', `/v1/contacts/${first.id}`, { first_name: 'Renamed' })).status).toBe(200);
    expect((await ws.api('DELETE', `/v1/contacts/${last.id}`)).status).toBe(200);
    for (let r = await reader.read(); !r.done; r = await reader.read()) chunks.push(r.value);
    const records = lines(Buffer.concat(chunks).toString('utf8'));
    expect(records).toHaveLength(2500);
    expect(records.some((c) => c.first_name.startsWith('Late'))).toBe(false);
    expect(records.find((c) => c.id === first.id)?.first_name).toBe(first.first_name);
    expect(records.some((c) => c.id === last.id)).toBe(true);
    expect(new Set(records.map((c) => c.id)).size).toBe(2500);
  });

  it.runIf(process.env.DATABASE_URL)(
    'read every page in the snapshot of the first, whatever commits between pages (PostgreSQL)',
    async ({ app }) => {
      const ws = await app.workspace();
      const ops = Array.from({ length: 30 }, (_, i) => ({
        op: 'create',
        data: { first_name: `P${i}`, email: uniqueEmail(`p${i}`) },
      }));
      expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops })).status).toBe(201);
      const ctx = { caller: { workspaceId: ws.id, accountId: ws.id, scope: 'full' } } as unknown as Context;
      const source = EXPORT_SOURCES.contacts;
      const where = await source.select(ctx, {}, undefined);
      const pages: ExportRecord[][] = [];
      const oldest = (await ws.api('GET', '/v1/contacts?sort=created_at&limit=1')).body.data[0];
      const newest = (await ws.api('GET', '/v1/contacts?limit=1')).body.data[0];
      const rows = await readSnapshot(
        app.db.prisma,
        ctx,
        source,
        where,
        async (records) => {
          pages.push(records);
          if (pages.length > 1) return;
          // Between the first page and the next: other connections commit new, changed and deleted records.
          const more = ops.map((o, i) => ({ ...o, data: { ...o.data, email: uniqueEmail(`late${i}`) } }));
          expect((await ws.api('POST', '/v1/contacts/batch', { operations: more, atomic: true })).status).toBe(201);
          expect((await ws.api('PUT', `/v1/contacts/${newest.id}`, { first_name: 'Changed' })).status).toBe(200);
          expect((await ws.api('DELETE', `/v1/contacts/${oldest.id}`)).status).toBe(200);
        },
        { timeoutMs: 60_000, pageSize: 7 },
      );
      const all = pages.flat();
      expect(pages.length).toBe(5);
      expect(rows).toBe(30);
      // One batch: one created_at, so the order among them is by id.
      expect(all.map((r) => r.first_name).sort()).toEqual(ops.map((o) => o.data.first_name).sort());
      expect(all.map((r) => r.id)).toEqual(all.map((r) => r.id as string).sort());
      expect(all.find((r) => r.id === newest.id)?.first_name).toBe(newest.first_name);
      expect(all.find((r) => r.id === oldest.id)).toBeTruthy();
      expect((await ws.api('GET', '/v1/contacts?limit=100')).body.data).toHaveLength(59);
    },
  );

  it('answer bad input before any byte of the file, in the error envelope', async ({ app }) => {
    const ws = await app.workspace();
    const cases: [string, string, unknown, number, string][] = [
      ['GET', '/v1/contacts/export?format=xml', undefined, 400, 'format'],
      ['GET', '/v1/contacts/export?sort=-created_at', undefined, 400, 'sort'],
      ['GET', '/v1/contacts/export?limit=10', undefined, 400, 'limit'],
      ['GET', '/v1/contacts/export?status=bogus', undefined, 400, 'status'],
      ['GET', '/v1/contacts/export?fields=nope', undefined, 400, 'fields'],
      ['GET', '/v1/deals/export?min_value=abc', undefined, 400, 'min_value'],
      ['POST', '/v1/contacts/export', { where: { nope: 1 } }, 400, 'where.nope'],
      ['POST', '/v1/contacts/export', { where: { 'custom_fields.missing': 1 } }, 400, 'where.custom_fields.missing'],
      ['POST', '/v1/tasks/export', { cursor: 'x' }, 400, 'cursor'],
    ];
    for (const [method, path, body, status, field] of cases) {
      const r = await ws.api(method, path, body);
      expect(r.status, `${method} ${path} ${r.text}`).toBe(status);
      expect(r.headers.get('content-type')).toMatch(/^application\/json/);
      expect(r.body.error.code).toBe('validation_error');
      expect(Object.keys(r.body.error.details), `${method} ${path}`).toContain(field);
    }
    const dealsOnly = await ws.addKey({ scope: 'custom', permissions: ['deals:read'] });
    const f = await dealsOnly.api('GET', '/v1/contacts/export');
    expect(f.status).toBe(403);
    expect(f.body.error.code).toBe('forbidden');
    expect((await dealsOnly.api('GET', '/v1/deals/export')).status).toBe(200);
    expect((await ws.api('PUT', '/v1/contacts/export', {})).status).toBe(404);
  });

  it('prefix text a spreadsheet would run as a formula', async ({ app }) => {
    const ws = await app.workspace();
    const evil = ['=HYPERLINK("http://evil.example","x")', '+1+1', '-2+3', '@SUM(A1)', 'one\u2028two'];
    for (const first_name of evil)
      expect((await ws.api('POST', '/v1/contacts', { first_name, email: uniqueEmail('f') })).status).toBe(201);
    const rows = csv((await ws.api('GET', '/v1/contacts/export?fields=first_name')).text);
    expect(rows.map((r) => r.first_name).sort()).toEqual(evil.map((v) => (v.startsWith('one') ? v : `'${v}`)).sort());
    // JSON Lines is for programs: values as stored.
    const jsonl = (await ws.api('GET', '/v1/contacts/export?format=jsonl&fields=first_name')).text;
    // One record a line for every line reader: U+2028 travels escaped.
    expect(jsonl).not.toMatch(/\u2028/);
    const json = lines(jsonl);
    expect(json.map((r) => r.first_name).sort()).toEqual([...evil].sort());
  });

  it('a client that drops the connection mid-file frees the export for the next one', async ({ app }) => {
    const ws = await app.workspace();
    const ops = Array.from({ length: 3000 }, (_, i) => ({
      op: 'create',
      data: { first_name: `D${i}`, last_name: 'x'.repeat(200), email: uniqueEmail(`d${i}`) },
    }));
    for (let i = 0; i < ops.length; i += 1000)
      expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops.slice(i, i + 1000) })).status).toBe(201);
    // More dropped exports than may run at once: each must give its place back.
    for (let i = 0; i < 4; i++) {
      const controller = new AbortController();
      const response = await fetch(`${app.base}/v1/contacts/export`, {
        headers: { authorization: `Bearer ${ws.key}` },
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.closed.catch(() => {});
    }
    const before = logged;
    // The service learns of each hang-up on its own connection, maybe after the next request arrives:
    // a 429 (with Retry-After) until then.
    let whole = await ws.api('GET', '/v1/contacts/export?fields=email');
    for (let i = 0; whole.status === 429 && i < 100; i++) {
      await new Promise((r) => setTimeout(r, 100));
      whole = await ws.api('GET', '/v1/contacts/export?fields=email');
    }
    expect(whole.status, whole.text.slice(0, 200)).toBe(200);
    expect(csv(whole.text)).toHaveLength(3000);
    expect((await ws.api('GET', '/v1/contacts?limit=1')).status).toBe(200);
    expect(logged.slice(before.length)).toBe('');
    expect(logged).not.toMatch(/request failed/);
  });

  it('stream 100,000 contacts whole, each once', async ({ app }) => {
    const ws = await app.workspace();
    await app.db.prisma.$executeRawUnsafe(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, email, status, source, tags, custom_fields,
         created_at, updated_at)
       SELECT 'con_big_' || $1 || '_' || lpad(g::text, 6, '0'), $1, 'Big', 'Row "' || g || '", ok',
         'big' || g || '@example.com',
         'lead', 'import', ARRAY['t' || (g % 5)], '{}'::jsonb, timestamptz '2024-01-01' + g * interval '1 second', now()
       FROM generate_series(1, 100000) g`,
      ws.id,
    );
    const c = await ws.api('GET', '/v1/contacts/export?fields=email,last_name');
    expect(c.status).toBe(200);
    const rows = csv(c.text);
    expect(rows).toHaveLength(100_000);
    expect(new Set(rows.map((r) => r.id)).size).toBe(100_000);
    expect(rows[0]).toEqual({ id: `con_big_${ws.id}_000001`, email: 'big1@example.com', last_name: 'Row "1", ok' });
    expect(rows.at(-1)?.email).toBe('big100000@example.com');
  }, 180_000);

  it("leave out what the key may not read: a task's related contact name, for a tasks-only key", async ({ app }) => {
    const ws = await app.workspace();
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Hidden', email: uniqueEmail('hid') })).body
      .data;
    const task = (
      await ws.api('POST', '/v1/tasks', { title: 'Call', related_to_type: 'contact', related_to_id: contact.id })
    ).body.data;
    const tasksOnly = await ws.addKey({ scope: 'custom', permissions: ['tasks:read'] });
    const listed = (await tasksOnly.api('GET', '/v1/tasks')).body.data[0];
    expect(listed.related_to).toEqual({ type: 'contact', id: contact.id, name: null });
    const [line] = lines((await tasksOnly.api('GET', '/v1/tasks/export?format=jsonl')).text);
    expect(line.id).toBe(task.id);
    expect(line.related_to).toEqual({ type: 'contact', id: contact.id, name: null });
    const [row] = csv((await tasksOnly.api('GET', '/v1/tasks/export')).text);
    expect(row['related_to.name']).toBe('');
    expect(JSON.stringify(line)).not.toContain('Hidden');
    // A key that may read contacts sees the name.
    const [full] = lines((await ws.api('GET', '/v1/tasks/export?format=jsonl')).text);
    expect(full.related_to.name).toBe('Hidden');
  });

  it('take a POST without a body as the whole list', async ({ app }) => {
    const ws = await app.workspace();
    await ws.api('POST', '/v1/contacts', { first_name: 'Bodiless', email: uniqueEmail('nobody') });
    for (const resource of ['contacts', 'companies', 'deals', 'tasks', 'activities']) {
      const r = await fetch(`${app.base}/v1/${resource}/export`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ws.key}` },
      });
      expect(r.status, resource).toBe(200);
      await r.text();
    }
    const none = await ws.addKey({ scope: 'custom', permissions: ['webhooks:read'] });
    const r = await fetch(`${app.base}/v1/contacts/export`, {
      method: 'POST',
      headers: { authorization: `Bearer ${none.key}` },
    });
    expect(r.status).toBe(403);
  });

  it('a snapshot whose time runs out while a page is written fails the export, not the process', async ({ app }) => {
    const ws = await app.workspace();
    const ops = Array.from({ length: 4 }, (_, i) => ({
      op: 'create',
      data: { first_name: `T${i}`, email: uniqueEmail(`t${i}`) },
    }));
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops })).status).toBe(201);
    const ctx = { caller: { workspaceId: ws.id, accountId: ws.id, scope: 'full' } } as unknown as Context;
    const source = EXPORT_SOURCES.contacts;
    const where = await source.select(ctx, {}, undefined);
    const unhandled: unknown[] = [];
    const note = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', note);
    try {
      // Each page is written more slowly than the transaction may last: the read of a later page,
      // made while a page is written, fails once the time is up.
      const slow = () => new Promise<void>((r) => setTimeout(r, 400));
      await expect(
        readSnapshot(app.db.prisma, ctx, source, where, slow, { timeoutMs: 150, pageSize: 1 }),
      ).rejects.toThrow();
      await new Promise((r) => setTimeout(r, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', note);
    }
    expect((await ws.api('GET', '/v1/contacts/export?fields=email')).status).toBe(200);
  });

  it('sweep the files an earlier process left in the spool directory when the exporter starts', async ({ app }) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crm-spool-test-'));
    const spool = path.join(dir, 'exports');
    fs.mkdirSync(path.join(spool, 'crm-export-left'), { recursive: true });
    fs.writeFileSync(path.join(spool, 'crm-export-left', 'export'), 'a contact list a crash left behind');
    try {
      exporter(app.db.prisma, { spool: true, spoolDir: spool, maxSeconds: 60, concurrency: 2 });
      expect(fs.readdirSync(spool)).toEqual([]);
      expect(fs.statSync(spool).mode & 0o777).toBe(0o700);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
