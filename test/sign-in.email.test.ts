// E-mail addresses are compared exactly (after trim + lowercase), never as LIKE patterns: in
// sign-in, its lockout, the admin's set-password, and list filters that match text.
import fs from 'node:fs';
import { describe, expect } from 'vitest';
import { setUserPassword } from '../src/admin/workspaces.ts';
import { LOGIN_LIMITS } from '../src/auth/login-limits.ts';
// The service counts its argon2 verifications; the tests read the count around each sign-in.
import { hashPassword, passwordChecks as verifications } from '../src/auth/passwords.ts';
import { client, uniqueEmail } from './helpers/app.ts';
import { PASSWORD, setPassword } from './helpers/dashboard.ts';
import { test } from './helpers/fixtures.ts';

let n = 0;
const it = test
  /**
   * Signs in over https through the trusted proxy, from a fresh client address per call, so the
   * per-address limit of one test never reaches another.
   */
  .extend(
    'login',
    { scope: 'file' },
    ({ app }) =>
      (email: string, password = PASSWORD, ip = `203.0.113.${++n}`) =>
        client(app.base)(
          'POST',
          '/dashboard/api/login',
          { email, password },
          {
            'x-forwarded-proto': 'https',
            'x-forwarded-for': ip,
          },
        ),
  );

// Its own schema on PostgreSQL: the set-password check compares every user row before and after.
it.override('appOptions', { trustProxy: '1', isolated: true });
let mail: string;
it.beforeAll(async ({ app, ws }) => {
  mail = uniqueEmail('alice');
  await ws.addUser('Alice', mail);
  await setPassword(app.db, mail);
});

/** Spellings that a LIKE / ILIKE comparison would take for `mail`, and that are other addresses. */
const patterns = () => [
  '%',
  '%@%',
  '_%',
  mail.replace(/^./, '_'),
  mail.slice(0, -1) + '_',
  mail.replace('@', '%'),
  mail.replace(/\.com$/, '%'),
  `${mail}%`,
];

