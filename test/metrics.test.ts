// /metrics after real traffic: HTTP by route pattern, GraphQL operations, webhook outcomes,
// the delivery queue and rate-limit rejections, each app instance counting on its own.
import { describe, expect } from 'vitest';
import { client, gql, uniqueEmail } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { until } from './helpers/receiver.ts';
import { subscribe } from './helpers/subscriptions.ts';

async function scrape(base: string): Promise<string> {
  const r = await client(base)('GET', '/metrics');
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return r.text;
}

/** The value of one series, or undefined; `labels` must all match, others may be present. */
function value(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}

// Its own schema on PostgreSQL: another file's delivery worker sharing the database would send
// some of this file's deliveries and count them in its own registry, not this app's.
const it = withAppOptions({ isolated: true });

describe('metrics', () => {
  it('counts HTTP requests by route pattern and status, never by raw path', async ({ app, ws }) => {
    const c = (await ws.api('POST', '/v1/contacts', { first_name: 'Metric', email: uniqueEmail('m') })).body.data;
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).status).toBe(200);
    expect((await ws.api('GET', `/v1/contacts/${c.id}`)).status).toBe(200);
    expect((await ws.api('GET', '/v1/contacts/ct_doesnotexist')).status).toBe(404);
    expect((await client(app.base)('GET', '/v1/contacts')).status).toBe(401);
    expect((await ws.api('GET', `/no/such/${c.id}`)).status).toBe(404);

    const text = await scrape(app.base);
    expect(text).toMatch(/# TYPE crm_http_requests_total counter/);
    expect(text).toMatch(/# TYPE crm_http_request_duration_seconds histogram/);
    expect(value(text, 'crm_http_requests_total', { method: 'POST', route: '/v1/contacts', status: '201' })).toBe(1);
    expect(value(text, 'crm_http_requests_total', { method: 'GET', route: '/v1/contacts/:id', status: '200' })).toBe(2);
    expect(value(text, 'crm_http_requests_total', { method: 'GET', route: '/v1/contacts/:id', status: '404' })).toBe(1);
    // Refused before a route matched: labelled with the mount point.
    expect(value(text, 'crm_http_requests_total', { method: 'GET', route: '/v1', status: '401' })).toBe(1);
    expect(value(text, 'crm_http_requests_total', { method: 'GET', route: 'unmatched', status: '404' })).toBe(1);
    expect(value(text, 'crm_http_request_duration_seconds_count', { route: '/v1/contacts/:id', status: '200' })).toBe(
      2,
    );
    expect(text).not.toContain(c.id);
    expect(text).not.toContain('doesnotexist');
    // Process metrics come along, in this app's own registry.
    expect(text).toMatch(/^process_cpu_seconds_total /m);
  });

  it('counts and times GraphQL operations by name and type', async ({ app, ws }) => {
    expect(
      (await gql(app.base, ws.key, 'query MetricContacts { contacts(limit: 1) { total } }')).errors,
    ).toBeUndefined();
    expect((await gql(app.base, ws.key, '{ contacts(limit: 1) { total } }')).errors).toBeUndefined();
    const failed = await gql(
      app.base,
      ws.key,
      'mutation MetricBad { createContact(input: { first_name: "", email: "metric@example.com" }) { id } }',
    );
    expect(failed.errors?.length).toBeGreaterThan(0);

    const text = await scrape(app.base);
    expect(
      value(text, 'crm_graphql_operations_total', { operation: 'MetricContacts', type: 'query', result: 'ok' }),
    ).toBe(1);
    expect(value(text, 'crm_graphql_operations_total', { operation: 'anonymous', type: 'query', result: 'ok' })).toBe(
      1,
    );
    expect(
      value(text, 'crm_graphql_operations_total', { operation: 'MetricBad', type: 'mutation', result: 'error' }),
    ).toBe(1);
    expect(
      value(text, 'crm_graphql_operation_duration_seconds_count', { operation: 'MetricContacts', type: 'query' }),
    ).toBe(1);
    expect(
      value(text, 'crm_http_requests_total', { method: 'POST', route: '/graphql', status: '200' }),
    ).toBeGreaterThanOrEqual(2);
  });

  it('counts subscriptions over WebSocket when they start', async ({ app, ws }) => {
    const sub = subscribe(app.base, { authorization: `Bearer ${ws.key}` }, 'subscription MetricLive { events { id } }');
    try {
      const started = await until(async () =>
        value(await scrape(app.base), 'crm_graphql_operations_total', {
          operation: 'MetricLive',
          type: 'subscription',
          result: 'ok',
        }),
      );
      expect(started).toBe(1);
    } finally {
      await sub.close();
    }
  });

  it('counts webhook deliveries by outcome and shows the pending queue', async ({ app, ws, listen }) => {
    const ok = await listen(() => 200);
    const failing = await listen(() => 500);
    const subscribe = async (url: string, body: Record<string, unknown>) => {
      const r = await ws.api('POST', '/v1/webhooks', { url, events: ['contact.created'], ...body });
      expect(r.status, r.text).toBe(201);
    };
    await subscribe(ok.url, {});
    await subscribe(failing.url, { retry_policy: { max_retries: 2, intervals_seconds: [3600] } });
    await subscribe(`${failing.url}?final`, { retry_policy: { max_retries: 0, intervals_seconds: [] } });
    await ws.api('POST', '/v1/contacts', { first_name: 'Hooked', email: uniqueEmail('hook') });

    const worker = app.worker();
    await until(
      async () => {
        await worker.runOnce();
        return ok.hits.length >= 1 && failing.hits.length >= 2;
      },
      15_000,
      100,
    );

    const text = await scrape(app.base);
    expect(value(text, 'crm_webhook_deliveries_total', { outcome: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'crm_webhook_deliveries_total', { outcome: 'retrying' })).toBeGreaterThanOrEqual(1);
    expect(value(text, 'crm_webhook_deliveries_total', { outcome: 'failed' })).toBeGreaterThanOrEqual(1);
    // The retrying delivery waits an hour: it is pending, so the queue is not empty.
    expect(value(text, 'crm_webhook_delivery_queue_depth')).toBeGreaterThanOrEqual(1);
    expect(value(text, 'crm_webhook_delivery_oldest_pending_age_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts rate-limit rejections', async ({ app }) => {
    const small = await app.workspace({ plan: 'standard' });
    const answers = await Promise.all(Array.from({ length: 105 }, () => small.api('GET', '/v1/not-a-route')));
    const refused = answers.filter((r) => r.status === 429).length;
    expect(refused).toBeGreaterThan(0);
    expect(value(await scrape(app.base), 'crm_rate_limit_rejections_total', { plan: 'standard' })).toBe(refused);
  });

  it('keeps a registry per app instance', async ({ app, startApp }) => {
    const other = await startApp({});
    const text = await scrape(other.base);
    expect(value(text, 'crm_http_requests_total', { route: '/v1/contacts/:id' })).toBeUndefined();
    expect(value(await scrape(app.base), 'crm_http_requests_total', { route: '/v1/contacts/:id', status: '200' })).toBe(
      2,
    );
  });

  it('asks for METRICS_TOKEN when one is set', async ({ startApp }) => {
    const guarded = await startApp({ metricsToken: 'scrape-me-please' });
    const anon = await client(guarded.base)('GET', '/metrics');
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toBe('Bearer');
    expect((await client(guarded.base, 'wrong')('GET', '/metrics')).status).toBe(401);
    const ok = await client(guarded.base, 'scrape-me-please')('GET', '/metrics');
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('crm_http_requests_total');
  });
});
