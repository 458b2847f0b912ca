// Idempotency-Key on POST and PUT under /v1: the first answer is replayed to retries of the same
// request, a different request with the key is a 422, a request still running a 409, keys are
// per API key, and a 5xx (or a stored 409) leaves the key free for a retry.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { describe, expect } from 'vitest';
import { ABANDONED_AFTER_MS, RETENTION_MS } from '../src/http/idempotency-store.ts';
import { requestHash } from '../src/http/idempotency.ts';
import { uniqueEmail, type TestApp } from './helpers/app.ts';
import { test } from './helpers/fixtures.ts';

/** The app's access log lines, to find which request id a replay was logged under. */
const logLines: Array<Record<string, unknown>> = [];

const it = test
  /** The key these tests send idempotent requests with. */
  .extend('idempotentKey', { scope: 'file' }, ({ ws }) => ws.addKey({ name: 'idempotent client' }))
  .extend('api', { scope: 'file' }, ({ idempotentKey }) => idempotentKey.api)
  .extend('keyId', { scope: 'file' }, ({ idempotentKey }) => idempotentKey.id);
// A database of its own: one test installs a trigger that fails some inserts.
it.override('appOptions', {
  isolated: true,
  logger: pino({ level: 'info' }, { write: (line: string) => void logLines.push(JSON.parse(line)) }),
});

const newKey = () => `idem-${randomUUID()}`;
const withKey = (key: string) => ({ 'idempotency-key': key });

async function contactsWithEmail(app: TestApp, email: string): Promise<number> {
  return app.db.prisma.contact.count({ where: { email } });
}

describe('replay', () => {
  it('the same request with the same key answers the first status and body and creates once', async ({ app, api }) => {
    const key = newKey();
    const body = { first_name: 'Ada', email: uniqueEmail('ada') };
    const first = await api('POST', '/v1/contacts', body, withKey(key));
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const again = await api('POST', '/v1/contacts', body, withKey(key));
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toMatch(/^application\/json/);
    expect(again.body).toEqual(first.body);
    // Key order and the /api/v1 alias do not make it another request.
    const reordered = await api('POST', '/api/v1/contacts', { email: body.email, first_name: 'Ada' }, withKey(key));
    expect(reordered.body.data.id).toBe(first.body.data.id);
    expect(await contactsWithEmail(app, body.email)).toBe(1);
  });

  it("a replay answers the first call's request id in X-Request-Id, as in its meta, and is logged under it", async ({
    api,
  }) => {
    const key = newKey();
    const body = { first_name: 'Ids', email: uniqueEmail('ids') };
    const first = await api('POST', '/v1/contacts', body, { ...withKey(key), 'x-request-id': 'first-call' });
    expect(first.headers.get('x-request-id')).toBe('first-call');
    expect(first.body.meta.request_id).toBe('first-call');
    for (const retryHeaders of [{ 'x-request-id': 'the-retry' }, {}] as Array<Record<string, string>>) {
      const again = await api('POST', '/v1/contacts', body, { ...withKey(key), ...retryHeaders });
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.meta.request_id).toBe('first-call');
      expect(again.headers.get('x-request-id')).toBe('first-call');
    }
    // A stored client error is replayed with its id too.
    const invalidKey = newKey();
    const invalid = await api('POST', '/v1/contacts', { first_name: 'No email' }, withKey(invalidKey));
    const invalidAgain = await api('POST', '/v1/contacts', { first_name: 'No email' }, withKey(invalidKey));
    expect(invalidAgain.headers.get('x-request-id')).toBe(invalid.body.meta.request_id);
    expect(invalidAgain.body.meta.request_id).toBe(invalid.body.meta.request_id);
    // The access log names each replay by the id its client saw, and the retry's own id beside it.
    await expect
      .poll(() => logLines.filter((l) => l.msg === 'request' && l.retryRequestId === 'the-retry').length)
      .toBe(1);
    const replays = logLines.filter(
      (l) => l.msg === 'request' && l.retryRequestId !== undefined && l.requestId === 'first-call',
    );
    expect(replays).toHaveLength(2);
    expect(replays.map((l) => l.retryRequestId)).toContain('the-retry');
    expect(
      logLines.filter((l) => l.msg === 'request' && l.requestId === 'first-call' && l.retryRequestId === undefined),
    ).toHaveLength(1);
  });

  it('a PUT is replayed too, and the same key on another path is a 422', async ({ api }) => {
    const a = (await api('POST', '/v1/contacts', { first_name: 'Put', email: uniqueEmail('put') })).body.data;
    const b = (await api('POST', '/v1/contacts', { first_name: 'Other', email: uniqueEmail('other') })).body.data;
    const key = newKey();
    const first = await api('PUT', `/v1/contacts/${a.id}`, { company: 'Acme' }, withKey(key));
    expect(first.status).toBe(200);
    // A change made since then is not undone by the replay.
    await api('PUT', `/v1/contacts/${a.id}`, { company: 'Changed' });
    const again = await api('PUT', `/v1/contacts/${a.id}`, { company: 'Acme' }, withKey(key));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await api('GET', `/v1/contacts/${a.id}`)).body.data.company).toBe('Changed');
    const elsewhere = await api('PUT', `/v1/contacts/${b.id}`, { company: 'Acme' }, withKey(key));
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.error.code).toBe('unprocessable_entity');
  });

  it('client errors are stored and replayed; 409 is not, so a retry can succeed once the conflict is gone', async ({
    api,
  }) => {
    const invalidKey = newKey();
    const invalid = await api('POST', '/v1/contacts', { first_name: 'No email' }, withKey(invalidKey));
    expect(invalid.status).toBe(400);
    const replayed = await api('POST', '/v1/contacts', { first_name: 'No email' }, withKey(invalidKey));
    expect(replayed.status).toBe(400);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');

    const email = uniqueEmail('dup');
    const original = (await api('POST', '/v1/contacts', { first_name: 'Dup', email })).body.data;
    const key = newKey();
    expect((await api('POST', '/v1/contacts', { first_name: 'Dup', email }, withKey(key))).status).toBe(409);
    await api('DELETE', `/v1/contacts/${original.id}`);
    const retried = await api('POST', '/v1/contacts', { first_name: 'Dup', email }, withKey(key));
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('GET requests and /graphql ignore the header', async ({ app, api }) => {
    const key = newKey();
    expect(
      (await api('GET', '/v1/contacts?limit=1', undefined, withKey(key))).headers.get('idempotent-replayed'),
    ).toBeNull();
    const gql = { query: '{ __typename }' };
    await api('POST', '/graphql', gql, withKey(key));
    expect((await api('POST', '/graphql', gql, withKey(key))).headers.get('idempotent-replayed')).toBeNull();
    expect(await app.db.prisma.idempotencyKey.count({ where: { key } })).toBe(0);
  });
});

