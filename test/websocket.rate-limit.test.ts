// One rate-limit bucket per key (and per dashboard user), whatever the transport: operations over
// a WebSocket draw from the bucket HTTP draws from. A refused operation answers `rate_limited`
// with the seconds to wait, and the socket stays open. SSE subscriptions are HTTP requests and
// pass the same guard.
import { createClient, type Client as WsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterEach, describe, expect, it } from 'vitest';
import { uniqueEmail, type TestApp } from './helpers/app.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { setPassword, signIn } from './helpers/dashboard.ts';
import { subscribeSse } from './helpers/subscriptions.ts';

let app: TestApp;
const cleanup: (() => unknown)[] = [];

const test = withAppOptions(() => ({ bus: fileBus() }));
// The helpers below work on the file's app.
test.beforeAll(({ app: started }) => {
  app = started;
});
afterEach(async () => {
  await Promise.all(cleanup.splice(0).map((f) => f()));
});

function connect(params: Record<string, unknown>, headers: Record<string, string> = {}) {
  let closed: unknown = null;
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  const client = createClient({
    url: `${app.base.replace('http', 'ws')}/graphql`,
    webSocketImpl: WithHeaders,
    connectionParams: params,
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => {},
    on: { closed: (e) => (closed = e) },
  });
  cleanup.push(() => client.dispose());
  return { client, closed: () => closed };
}

/** Runs one operation; resolves with its result or its errors. */
const run = (client: WsClient, query: string, variables?: Record<string, unknown>) =>
  new Promise<any>((resolve) =>
    client.subscribe({ query, variables }, { next: resolve, error: (e) => resolve({ errors: e }), complete: () => {} }),
  );

/** Sends requests until one is answered 429. */
async function exhaust(request: () => Promise<{ status: number }>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const statuses = await Promise.all(Array.from({ length: 20 }, () => request().then((r) => r.status)));
    if (statuses.includes(429)) return;
  }
  throw new Error('never rate limited');
}

describe('API keys (standard plan, 100 requests a minute)', () => {
  it('after an HTTP 429, queries and mutations over an open WebSocket are refused; the socket stays open', async () => {
    const ws = await app.workspace({ plan: 'standard' });
    const { client, closed } = connect({ authorization: `Bearer ${ws.key}` });
    expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    await exhaust(() => ws.api('POST', '/graphql', { query: '{ __typename }' }));

    const answers = await Promise.all(Array.from({ length: 40 }, () => run(client, '{ contacts { nodes { id } } }')));
    const email = uniqueEmail('limited');
    answers.push(
      await run(client, 'mutation ($input: ContactCreateInput!) { createContact(input: $input) { id } }', {
        input: { first_name: 'Late', email },
      }),
    );
    for (const a of answers) {
      expect(a.data).toBeUndefined();
      expect(a.errors[0]).toMatchObject({ extensions: { code: 'rate_limited' } });
      expect(a.errors[0].extensions.retry_after).toBeGreaterThanOrEqual(1);
    }
    expect(await app.db.prisma.contact.count({ where: { email } })).toBe(0);
    expect(closed()).toBeNull();
  });

  it('operations over a WebSocket draw from the bucket HTTP uses', async () => {
    const ws = await app.workspace({ plan: 'standard' });
    const { client } = connect({ authorization: `Bearer ${ws.key}` });
    let refused = 0;
    for (let i = 0; i < 5 && !refused; i++) {
      const answers = await Promise.all(Array.from({ length: 25 }, () => run(client, '{ __typename }')));
      refused = answers.filter((a) => a.errors?.[0]?.extensions?.code === 'rate_limited').length;
    }
    expect(refused).toBeGreaterThan(0);
    const http = await ws.api('GET', '/v1/contacts');
    expect(http.status).toBe(429);
    expect(Number(http.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('an SSE subscription after a 429 is refused by the same guard', async () => {
    const ws = await app.workspace({ plan: 'standard' });
    await exhaust(() => ws.api('GET', '/v1/contacts'));
    const sse = subscribeSse(app.base, { authorization: `Bearer ${ws.key}` }, 'subscription { events { id } }');
    cleanup.push(() => sse.close());
    await sse.ended;
    // graphql-sse reports a refused request as a NetworkError carrying the response.
    const response: Response = sse.errors[0].response;
    expect(response.status).toBe(429);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await response.json()).toMatchObject({ errors: [{ extensions: { code: 'rate_limited' } }] });
  });
});

describe('dashboard users', () => {
  it("a signed-in user's WebSocket operations draw from the user's bucket", async () => {
    const ws = await app.workspace({ plan: 'standard' });
    const email = uniqueEmail('user');
    await ws.addUser('Limited', email);
    await setPassword(app.db, email);
    const signed = await signIn(app.base, email);
    const { client, closed } = connect({ csrf_token: signed.csrf }, { cookie: signed.cookie });
    expect(await run(client, '{ __typename }')).toEqual({ data: { __typename: 'Query' } });
    await exhaust(() => signed.api('POST', '/graphql', { query: '{ __typename }' }));
    expect((await run(client, '{ __typename }')).errors[0]).toMatchObject({ extensions: { code: 'rate_limited' } });
    expect(closed()).toBeNull();
  });
});
