import { describe, expect } from 'vitest';
import { client } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

describe('rate limits', () => {
  it('standard plan: 100 per minute, then 429 with Retry-After; REST and GraphQL share the bucket', async ({ app }) => {
    const ws = await app.workspace({ plan: 'standard' });
    const first = await ws.api('GET', '/v1/contacts?limit=1');
    expect(first.headers.get('x-ratelimit-limit')).toBe('100');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('99');
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000);
    expect(reset).toBeLessThanOrEqual(Date.now() / 1000 + 61);
    for (let i = 0; i < 49; i++) await ws.api('GET', '/v1/contacts?limit=1');
    for (let i = 0; i < 50; i++) await ws.api('POST', '/graphql', { query: '{ __typename }' });
    const limited = await ws.api('GET', '/v1/contacts?limit=1');
    expect(limited.status).toBe(429);
    expect(limited.body.error.code).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    const gqlLimited = await ws.api('POST', '/graphql', { query: '{ __typename }' });
    expect(gqlLimited.status).toBe(429);
    // Another key of the same workspace has its own bucket.
    const second = await ws.addKey({});
    expect((await second.api('GET', '/v1/contacts?limit=1')).status).toBe(200);
  });

  it('enterprise plan reports 500 per minute and allows bursts beyond it', async ({ app }) => {
    const ws = await app.workspace({ plan: 'enterprise' });
    const r = await ws.api('GET', '/v1/contacts?limit=1');
    expect(r.headers.get('x-ratelimit-limit')).toBe('500');
    const burst = await Promise.all(Array.from({ length: 600 }, () => ws.api('GET', '/v1/users-not-a-route')));
    expect(burst.filter((x) => x.status === 429)).toHaveLength(0);
  });

  it('requests without a valid key carry the headers too', async ({ app }) => {
    const r = await client(app.base)('GET', '/v1/contacts');
    expect(r.status).toBe(401);
    expect(r.headers.get('x-ratelimit-limit')).not.toBeNull();
    expect(r.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });
});
