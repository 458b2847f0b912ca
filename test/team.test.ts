// The Team page's API: invitations and password reset links (one-time, hashed, expiring, e-mailed
// when SMTP is set), the signed-out set-password routes, and deactivation with everything it ends.
import { createHash } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueEmail, type Client, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { cookieOf, ownAddressClient, PASSWORD, setPassword, signIn, type Signed } from './helpers/dashboard.ts';
import { contactProbe, subscribe, type TestSubscription } from './helpers/subscriptions.ts';

interface Mail {
  to: string[];
  body: string;
}

let app: TestApp;
let ws: TestWorkspace;
let smtp: SMTPServer;
const mails: Mail[] = [];
const open: TestSubscription[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let body = '';
      stream.on('data', (c: Buffer) => (body += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address), body });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const port = (smtp.server.address() as AddressInfo).port;
  app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${port}`, trustProxy: '1' });
  signedOut = ownAddressClient(app.base);
  ws = await app.workspace();
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await app?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const INVITE = `mutation ($input: UserInviteInput!) {
  inviteUser(input: $input) { user { id name email active password_set invited_until } link { url expires_at emailed } }
}`;
const RESET = 'mutation ($id: ID!) { createPasswordResetLink(userId: $id) { url expires_at emailed } }';
const DEACTIVATE = 'mutation ($id: ID!) { deactivateUser(id: $id) { id active } }';
const REACTIVATE = 'mutation ($id: ID!) { reactivateUser(id: $id) { id active } }';

/** A signed-in user of the workspace (a password set as the admin CLI does). */
async function member(name = 'Owner', workspace = ws): Promise<{ id: string; email: string; signed: Signed }> {
  const email = uniqueEmail(name.toLowerCase());
  const user = await workspace.addUser(name, email);
  await setPassword(app.db, email);
  return { id: user.id, email, signed: await signIn(app.base, email) };
}

const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');
// Signed out, from an address of the file's own: the link routes' limit is per client address.
let signedOut: Client;
const anon = () => signedOut;

async function invite(signed: Signed, name = 'Colleague') {
  const email = uniqueEmail(name.toLowerCase());
  const r = await signed.gql(INVITE, { input: { name, email } });
  expect(r.errors).toBeUndefined();
  return { email, ...r.data.inviteUser, token: tokenOf(r.data.inviteUser.link.url) };
}

describe('inviting a user', () => {
  it('creates the user with a one-time link, e-mails it and stores only its hash', async () => {
    const { signed } = await member();
    const before = mails.length;
    const inv = await invite(signed, 'Ann');
    expect(inv.user).toMatchObject({ name: 'Ann', email: inv.email, active: true, password_set: false });
    expect(inv.user.invited_until).toBe(inv.link.expires_at);
    expect(inv.link.url).toMatch(new RegExp(`^${app.base}/dashboard/set-password#token=[A-Za-z0-9_-]{43}$`));
    const hours = (Date.parse(inv.link.expires_at) - Date.now()) / 3600_000;
    expect(hours).toBeGreaterThan(71.9);
    expect(hours).toBeLessThanOrEqual(72);
    expect(inv.link.emailed).toBe(true);
    expect(mails.length).toBe(before + 1);
    const mail = mails.at(-1)!;
    expect(mail.to).toEqual([inv.email]);
    expect(mail.body.replace(/=\r?\n/g, '')).toContain(inv.token);

    const rows = await app.db.prisma.passwordLink.findMany({ where: { userId: inv.user.id } });
    expect(rows).toHaveLength(1);
    expect(rows[0].tokenHash).toBe(createHash('sha256').update(inv.token).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(inv.token);

    // Nowhere in the database: every row of every table, as text.
    const prisma = app.db.prisma;
    const tables = await prisma.$queryRawUnsafe<{ table_name: string }[]>(
      `SELECT table_name FROM information_schema.tables
       WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name } of tables) {
      const rows = await prisma.$queryRawUnsafe<{ row: string }[]>(`SELECT t::text AS row FROM "${table_name}" t`);
      expect(
        rows.filter((r) => r.row.includes(inv.token)),
        table_name,
      ).toEqual([]);
    }
    const audit = await app.db.prisma.auditEntry.findMany({ where: { recordId: inv.user.id } });
    expect(audit.map((a) => a.action)).toEqual(['invited']);
    expect(JSON.stringify(audit.map((a) => a.changes))).not.toContain(inv.token);
  });

  it('is refused to API keys, with forbidden', async () => {
    const { id } = await member('Target');
    const api = (q: string, v: Record<string, unknown>) => ws.api('POST', '/graphql', { query: q, variables: v });
    for (const [q, v] of [
      [INVITE, { input: { name: 'X', email: uniqueEmail('x') } }],
      [RESET, { id }],
      [DEACTIVATE, { id }],
      [REACTIVATE, { id }],
    ] as const) {
      const r = await api(q, v);
      expect(r.body.errors[0].extensions.code).toBe('forbidden');
      expect(r.body.errors[0].message).toMatch(/API keys may not/);
    }
    expect((await app.db.prisma.user.findUniqueOrThrow({ where: { id } })).active).toBe(true);
  });

  it('refuses a duplicate, a malformed or a huge e-mail address and NUL bytes with clear 4xx errors', async () => {
    const { signed, email } = await member();
    const dup = await signed.gql(INVITE, { input: { name: 'Dup', email: email.toUpperCase() } });
    expect(dup.errors![0].extensions).toMatchObject({ code: 'conflict', status: 409 });
    expect(dup.errors![0].extensions!.details.email).toBeDefined();
    for (const [input, field] of [
      [{ name: 'Odd', email: 'not an address' }, 'email'],
      [{ name: 'Odd', email: 'a@b' }, 'email'],
      [{ name: 'Huge', email: `${'a'.repeat(100_000)}@example.com` }, 'email'],
      [{ name: '', email: uniqueEmail() }, 'name'],
    ] as const) {
      const r = await signed.gql(INVITE, { input });
      expect(r.errors![0].extensions).toMatchObject({ code: 'validation_error', status: 400 });
      expect(r.errors![0].extensions!.details[field]).toBeDefined();
    }
    const nul = await signed.gql(INVITE, { input: { name: 'N\u0000ul', email: uniqueEmail() } });
    expect(nul.errors![0].extensions!.code).toBe('validation_error');
  });
});

describe('the set-password link', () => {
  it('sets the password once, signs the person in, and answers a used, wrong or expired token alike', async () => {
    const { signed } = await member();
    const inv = await invite(signed, 'Bea');
    const check = await anon()('POST', '/dashboard/api/password-link', { token: inv.token });
    expect(check.status).toBe(200);
    expect(check.body).toMatchObject({ purpose: 'invite', user: { name: 'Bea' } });
    // Whether the address has a password in another workspace is nobody's business here.
    expect(Object.keys(check.body).sort()).toEqual(['expires_at', 'purpose', 'user']);

    const short = await anon()('POST', '/dashboard/api/password', { token: inv.token, password: 'short' });
    expect(short.status).toBe(400);
    expect(short.body.error.details.password).toBeDefined();

    const set = await anon()('POST', '/dashboard/api/password', { token: inv.token, password: 'a long new password' });
    expect(set.status).toBe(200);
    expect(set.body.user.email).toBe(inv.email);
    expect(set.headers.get('cache-control')).toBe('no-store');
    const cookie = cookieOf(set)!;
    expect((await anon()('GET', '/dashboard/api/session', undefined, { cookie })).status).toBe(200);
    await signIn(app.base, inv.email, 'a long new password');
    const audit = await app.db.prisma.auditEntry.findMany({ where: { recordId: inv.user.id }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual(['invited', 'password_set']);

    const used = await anon()('POST', '/dashboard/api/password', { token: inv.token, password: 'another password!' });
    const wrong = await anon()('POST', '/dashboard/api/password', { token: 'A'.repeat(43), password: 'another pass' });
    const odd = await anon()('POST', '/dashboard/api/password', { token: 'x\u0000y', password: 'another pass' });
    const other = await invite(signed, 'Cid');
    await app.db.prisma.passwordLink.updateMany({ where: { userId: other.user.id }, data: { expiresAt: new Date() } });
    const expired = await anon()('POST', '/dashboard/api/password', { token: other.token, password: 'another pass' });
    for (const r of [used, wrong, expired]) {
      expect(r.status).toBe(404);
      expect(r.body.error).toEqual(used.body.error);
    }
    expect(used.body.error.message).toMatch(/not valid/);
    expect(odd.status).toBe(400);
    // The expired link was deleted; the invited user still has no password.
    expect(await app.db.prisma.passwordLink.count({ where: { userId: other.user.id } })).toBe(0);
  });

  it("a reset link: a newer one voids the older, and using it ends the user's other sessions", async () => {
    const { signed } = await member();
    const target = await member('Dora');
    const first = await signed.gql(RESET, { id: target.id });
    const second = await signed.gql(RESET, { id: target.id });
    expect(second.errors).toBeUndefined();
    const minutes = (Date.parse(second.data.createPasswordResetLink.expires_at) - Date.now()) / 60_000;
    expect(minutes).toBeGreaterThan(59.9);
    expect(minutes).toBeLessThanOrEqual(60);
    expect(mails.at(-1)!.to).toEqual([target.email]);
    const old = tokenOf(first.data.createPasswordResetLink.url);
    const fresh = tokenOf(second.data.createPasswordResetLink.url);
    const r1 = await anon()('POST', '/dashboard/api/password', { token: old, password: 'dora new password' });
    expect(r1.status).toBe(404);
    const r2 = await anon()('POST', '/dashboard/api/password', { token: fresh, password: 'dora new password' });
    expect(r2.status).toBe(200);
    expect((await target.signed.api('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await anon()('POST', '/dashboard/api/login', { email: target.email, password: PASSWORD })).status).toBe(
      401,
    );
    await signIn(app.base, target.email, 'dora new password');
  });

  it("a link sets its own workspace's password: the same one opens both workspaces, another only this", async () => {
    const other = await app.workspace();
    const existing = await member('Eve', other);
    const { signed } = await member();
    const r = await signed.gql(INVITE, { input: { name: 'Eve', email: existing.email } });
    const token = tokenOf(r.data.inviteUser.link.url);
    const ok = await anon()('POST', '/dashboard/api/password', { token, password: PASSWORD });
    expect(ok.status).toBe(200);
    // The link's session opens its own workspace only; signing in with that password opens both.
    expect(ok.body.workspaces.map((w: { id: string }) => w.id)).toEqual([ws.id]);
    const both = await anon()('POST', '/dashboard/api/login', { email: existing.email, password: PASSWORD });
    expect(both.body.workspaces.map((w: { id: string }) => w.id).sort()).toEqual([other.id, ws.id].sort());
    // The other workspace's session (same person) is untouched.
    expect((await existing.signed.api('GET', '/dashboard/api/session')).status).toBe(200);
    // Deactivated here, the person keeps their other workspace's session, which no longer lists this one.
    expect((await signed.gql(DEACTIVATE, { id: r.data.inviteUser.user.id })).errors).toBeUndefined();
    const cookie = cookieOf(ok)!;
    expect((await anon()('GET', '/dashboard/api/session', undefined, { cookie })).status).toBe(401);
    const there = await existing.signed.api('GET', '/dashboard/api/session');
    expect(there.status).toBe(200);
    expect(there.body.workspaces.map((w: { id: string }) => w.id)).toEqual([other.id]);

    // A reset link here with a password of its own: each password opens its own workspace only.
    const third = await app.workspace();
    const { signed: admin } = await member('Admin', third);
    const again = await admin.gql(INVITE, { input: { name: 'Eve', email: existing.email } });
    const own = tokenOf(again.data.inviteUser.link.url);
    const set = await anon()('POST', '/dashboard/api/password', { token: own, password: 'a password of its own' });
    expect(set.status, set.text).toBe(200);
    expect(set.body.workspaces.map((w: { id: string }) => w.id)).toEqual([third.id]);
    const login = (password: string) => anon()('POST', '/dashboard/api/login', { email: existing.email, password });
    expect((await login('a password of its own')).body.workspaces.map((w: { id: string }) => w.id)).toEqual([third.id]);
    expect((await login(PASSWORD)).body.workspaces.map((w: { id: string }) => w.id)).toEqual([other.id]);
  });

  it('an id of another workspace is not found', async () => {
    const { signed } = await member();
    const other = await app.workspace();
    const stranger = await other.addUser('Stranger', uniqueEmail('s'));
    for (const q of [RESET, DEACTIVATE, REACTIVATE]) {
      const r = await signed.gql(q, { id: stranger.id });
      expect(r.errors![0].extensions!.code).toBe('not_found');
    }
  });
});

describe('deactivating a user', () => {
  it('ends their sessions, open subscriptions and API keys at once; reactivating restores sign-in only', async () => {
    const admin = await member('Admin');
    const target = await member('Finn');
    const key = await ws.addKey({ userId: target.id });
    const contact = await ws.api('POST', '/v1/contacts', {
      first_name: 'Assigned',
      email: uniqueEmail('assigned'),
      assigned_to: target.id,
    });
    expect(contact.status).toBe(201);
    const pending = await admin.signed.gql(RESET, { id: target.id });
    const token = tokenOf(pending.data.createPasswordResetLink.url);
    const sub = subscribe(
      app.base,
      { csrf_token: target.signed.csrf },
      'subscription { events(types: ["contact.created"]) { id } }',
      undefined,
      { cookie: target.signed.cookie },
    );
    open.push(sub);
    await sub.ready(app.bus, contactProbe(ws.id));

    const since = Date.now();
    const r = await admin.signed.gql(DEACTIVATE, { id: target.id });
    expect(r.errors).toBeUndefined();
    expect(r.data.deactivateUser).toEqual({ id: target.id, active: false });
    expect((await target.signed.api('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await target.signed.gql('{ users { total } }')) as unknown).toMatchObject({
      errors: [{ extensions: { code: 'unauthorized' } }],
    });
    expect((await key.api('GET', '/v1/contacts')).status).toBe(401);
    await Promise.race([sub.ended, new Promise((_, no) => setTimeout(() => no(new Error('still open')), 5_000))]);
    expect(Date.now() - since).toBeLessThan(5_000);
    expect(sub.errors[0]).toMatchObject({ code: 4401 });
    const login = () => anon()('POST', '/dashboard/api/login', { email: target.email, password: PASSWORD });
    expect((await login()).status).toBe(401);
    expect((await anon()('POST', '/dashboard/api/password', { token, password: 'new password 123' })).status).toBe(404);
    const reset = await admin.signed.gql(RESET, { id: target.id });
    expect(reset.errors![0].extensions).toMatchObject({ code: 'unprocessable_entity' });

    const again = await admin.signed.gql(REACTIVATE, { id: target.id });
    expect(again.data.reactivateUser).toEqual({ id: target.id, active: true });
    expect((await login()).status).toBe(200);
    expect((await target.signed.api('GET', '/dashboard/api/session')).status).toBe(401);
    expect((await key.api('GET', '/v1/contacts')).status).toBe(401);
    const still = await ws.api('GET', `/v1/contacts/${contact.body.data.id}`);
    expect(still.body.data.assigned_to).toBe(target.id);

    const audit = await app.db.prisma.auditEntry.findMany({ where: { recordId: target.id }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => a.action)).toEqual([
      'created',
      'password_set',
      'password_link_created',
      'deactivated',
      'reactivated',
    ]);
    const keyAudit = await app.db.prisma.auditEntry.findMany({ where: { recordId: key.id } });
    expect(keyAudit.map((a) => a.action)).toContain('revoked');
  });

  it('refuses yourself, and never leaves a workspace without an active user', async () => {
    const solo = await app.workspace();
    const a = await member('Gil', solo);
    const self = await a.signed.gql(DEACTIVATE, { id: a.id });
    expect(self.errors![0].extensions).toMatchObject({ code: 'unprocessable_entity', status: 422 });
    expect(self.errors![0].message).toMatch(/yourself/);
    const b = await member('Hal', solo);
    // Each deactivates the other at once: at most one goes through.
    await Promise.all([a.signed.gql(DEACTIVATE, { id: b.id }), b.signed.gql(DEACTIVATE, { id: a.id })]);
    const active = await app.db.prisma.user.count({ where: { workspaceId: solo.id, active: true } });
    expect(active).toBeGreaterThanOrEqual(1);
  });
});

describe('the link endpoints', () => {
  it('are rate limited per client address', async () => {
    let limited: Awaited<ReturnType<ReturnType<typeof anon>>> | null = null;
    for (let i = 0; i < 25 && !limited; i++) {
      const r = await anon()('POST', '/dashboard/api/password-link', { token: 'B'.repeat(43) });
      if (r.status === 429) limited = r;
      else expect(r.status).toBe(404);
    }
    expect(limited).not.toBeNull();
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited!.body.error.code).toBe('rate_limited');
  });
});
