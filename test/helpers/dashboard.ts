// Signing in to the dashboard from tests: the session cookie and CSRF token as a browser keeps them.
import { setUserPassword } from '../../src/admin/workspaces.ts';
import type { Database } from '../../src/db/client.ts';
import { randomInt } from 'node:crypto';
import { client, type Client, type Res } from './app.ts';

export const PASSWORD = 'correct horse battery staple';

export interface Signed {
  /** `crm_session=<token>`, as the browser sends it back. */
  cookie: string;
  csrf: string;
  login: Res;
  /** A request with the cookie and, unless `csrf: false`, the CSRF token. */
  api(
    method: string,
    path: string,
    body?: unknown,
    opts?: { csrf?: boolean; headers?: Record<string, string> },
  ): Promise<Res>;
  /** POST /graphql as the signed-in user; returns `{ data, errors }`. */
  gql(
    query: string,
    variables?: Record<string, unknown>,
  ): Promise<{ data?: any; errors?: { message: string; extensions?: Record<string, any> }[] }>;
}

export async function setPassword(db: Database, email: string, password = PASSWORD): Promise<void> {
  await setUserPassword(db.prisma, { email, password });
}

export function cookieOf(res: Res): string | null {
  const set = res.headers.getSetCookie().find((c) => c.startsWith('crm_session='));
  return set ? set.split(';')[0] : null;
}

export async function signIn(
  base: string,
  email: string,
  password = PASSWORD,
  headers: Record<string, string> = {},
): Promise<Signed> {
  const login = await client(base)('POST', '/dashboard/api/login', { email, password }, headers);
  if (login.status !== 200) throw new Error(`sign-in failed: ${login.status} ${login.text}`);
  const cookie = cookieOf(login)!;
  const signed: Signed = {
    cookie,
    csrf: login.body.csrf_token,
    login,
    api: (method, path, body, opts = {}) =>
      client(base)(method, path, body, {
        cookie,
        ...(opts.csrf === false ? {} : { 'x-csrf-token': signed.csrf }),
        ...headers,
        ...opts.headers,
      }),
    gql: async (query, variables) => (await signed.api('POST', '/graphql', { query, variables })).body,
  };
  return signed;
}

/**
 * A signed-out client with a client address of its own (X-Forwarded-For; the app must trust one
 * proxy): the limits per client address count its requests alone, also where Redis shares them
 * with every other test file and app of the run.
 */
export function ownAddressClient(base: string): Client {
  const address = `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
  const plain = client(base);
  return (method, path, body, headers = {}) => plain(method, path, body, { 'x-forwarded-for': address, ...headers });
}