describe('mismatch, scope and the key itself', () => {
  it('the same key with a different body is a 422 and creates nothing', async ({ app, ws, api }) => {
    const key = newKey();
    const email = uniqueEmail('mismatch');
    expect((await api('POST', '/v1/contacts', { first_name: 'One', email }, withKey(key))).status).toBe(201);
    const other = await api(
      'POST',
      '/v1/contacts',
      { first_name: 'Two', email: uniqueEmail('mismatch') },
      withKey(key),
    );
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('unprocessable_entity');
    expect(await app.db.prisma.contact.count({ where: { firstName: 'Two', workspaceId: ws.id } })).toBe(0);
  });

  it('keys are scoped per API key', async ({ app, ws, api }) => {
    const key = newKey();
    const mine = await api('POST', '/v1/contacts', { first_name: 'Mine', email: uniqueEmail('mine') }, withKey(key));
    // Another key of the same workspace: a different body is no mismatch, it is a new request.
    const sibling = await ws.addKey({ name: 'sibling' });
    const theirs = await sibling.api(
      'POST',
      '/v1/contacts',
      { first_name: 'Theirs', email: uniqueEmail('theirs') },
      withKey(key),
    );
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();
    // Another workspace sending the very same request gets its own contact.
    const elsewhere = await app.workspace();
    const same = await elsewhere.api(
      'POST',
      '/v1/contacts',
      { first_name: 'Mine', email: mine.body.data.email },
      withKey(key),
    );
    expect(same.status).toBe(201);
    expect(same.body.data.id).not.toBe(mine.body.data.id);
  });

  it('a key of 1 to 255 printable ASCII characters; longer, empty, a tab or other bytes is a 400', async ({ api }) => {
    const body = () => ({ first_name: 'Len', email: uniqueEmail('len') });
    for (const key of [
      'x'.repeat(256),
      'x'.repeat(300),
      '',
      `${newKey()}\tb`,
      `${newKey()}caf\u00e9`,
      `${newKey()}\u00c3\u00a9`,
    ]) {
      const r = await api('POST', '/v1/contacts', body(), withKey(key));
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details['Idempotency-Key']).toBeDefined();
    }
    expect(
      (await api('POST', '/v1/contacts', body(), withKey(`${newKey()}${'x'.repeat(255)}`.slice(0, 255)))).status,
    ).toBe(201);
  });
});