describe('sign-in compares e-mail addresses exactly', () => {
  it.for([0, 1, 2, 3, 4, 5, 6, 7])('refuses LIKE pattern #%i with the right password', async (i, { login }) => {
    const r = await login(patterns()[i]);
    expect(r.status, r.text).toBe(401);
  });

  it('counts the lockout per normalised address: a pattern spelling neither signs in nor resets it', async ({
    login,
  }) => {
    const ip = '198.51.100.201';
    for (let i = 0; i < LOGIN_LIMITS.perEmailAndAddress; i++)
      expect((await login(mail, `wrong guess ${i}`, ip)).status).toBe(401);
    expect((await login(mail, PASSWORD, ip)).status).toBe(429);
    expect((await login(` ${mail.toUpperCase()}`, PASSWORD, ip)).status).toBe(429);
    expect((await login(mail.slice(0, -1) + '_', PASSWORD, ip)).status).toBe(401);
    expect((await login(mail, PASSWORD, ip)).status).toBe(429);
  });

  it('set-password for one workspace sets that user only', async ({ app, login }) => {
    const person = uniqueEmail('one');
    const [a, b] = [await app.workspace(), await app.workspace()];
    for (const w of [a, b]) await w.addUser('One', person);
    await setUserPassword(app.db.prisma, { email: person, password: PASSWORD });
    const set = await setUserPassword(app.db.prisma, { email: person, password: 'only for b now', workspace: b.id });
    expect(set.users).toEqual([expect.objectContaining({ workspace_id: b.id })]);
    expect((await login(person, PASSWORD)).body.workspaces.map((w: { id: string }) => w.id)).toEqual([a.id]);
    expect((await login(person, 'only for b now')).body.workspaces.map((w: { id: string }) => w.id)).toEqual([b.id]);
    await expect(
      setUserPassword(app.db.prisma, { email: person, password: PASSWORD, workspace: 'ws_elsewhere' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('checks once per distinct password of the address: rows set apart open apart', async ({ app, login }) => {
    const person = uniqueEmail('apart');
    const workspaces = [await app.workspace(), await app.workspace(), await app.workspace()];
    for (const w of workspaces) await w.addUser('Apart', person);
    await setPassword(app.db, person);
    // One workspace's row set on its own (as its one-time link does), with another password.
    const own = await app.db.prisma.user.findFirstOrThrow({ where: { email: person, workspaceId: workspaces[2].id } });
    await app.db.prisma.user.update({
      where: { id: own.id },
      data: { passwordHash: await hashPassword('a password of its own') },
    });
    for (const [password, opened] of [
      [PASSWORD, [workspaces[0].id, workspaces[1].id]],
      ['a password of its own', [workspaces[2].id]],
      ['neither of them', []],
    ] as const) {
      verifications.count = 0;
      const r = await login(person, password);
      const ids = r.status === 200 ? r.body.workspaces.map((w: { id: string }) => w.id).sort() : [];
      expect(ids, password).toEqual([...opened].sort());
      expect(verifications.count, password).toBe(2);
    }
  });

  it('checks the password once per attempt, however many users share the address or match a pattern', async ({
    app,
    login,
  }) => {
    const shared = uniqueEmail('many');
    for (let i = 0; i < 6; i++) await (await app.workspace()).addUser('Many', shared);
    await setPassword(app.db, shared);
    for (const [email, password, status] of [
      [shared, PASSWORD, 200],
      [`  ${shared.toUpperCase()} `, PASSWORD, 200],
      [shared, 'a wrong password', 401],
      ['%', PASSWORD, 401],
      [uniqueEmail('unknown'), PASSWORD, 401],
    ] as const) {
      verifications.count = 0;
      const r = await login(email, password);
      expect(r.status, `${email}: ${r.text}`).toBe(status);
      if (status === 200) expect(r.body.workspaces).toHaveLength(6);
      expect(verifications.count, email).toBe(1);
    }
  });
});

describe('set-password compares e-mail addresses exactly', () => {
  it('finds no user for a pattern and changes no password; the address in any case is found', async ({
    app,
    login,
  }) => {
    const before = await app.db.prisma.user.findMany({
      select: { id: true, passwordHash: true },
      orderBy: { id: 'asc' },
    });
    for (const pattern of ['%', '_%', '%@%']) {
      await expect(
        setUserPassword(app.db.prisma, { email: pattern, password: 'an attacker password' }),
        pattern,
      ).rejects.toMatchObject({ code: 'not_found' });
    }
    expect(
      await app.db.prisma.user.findMany({ select: { id: true, passwordHash: true }, orderBy: { id: 'asc' } }),
    ).toEqual(before);
    const other = uniqueEmail('bob');
    await (await app.workspace()).addUser('Bob', other);
    const r = await setUserPassword(app.db.prisma, {
      email: ` ${other.toUpperCase()} `,
      password: 'bob long password',
    });
    expect(r.users).toHaveLength(1);
    expect((await login(other, 'bob long password')).status).toBe(200);
  });
});

describe('stored addresses', () => {
  it('the migration lowercases stored user e-mails, so exact lookups find them', async ({ app }) => {
    const ws = await app.workspace();
    const user = await ws.addUser('Legacy', uniqueEmail('legacy'));
    const stored = (await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).email;
    await app.db.prisma.user.update({ where: { id: user.id }, data: { email: ` ${stored.toUpperCase()}` } });
    const sql = fs.readFileSync('prisma/migrations/20261123000000_normalised_user_emails/migration.sql', 'utf8');
    await app.db.prisma.$executeRawUnsafe(sql);
    expect((await app.db.prisma.user.findUniqueOrThrow({ where: { id: user.id } })).email).toBe(stored);
  });
});

describe('text filters match the characters given', () => {
  it.for(['%', '_', '\\'])('GET /v1/contacts?company=%s matches only companies holding it', async (ch, { app }) => {
    const ws = await app.workspace();
    for (const company of ['Acme', `Pay${ch}Co`, 'Zeta']) {
      const r = await ws.api('POST', '/v1/contacts', { first_name: 'C', email: uniqueEmail('co'), company });
      expect(r.status, r.text).toBe(201);
    }
    const r = await ws.api('GET', `/v1/contacts?company=${encodeURIComponent(ch)}`);
    expect(r.status, r.text).toBe(200);
    expect(r.body.data.map((c: { company: string }) => c.company)).toEqual([`Pay${ch}Co`]);
  });
});
