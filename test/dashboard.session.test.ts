// Dashboard sign-in: the session cookie, CSRF tokens, login rate limits, sign-out, and switching
// workspace and environment.
import { describe, expect } from 'vitest';
import { LOGIN_LIMITS } from '../src/auth/login-limits.ts';
import { client, uniqueEmail } from './helpers/app.ts';
import { cookieOf, PASSWORD, setPassword, signIn } from './helpers/dashboard.ts';
import { test as base } from './helpers/fixtures.ts';

const it = base
  /** Behind a trusted proxy: https is seen through X-Forwarded-Proto, client addresses through X-Forwarded-For. */
  .extend('proxied', { scope: 'file' }, ({ startApp }) => startApp({ trustProxy: '1' }));

let email: string;

// Names `proxied` so that it, too, starts before the tests, under the hook timeout.
it.beforeAll(async ({ app, ws, proxied }) => {
  void proxied;

  email = uniqueEmail('admin');
  await ws.addUser('Ada', email);
  await setPassword(app.db, email);
});

/**
 * A distinct client address per call, so login limits of one test (kept in Redis for 15 minutes)
 * never reach another, in this run or an earlier one: a documentation IPv6 prefix, a random part
 * per run and a counter (random addresses alone could repeat one already held back).
 */
const run = Math.floor(Math.random() * 0xffff).toString(16);
let addresses = 0;
const address = () => `2001:db8:${run}::${(++addresses).toString(16)}`;

describe('login', () => {
  it('answers the user, workspaces, environment and a CSRF token, and sets an httpOnly SameSite=Lax cookie', async ({
    app,
    ws,
  }) => {
    const s = await signIn(app.base, email.toUpperCase());
    expect(s.login.body).toMatchObject({
      user: { name: 'Ada', email },
      workspaces: [{ id: ws.id }],
      workspace: { id: ws.id },
      environment: 'production',
    });
    expect(s.csrf).toEqual(expect.any(String));
    const cookie = s.login.headers.getSetCookie().find((c) => c.startsWith('crm_session='))!;
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//i);
    // Plain http: a Secure cookie would never come back.
    expect(cookie).not.toMatch(/; Secure/i);
    expect(s.login.headers.get('cache-control')).toBe('no-store');

    const again = await s.api('GET', '/dashboard/api/session', undefined, { csrf: false });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ user: { email }, workspace: { id: ws.id } });
    expect(again.body.csrf_token).not.toBe(s.csrf);
  });

  it('marks the cookie Secure when the request came over https', async ({ proxied }) => {
    const w = await proxied.workspace();
    const mail = uniqueEmail('secure');
    await w.addUser('Sec', mail);
    await setPassword(proxied.db, mail);
    const s = await signIn(proxied.base, mail, PASSWORD, {
      'x-forwarded-proto': 'https',
      'x-forwarded-for': address(),
    });
    expect(s.login.headers.getSetCookie().find((c) => c.startsWith('crm_session='))).toMatch(/; Secure/i);
  });

  it('gives the same 401 for an unknown e-mail and a wrong password, and sets no cookie', async ({ app }) => {
    const api = client(app.base);
    const wrong = await api('POST', '/dashboard/api/login', { email, password: 'not the password' });
    const unknown = await api('POST', '/dashboard/api/login', {
      email: uniqueEmail('nobody'),
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.error).toEqual(unknown.body.error);
    expect(wrong.body.error.code).toBe('unauthorized');
    expect(cookieOf(wrong)).toBeNull();
  });

  it('refuses users without a password and deactivated users', async ({ app, ws }) => {
    const mail = uniqueEmail('nopass');
    const user = await ws.addUser('NoPass', mail);
    const api = client(app.base);
    expect((await api('POST', '/dashboard/api/login', { email: mail, password: PASSWORD })).status).toBe(401);
    await setPassword(app.db, mail);
    await app.db.prisma.user.update({ where: { id: user.id }, data: { active: false } });
    expect((await api('POST', '/dashboard/api/login', { email: mail, password: PASSWORD })).status).toBe(401);
  });

  it('passwords need 10 to 1024 characters', async ({ app }) => {
    await expect(setPassword(app.db, email, 'too short')).rejects.toMatchObject({
      code: 'validation_error',
      details: { password: ['must be at least 10 characters'] },
    });
    await expect(setPassword(app.db, email, 'x'.repeat(1025))).rejects.toMatchObject({ code: 'validation_error' });
    const tooLong = await client(app.base)('POST', '/dashboard/api/login', { email, password: 'x'.repeat(1025) });
    expect(tooLong.status).toBe(400);
  });

  it('answers bad bodies with 400 and the error envelope', async ({ app }) => {
    const api = client(app.base);
    const missing = await api('POST', '/dashboard/api/login', { email });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: 'validation_error', details: { password: ['is required'] } });
    const broken = await api('POST', '/dashboard/api/login', '{"email":');
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('malformed_request');
    const unknownRoute = await api('GET', '/dashboard/api/nothing');
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body.error.code).toBe('not_found');
  });
});

