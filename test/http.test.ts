// The HTTP foundation every route shares: headers, envelopes, error statuses, aliases.
import { describe, expect } from 'vitest';
import { client, startTestApp, uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

describe('headers and envelopes', () => {
  it('every response carries X-API-Version and a request id equal to meta.request_id', async ({ app, ws }) => {
    for (const r of [
      await ws.api('GET', '/v1/contacts'),
      await ws.api('GET', '/v1/contacts/none'),
      await client(app.base)('GET', '/v1/contacts'),
    ]) {
      expect(r.headers.get('x-api-version')).toBe('v1');
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
      expect(r.body.meta.request_id).toBe(r.headers.get('x-request-id'));
      expect(Date.parse(r.body.meta.timestamp)).not.toBeNaN();
    }
  });

  it('echoes a client request id', async ({ ws }) => {
    const r = await ws.api('GET', '/v1/contacts', undefined, { 'x-request-id': 'abc-123' });
    expect(r.headers.get('x-request-id')).toBe('abc-123');
    expect(r.body.meta.request_id).toBe('abc-123');
  });

  it('list meta has total, limit, has_more and next_cursor', async ({ ws }) => {
    const r = await ws.api('GET', '/v1/contacts');
    expect(r.body.meta).toMatchObject({ total: expect.any(Number), limit: 25, has_more: false, next_cursor: null });
  });

  it('/api/v1 answers like /v1', async ({ ws }) => {
    const c = (await ws.api('POST', '/api/v1/contacts', { first_name: 'Al', email: uniqueEmail('alias') })).body.data;
    const r = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(r.status).toBe(200);
    expect((await ws.api('GET', `/api/v1/contacts/${c.id}`)).body.data).toEqual(r.body.data);
  });
});

describe('error statuses', () => {
  it('404 not_found for an unknown route, inside and outside /v1', async ({ ws }) => {
    for (const path of ['/v1/nothing', '/v1/contacts/x/y/z', '/nowhere']) {
      const r = await ws.api('GET', path);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ success: false, error: { code: 'not_found' } });
    }
  });

  it('405 method_not_allowed with Allow for a known path', async ({ ws }) => {
    const r = await ws.api('PATCH', '/v1/contacts');
    expect(r.status).toBe(405);
    expect(r.body.error.code).toBe('method_not_allowed');
    expect(r.headers.get('allow')).toContain('GET');
  });

  it('400 malformed_request for broken JSON and for a body that is not an object', async ({ ws }) => {
    const broken = await ws.api('POST', '/v1/contacts', '{"first_name": "x",');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('malformed_request');
    for (const body of ['[1,2]', '"text"', '42', 'null']) {
      const r = await ws.api('POST', '/v1/contacts', body);
      expect(r.status, body).toBe(400);
      expect(r.body.error.code).toBe('malformed_request');
    }
  });

  it('415 for a body that is not JSON', async ({ ws }) => {
    const r = await ws.api('POST', '/v1/contacts', 'first_name=x', {
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect(r.status).toBe(415);
    expect(r.body.error.code).toBe('unsupported_media_type');
  });

  it('413 for a body over 1 MiB; a 100-contact bulk body is accepted', async ({ ws }) => {
    const big = JSON.stringify({ first_name: 'x', email: uniqueEmail('big'), job_title: 'y'.repeat(1_100_000) });
    const r = await ws.api('POST', '/v1/contacts', big);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('payload_too_large');
    const rows = Array.from({ length: 100 }, (_, i) => ({
      first_name: 'Bulk',
      last_name: 'x'.repeat(200),
      email: uniqueEmail(`b${i}`),
      company: 'c'.repeat(200),
      tags: ['t'.repeat(60)],
    }));
    expect((await ws.api('POST', '/v1/contacts/bulk', { contacts: rows })).status).toBe(201);
  });

  it('400 validation_error for bad query parameters; unknown ones are ignored', async ({ ws }) => {
    for (const q of [
      'limit=0',
      'limit=101',
      'limit=abc',
      'sort=password',
      'status=vip',
      'created_after=yesterday',
      'cursor=garbage',
    ]) {
      const r = await ws.api('GET', `/v1/contacts?${q}`);
      expect(r.status, q).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await ws.api('GET', '/v1/contacts?utm_source=x')).status).toBe(200);
  });

  it('500 never leaks internals', async () => {
    // A table missing under a running app is a real fault; the isolated database keeps it from other tests.
    const broken = await startTestApp({ isolated: true });
    const w = await broken.workspace();
    await w.api('GET', '/v1/contacts'); // caches the key, so the failure happens in the resolver
    await broken.db.prisma.$executeRawUnsafe('ALTER TABLE contacts RENAME TO contacts_gone');
    const r = await w.api('GET', '/v1/contacts');
    await broken.close();
    expect(r.status).toBe(500);
    expect(r.body.error.code).toBe('internal_error');
    expect(r.text).not.toMatch(/contacts|relation|prisma|at /i);
    expect(r.body.meta.request_id).toBe(r.headers.get('x-request-id'));
  });
});
