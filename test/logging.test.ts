// Structured request logs, error logs with their request id, and no key or webhook secret in
// any log line, whatever traffic the app sees (logger at trace level, written to memory).
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, describe, expect, vi } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { client, gql, uniqueEmail } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { until } from './helpers/receiver.ts';

let text = '';
const sink = new Writable({
  write(chunk, _encoding, done) {
    text += chunk.toString();
    done();
  },
});
const logger = createLogger('trace', sink);
const logLines = () =>
  text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, any>);

const test = withAppOptions({ logger });
const it = test;
afterAll(() => {
  vi.restoreAllMocks();
});

describe('logs', () => {
  it('one JSON line per request: request id, workspace, key id, route pattern, status, duration', async ({ app }) => {
    const ws = await app.workspace();
    const k = await ws.addKey({ name: 'logged' });
    const c = (await k.api('POST', '/v1/contacts', { first_name: 'Log', email: uniqueEmail('log') })).body.data;
    const r = await k.api('GET', `/v1/contacts/${c.id}`, undefined, { 'x-request-id': 'req-log-test-1' });
    expect(r.status).toBe(200);
    await until(() => logLines().some((l) => l.requestId === 'req-log-test-1'));
    const line = logLines().find((l) => l.requestId === 'req-log-test-1')!;
    expect(line).toMatchObject({
      msg: 'request',
      level: 30,
      method: 'GET',
      route: '/v1/contacts/:id',
      path: `/v1/contacts/${c.id}`,
      status: 200,
      workspaceId: ws.id,
      keyId: k.id,
    });
    expect(typeof line.durationMs).toBe('number');
  });

  it('error logs carry the request id of the request that failed (REST and GraphQL)', async ({ app }) => {
    const ws = await app.workspace();
    const spy = vi.spyOn(app.db.prisma, '$executeRaw').mockRejectedValue(new Error('database went away'));
    const rest = await ws.api('POST', '/v1/contacts', { first_name: 'Boom', email: uniqueEmail('boom') });
    const graphql = await client(app.base, ws.key)('POST', '/graphql', {
      query: `mutation { createContact(input: { first_name: "Boom", email: "${uniqueEmail('boom')}" }) { id } }`,
    });
    spy.mockRestore();
    expect(rest.status).toBe(500);
    expect(graphql.body.errors[0].extensions.code).toBe('internal_error');
    for (const r of [rest, graphql]) {
      const id = r.headers.get('x-request-id');
      await until(() => logLines().some((l) => l.requestId === id && l.err));
      const failure = logLines().find((l) => l.requestId === id && l.err)!;
      expect(failure.level).toBe(50);
      expect(failure.err.message).toContain('database went away');
    }
    const restLine = logLines().find((l) => l.requestId === rest.headers.get('x-request-id') && l.msg === 'request');
    expect(restLine).toMatchObject({ status: 500, level: 50, route: '/v1/contacts' });
  });

  it('neither API keys nor webhook secrets ever reach the log', async ({ app, listen }) => {
    const ws = await app.workspace();
    const badKey = `crm_live_${randomBytes(24).toString('base64url').slice(0, 32)}`;
    expect((await client(app.base, badKey)('GET', '/v1/contacts')).status).toBe(401);
    expect((await client(app.base, badKey)('POST', '/graphql', { query: '{ __typename }' })).status).toBe(401);
    expect((await ws.api('GET', '/v1/contacts?limit=1')).status).toBe(200);
    await gql(app.base, ws.key, '{ contacts(limit: 1) { total } }');
    const rc = await listen();
    const sub = await ws.api('POST', '/v1/webhooks', {
      url: rc.url,
      events: ['contact.created'],
      headers: { Authorization: 'Bearer receiver-token-xyz' },
    });
    expect(sub.status).toBe(201);
    const secret: string = sub.body.data.secret;
    expect(secret.length).toBeGreaterThan(10);
    // A delivery, signed with the secret, and a test send.
    await ws.api('POST', '/v1/contacts', { first_name: 'Hook', email: uniqueEmail('hook') });
    expect((await ws.api('POST', `/v1/webhooks/${sub.body.data.id}/test`)).status).toBeLessThan(300);
    const worker = app.worker();
    await until(async () => {
      await worker.runOnce();
      return rc.hits.length >= 1;
    });
    // Loggers elsewhere might log what they hold: the redaction covers the usual shapes.
    logger.info(
      { headers: { authorization: `Bearer ${ws.key}` }, secret, webhook: { secret }, nested: { sub: { secret } } },
      'careless',
    );
    logger.info({ authorization: `Bearer ${ws.key}`, key: ws.key }, 'careless too');

    expect(text).toContain('careless');
    for (const needle of [ws.key, badKey, secret, 'receiver-token-xyz']) expect(text).not.toContain(needle);
  });
});