describe('login rate limits', () => {
  const { perEmailAndAddress, perAddress } = LOGIN_LIMITS;

  it(`one e-mail from one address: 429 after ${perEmailAndAddress} tries, even with the right password`, async ({
    proxied,
  }) => {
    const w = await proxied.workspace();
    const mail = uniqueEmail('guessed');
    await w.addUser('Guessed', mail);
    await setPassword(proxied.db, mail);
    const from = address();
    const api = client(proxied.base);
    const attempt = (password: string, ip = from) =>
      api(
        'POST',
        '/dashboard/api/login',
        { email: mail, password },
        { 'x-forwarded-proto': 'https', 'x-forwarded-for': ip },
      );
    const guesses = await Promise.all(
      Array.from({ length: perEmailAndAddress }, (_, i) => attempt(`guess number ${i}`)),
    );
    expect(guesses.map((g) => g.status)).toEqual(guesses.map(() => 401));
    const refused = await attempt(PASSWORD);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another address is not held back by these failures.
    expect((await attempt(PASSWORD, address())).status).toBe(200);
  });

  it(`refuses an address after ${perAddress} attempts across e-mails, also when they come all at once`, async ({
    proxied,
  }) => {
    const api = client(proxied.base);
    const from = '192.0.2.77';
    const attempt = () =>
      api(
        'POST',
        '/dashboard/api/login',
        { email: uniqueEmail('spray'), password: 'a password guess' },
        { 'x-forwarded-proto': 'https', 'x-forwarded-for': from },
      );
    const statuses = (await Promise.all(Array.from({ length: perAddress + 5 }, attempt))).map((r) => r.status);
    // Counted before the password is checked: at most the limit are
    // checked (fewer when Redis still holds a recent run's count).
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(perAddress);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(5);
    expect(statuses.every((s) => s === 401 || s === 429)).toBe(true);
  });
});