describe('in flight, failures and expiry', () => {
  it('two concurrent requests with one key: one runs, the other is a 409 or its replay', async ({ app, api }) => {
    const key = newKey();
    const body = { first_name: 'Race', email: uniqueEmail('race') };
    const results = await Promise.all([1, 2, 3].map(() => api('POST', '/v1/contacts', body, withKey(key))));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const created = results.filter((r) => r.status === 201 && !r.headers.get('idempotent-replayed'));
    expect(created).toHaveLength(1);
    expect(results.filter((r) => r.status === 201).every((r) => r.body.data.id === created[0].body.data.id)).toBe(true);
    expect(await contactsWithEmail(app, body.email)).toBe(1);
  });

  it('a request whose key is still in flight is a 409; a claim abandoned by a dead process is taken over', async ({
    app,
    api,
    keyId,
  }) => {
    const key = newKey();
    const body = { first_name: 'Flight', email: uniqueEmail('flight') };
    const hash = requestHash('POST', '/contacts', {}, body);
    const now = Date.now();
    await app.db.prisma.idempotencyKey.create({
      data: {
        apiKeyId: keyId,
        key,
        requestHash: hash,
        createdAt: new Date(now),
        expiresAt: new Date(now + RETENTION_MS),
      },
    });
    const busy = await api('POST', '/v1/contacts', body, withKey(key));
    expect(busy.status).toBe(409);
    expect(busy.body.error.code).toBe('conflict');
    expect(await contactsWithEmail(app, body.email)).toBe(0);

    await app.db.prisma.idempotencyKey.update({
      where: { apiKeyId_key: { apiKeyId: keyId, key } },
      data: { createdAt: new Date(now - ABANDONED_AFTER_MS - 1000) },
    });
    expect((await api('POST', '/v1/contacts', body, withKey(key))).status).toBe(201);
    expect((await api('POST', '/v1/contacts', body, withKey(key))).headers.get('idempotent-replayed')).toBe('true');
  });

  it('a 5xx releases the key, so the retry runs', async ({ app, api }) => {
    const prisma = app.db.prisma;
    await prisma.$executeRawUnsafe(`CREATE FUNCTION idem_boom() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.email LIKE 'boom%' THEN RAISE EXCEPTION 'boom'; END IF; RETURN NEW; END $$`);
    await prisma.$executeRawUnsafe(
      'CREATE TRIGGER idem_boom BEFORE INSERT ON contacts FOR EACH ROW EXECUTE FUNCTION idem_boom()',
    );
    const key = newKey();
    const body = { first_name: 'Boom', email: uniqueEmail('boom') };
    try {
      const failed = await api('POST', '/v1/contacts', body, withKey(key));
      expect(failed.status).toBe(500);
      expect(await prisma.idempotencyKey.count({ where: { key } })).toBe(0);
    } finally {
      await prisma.$executeRawUnsafe('DROP TRIGGER idem_boom ON contacts');
      await prisma.$executeRawUnsafe('DROP FUNCTION idem_boom()');
    }
    const retried = await api('POST', '/v1/contacts', body, withKey(key));
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
  });

  it('an expired key is ignored: the key starts afresh, whatever the body', async ({ app, api, keyId }) => {
    const key = newKey();
    await api('POST', '/v1/contacts', { first_name: 'Old', email: uniqueEmail('old') }, withKey(key));
    await app.db.prisma.idempotencyKey.update({
      where: { apiKeyId_key: { apiKeyId: keyId, key } },
      data: { expiresAt: new Date(Date.now() - 1000) },
    });
    const fresh = await api('POST', '/v1/contacts', { first_name: 'New', email: uniqueEmail('new') }, withKey(key));
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.first_name).toBe('New');
  });
});