describe('CSRF', () => {
  it('POST /graphql with the session cookie: 403 without the token or with a wrong one, runs with it', async ({
    app,
  }) => {
    const s = await signIn(app.base, email);
    const query = { query: '{ contacts { total } }' };
    const without = await s.api('POST', '/graphql', query, { csrf: false });
    expect(without.status).toBe(403);
    expect(without.body.error).toEqual({ code: 'forbidden', message: 'Missing or invalid CSRF token' });
    const other = await signIn(app.base, email);
    const foreign = await s.api('POST', '/graphql', query, { csrf: false, headers: { 'x-csrf-token': other.csrf } });
    expect(foreign.status).toBe(403);
    const ok = await s.api('POST', '/graphql', query);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.body.data.contacts.total).toEqual(expect.any(Number));
    expect(ok.headers.get('x-ratelimit-limit')).toBeTruthy();
    // Another site's page may not read answers made with the cookie.
    const crossSite = await s.api('POST', '/graphql', query, { headers: { origin: 'https://elsewhere.example' } });
    expect(crossSite.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('ignores the cookie when an API key is sent: no CSRF token needed, the key decides the workspace', async ({
    app,
  }) => {
    const s = await signIn(app.base, email);
    const other = await app.workspace();
    const r = await client(app.base, other.key)(
      'POST',
      '/graphql',
      { query: '{ pipelines { nodes { id } } }' },
      { cookie: s.cookie },
    );
    expect(r.status, r.text).toBe(200);
    const mine = await s.gql('{ pipelines { nodes { id } } }');
    expect(r.body.data.pipelines.nodes[0].id).not.toBe(mine.data.pipelines.nodes[0].id);
  });
});

describe('logout', () => {
  it('needs the CSRF token, deletes the session server-side and clears the cookie', async ({ app }) => {
    const s = await signIn(app.base, email);
    expect((await s.api('POST', '/dashboard/api/logout', undefined, { csrf: false })).status).toBe(403);
    const out = await s.api('POST', '/dashboard/api/logout');
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().find((c) => c.startsWith('crm_session='))).toMatch(
      /crm_session=;.*Expires=Thu, 01 Jan 1970/i,
    );
    expect((await s.api('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await s.api('POST', '/graphql', { query: '{ contacts { total } }' })).status).toBe(401);
  });

  it('ends the sessions of a user whose password is set again', async ({ app, ws }) => {
    const mail = uniqueEmail('reset');
    await ws.addUser('Reset', mail);
    await setPassword(app.db, mail);
    const s = await signIn(app.base, mail);
    await setPassword(app.db, mail, 'a brand new passphrase');
    expect((await s.api('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await client(app.base)('POST', '/dashboard/api/login', { email: mail, password: PASSWORD })).status).toBe(
      401,
    );
    await signIn(app.base, mail, 'a brand new passphrase');
  });

  it('ends sessions that sat idle too long', async ({ app }) => {
    const s = await signIn(app.base, email);
    await app.db.prisma.dashboardSession.updateMany({
      where: { userIds: { has: s.login.body.user.id } },
      data: { lastSeenAt: new Date(Date.now() - 13 * 3600_000) },
    });
    expect((await s.api('GET', '/dashboard/api/session')).status).toBe(401);
  });
});

describe('workspace and environment switch', () => {
  it('offers every workspace where the password is set, switches between them, refuses others', async ({ app, ws }) => {
    const [a, b, c] = [await app.workspace(), await app.workspace(), await app.workspace()];
    const mail = uniqueEmail('multi');
    await a.addUser('Multi', mail);
    await b.addUser('Multi', mail);
    await setPassword(app.db, mail);
    // Added after the password was set: no password until it is set again.
    await c.addUser('Multi', mail);
    const s = await signIn(app.base, mail);
    const names = await app.db.prisma.workspace.findMany({
      where: { id: { in: [a.id, b.id] } },
      orderBy: { name: 'asc' },
    });
    expect(s.login.body.workspaces.map((w: { id: string }) => w.id)).toEqual(names.map((w) => w.id));
    expect(s.login.body.workspace.id).toBe(names[0].id);

    const target = names[1].id;
    const switched = await s.api('POST', '/dashboard/api/session', { workspace_id: target });
    expect(switched.status, switched.text).toBe(200);
    expect(switched.body.workspace.id).toBe(target);
    const targetWs = [a, b].find((w) => w.id === target)!;
    const created = await s.gql('mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'Switched', email: uniqueEmail('sw') },
    });
    expect(created.errors).toBeUndefined();
    expect((await targetWs.api('GET', `/v1/contacts/${created.data.createContact.id}`)).status).toBe(200);

    for (const id of [c.id, ws.id, 'ws_unknown']) {
      const refused = await s.api('POST', '/dashboard/api/session', { workspace_id: id });
      expect(refused.status).toBe(404);
      expect(refused.body.error.code).toBe('not_found');
    }
    expect((await s.api('POST', '/dashboard/api/session', { workspace_id: target }, { csrf: false })).status).toBe(403);
    expect((await s.api('POST', '/dashboard/api/session', { environment: 'staging' })).status).toBe(400);
    const unchanged = await s.api('POST', '/dashboard/api/session', {});
    expect(unchanged.status).toBe(200);
    expect(unchanged.body.workspace.id).toBe(target);
  });

  it('keeps sandbox data apart: the sandbox session sees the sandbox twin, not production', async ({ app, ws }) => {
    const s = await signIn(app.base, email);
    const sandbox = await s.api('POST', '/dashboard/api/session', { environment: 'sandbox' });
    expect(sandbox.status).toBe(200);
    expect(sandbox.body.environment).toBe('sandbox');
    const mail = uniqueEmail('sandboxed');
    const created = await s.gql('mutation ($i: ContactCreateInput!) { createContact(input: $i) { id } }', {
      i: { first_name: 'Sandboxed', email: mail },
    });
    expect(created.errors).toBeUndefined();
    expect((await ws.api('GET', `/v1/contacts/${created.data.createContact.id}`)).status).toBe(404);
    const testKey = await ws.addKey({ sandbox: true });
    expect((await testKey.api('GET', `/v1/contacts/${created.data.createContact.id}`)).status).toBe(200);

    const back = await s.api('POST', '/dashboard/api/session', { environment: 'production' });
    expect(back.body.environment).toBe('production');
    const inProduction = await s.gql('query ($id: ID!) { contact(id: $id) { id } }', {
      id: created.data.createContact.id,
    });
    expect(inProduction.errors![0].extensions!.code).toBe('not_found');
  });
});
