// Attacks on the Team page's API: password links raced against deactivation, reused at once,
// e-mail header injection through names, hostile schemes from a proxy header, odd inputs.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueEmail, type Client, type TestApp, type TestWorkspace } from '../helpers/app.ts';
import { ownAddressClient, PASSWORD, setPassword, signIn, type Signed } from '../helpers/dashboard.ts';

interface Mail {
  to: string[];
  body: string;
}

let app: TestApp;
let ws: TestWorkspace;
let smtp: SMTPServer;
/** Signed out, from an address of the file's own: the link routes' limit is per client address. */
let signedOut: Client;
const mails: Mail[] = [];

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
afterAll(async () => {
  await app?.close();
  await new Promise<void>((r) => smtp.close(() => r()));
});

const INVITE = `mutation ($input: UserInviteInput!) {
  inviteUser(input: $input) { user { id name email } link { url expires_at emailed } }
}`;
const RESET = 'mutation ($id: ID!) { createPasswordResetLink(userId: $id) { url expires_at emailed } }';
const DEACTIVATE = 'mutation ($id: ID!) { deactivateUser(id: $id) { id active } }';
const REACTIVATE = 'mutation ($id: ID!) { reactivateUser(id: $id) { id active } }';

async function member(name: string, workspace = ws, on = app): Promise<{ id: string; email: string; signed: Signed }> {
  const email = uniqueEmail(name.toLowerCase());
  const user = await workspace.addUser(name, email);
  await setPassword(on.db, email);
  return { id: user.id, email, signed: await signIn(on.base, email) };
}

/** A POST with headers fetch would not send as given (Host). */
function rawPost(base: string, path: string, body: string, headers: Record<string, string>) {
  return new Promise<{ status: number; text: string; body: any }>((resolve, reject) => {
    const req = http.request(
      `${base}${path}`,
      { method: 'POST', headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString('utf8')));
        res.on('end', () => {
          let parsed: unknown = null;
          try {
            parsed = JSON.parse(text);
          } catch {}
          resolve({ status: res.statusCode ?? 0, text, body: parsed });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const tokenOf = (url: string) => new URL(url).hash.replace(/^#token=/, '');

describe('password links under attack', () => {
  // The active check of createPasswordResetLink ran before its transaction, outside the lock
  // deactivateUser takes: on PostgreSQL (DATABASE_URL) a link made then outlived the deactivation
  // and worked again after a reactivation. PGlite's one connection rarely interleaves them.
  it('a reset link made while the user is being deactivated never outlives the deactivation', async () => {
    const admin = await member('Racer');
    for (let round = 0; round < 8; round++) {
      const target = await member(`Target${round}`);
      // The link is asked for and the user deactivated at (about) the same moment.
      const [reset, deactivated] = await Promise.all([
        admin.signed.gql(RESET, { id: target.id }),
        new Promise((r) => setTimeout(r, round)).then(() => admin.signed.gql(DEACTIVATE, { id: target.id })),
      ]);
      expect(deactivated.errors).toBeUndefined();
      const left = await app.db.prisma.passwordLink.count({ where: { userId: target.id } });
      // Deactivation voids every link: none may be left for an inactive user, whatever the order.
      expect(left, `round ${round}: ${JSON.stringify(reset.errors ?? 'link made')}`).toBe(0);
      // Nor may a link made then work once the user is reactivated.
      await admin.signed.gql(REACTIVATE, { id: target.id });
      if (reset.data?.createPasswordResetLink) {
        const used = await signedOut('POST', '/dashboard/api/password', {
          token: tokenOf(reset.data.createPasswordResetLink.url),
          password: 'taken over password',
        });
        expect(used.status, `round ${round}`).toBe(404);
      }
    }
  });

  it('one token used twice at once: exactly one use goes through', async () => {
    const admin = await member('Twice');
    const r = await admin.signed.gql(INVITE, { input: { name: 'Double', email: uniqueEmail('double') } });
    expect(r.errors).toBeUndefined();
    const token = tokenOf(r.data.inviteUser.link.url);
    const uses = await Promise.all(
      [1, 2].map((i) => signedOut('POST', '/dashboard/api/password', { token, password: `password number ${i}` })),
    );
    expect(uses.map((u) => u.status).sort()).toEqual([200, 404]);
  });

  it('names and workspace names cannot add e-mail headers or recipients', async () => {
    await app.db.prisma.workspace.update({
      where: { id: ws.id },
      data: { name: 'Acme\r\nBcc: thief@evil.test\r\nX-Injected: ws' },
    });
    try {
      const inviter = await member('Inviter');
      await app.db.prisma.user.update({
        where: { id: inviter.id },
        data: { name: 'Eve\r\nBcc: thief2@evil.test\r\nX-Injected: by' },
      });
      const email = uniqueEmail('victim');
      mails.length = 0;
      const r = await inviter.signed.gql(INVITE, {
        input: { name: 'Vic\r\nBcc: thief3@evil.test', email },
      });
      // Refused or sent: never to anyone else, never with a header of the caller's.
      if (r.errors) expect(r.errors[0].extensions?.code).toBe('validation_error');
      else {
        expect(r.data.inviteUser.link.emailed).toBe(true);
        expect(mails).toHaveLength(1);
        expect(mails[0].to).toEqual([email]);
        const headers = mails[0].body.split(/\r?\n\r?\n/)[0];
        expect(headers).not.toMatch(/^(bcc|x-injected):/im);
      }
    } finally {
      await app.db.prisma.workspace.update({ where: { id: ws.id }, data: { name: 'Attack workspace' } });
    }
  });

  it('odd names, addresses and passwords get 4xx answers, never a 500', async () => {
    const admin = await member('Oddity');
    const cases: Array<{ name: string; email: string }> = [
      { name: 'x'.repeat(1025), email: uniqueEmail('long') },
      { name: 'NUL\u0000name', email: uniqueEmail('nul') },
      { name: '👩‍💻 ‮RTL‬ %_', email: uniqueEmail('emoji') },
      { name: 'Percent', email: `pe%rc_ent.${Date.now()}@example.com` },
      { name: 'Long address', email: `${'a'.repeat(300)}@example.com` },
      { name: 'Unicode address', email: `jos\u0065\u0301.${Date.now()}@example.com` },
    ];
    for (const c of cases) {
      const r = await admin.signed.api('POST', '/graphql', { query: INVITE, variables: { input: c } });
      expect(r.status, `${c.name.slice(0, 20)}: ${r.text.slice(0, 300)}`).toBeLessThan(500);
      const code = r.body.errors?.[0]?.extensions?.code;
      if (code) expect(['validation_error', 'conflict']).toContain(code);
    }
    const ok = await admin.signed.gql(INVITE, { input: { name: 'Pw', email: uniqueEmail('pw') } });
    const token = tokenOf(ok.data.inviteUser.link.url);
    for (const password of ['y'.repeat(1025), 'pass\u0000word1234', '\ud800lonely surrogate']) {
      const r = await signedOut('POST', '/dashboard/api/password', { token, password });
      expect(r.status, r.text.slice(0, 200)).toBe(400);
    }
  });

  it('the signed-out routes cannot be driven by another site (no simple form posts, no CORS)', async () => {
    const token = 'A'.repeat(43);
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x']) {
      const r = await fetch(`${app.base}/dashboard/api/password`, {
        method: 'POST',
        headers: { 'content-type': type, origin: 'https://evil.test' },
        body: JSON.stringify({ token, password: 'attacker password 1' }),
      });
      expect(r.status, type).toBe(415);
    }
    const pre = await fetch(`${app.base}/dashboard/api/password`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.test',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("another workspace's link never sets the password a person signs in to this one with", async () => {
    const wsB = await app.workspace();
    const wsA = await app.workspace();
    // The attacker's workspace sorts first: sign-in's default choice.
    await app.db.prisma.workspace.update({ where: { id: wsA.id }, data: { name: 'Aaa attacker' } });
    await app.db.prisma.workspace.update({ where: { id: wsB.id }, data: { name: 'Zzz victim' } });
    const adminB = await member('AdminB', wsB);
    const person = await member('Person', wsB);
    const attacker = await member('AdminA', wsA);
    const login = async (email: string, password: string) => {
      const r = await signedOut('POST', '/dashboard/api/login', { email, password });
      return r.status === 200 ? r.body.workspaces.map((w: { id: string }) => w.id) : r.status;
    };

    // A person deactivated in B keeps their password there, whatever A's link sets for A.
    expect((await adminB.signed.gql(DEACTIVATE, { id: person.id })).errors).toBeUndefined();
    const invited = await attacker.signed.gql(INVITE, { input: { name: 'Person', email: person.email } });
    expect(invited.errors).toBeUndefined();
    const token = tokenOf(invited.data.inviteUser.link.url);
    const check = await signedOut('POST', '/dashboard/api/password-link', { token });
    expect(check.body).not.toHaveProperty('existing_password');
    const taken = await signedOut('POST', '/dashboard/api/password', { token, password: 'attacker chosen password' });
    expect(taken.status, taken.text).toBe(200);
    expect(taken.body.workspaces.map((w: { id: string }) => w.id)).toEqual([wsA.id]);
    expect((await adminB.signed.gql(REACTIVATE, { id: person.id })).errors).toBeUndefined();
    expect(await login(person.email, PASSWORD)).toEqual([wsB.id]);
    expect(await login(person.email, 'attacker chosen password')).toEqual([wsA.id]);

    // An address B has yet to invite: A claims it first, B's invitation still lets the person choose.
    const fresh = uniqueEmail('newcomer');
    const squat = await attacker.signed.gql(INVITE, { input: { name: 'Newcomer', email: fresh } });
    const squatted = await signedOut('POST', '/dashboard/api/password', {
      token: tokenOf(squat.data.inviteUser.link.url),
      password: 'attacker chosen password',
    });
    expect(squatted.status, squatted.text).toBe(200);
    const real = await adminB.signed.gql(INVITE, { input: { name: 'Newcomer', email: fresh } });
    const chosen = await signedOut('POST', '/dashboard/api/password', {
      token: tokenOf(real.data.inviteUser.link.url),
      password: 'the newcomer own password',
    });
    expect(chosen.status, chosen.text).toBe(200);
    expect(chosen.body.workspaces.map((w: { id: string }) => w.id)).toEqual([wsB.id]);
    expect(await login(fresh, 'the newcomer own password')).toEqual([wsB.id]);
    expect(await login(fresh, 'attacker chosen password')).toEqual([wsA.id]);
  });
});

describe('a password set in one workspace', () => {
  it("ends the sessions working there, and only takes that workspace off the person's others", async () => {
    const [first, second] = [await app.workspace(), await app.workspace()];
    await app.db.prisma.workspace.update({ where: { id: first.id }, data: { name: 'Aaa first' } });
    await app.db.prisma.workspace.update({ where: { id: second.id }, data: { name: 'Zzz second' } });
    const email = uniqueEmail('twice');
    await first.addUser('Twice', email);
    const there = await second.addUser('Twice', email);
    await setPassword(app.db, email);
    // Signed in to both (the same password), working in the first.
    const person = await signIn(app.base, email);
    const before = await person.api('GET', '/dashboard/api/session');
    expect(before.body.workspaces.map((w: { id: string }) => w.id)).toEqual([first.id, second.id]);
    // The second workspace resets its user's password.
    const admin = await member('AdminSecond', second);
    const link = await admin.signed.gql(RESET, { id: there.id });
    const token = tokenOf(link.data.createPasswordResetLink.url);
    const set = await signedOut('POST', '/dashboard/api/password', { token, password: 'a new second password' });
    expect(set.status, set.text).toBe(200);
    // The first workspace's session goes on, without the second.
    const after = await person.api('GET', '/dashboard/api/session');
    expect(after.status, after.text).toBe(200);
    expect(after.body.workspaces.map((w: { id: string }) => w.id)).toEqual([first.id]);
    // A session working in the reset workspace ends.
    const inSecond = await signIn(app.base, email, 'a new second password');
    const reset = await admin.signed.gql(RESET, { id: there.id });
    const again = tokenOf(reset.data.createPasswordResetLink.url);
    expect(
      (await signedOut('POST', '/dashboard/api/password', { token: again, password: 'third password!' })).status,
    ).toBe(200);
    expect((await inSecond.api('GET', '/dashboard/api/session')).status).toBe(401);
  });
});

describe('the origin a link is built on', () => {
  it('never takes a scheme other than http or https from X-Forwarded-Proto', async () => {
    const proxied = await startTestApp({ trustProxy: '1' });
    try {
      const w = await proxied.workspace();
      const admin = await member('Proxied', w, proxied);
      for (const proto of ['javascript:alert(1)//', 'data', 'ftp']) {
        const r = await admin.signed.api(
          'POST',
          '/graphql',
          { query: INVITE, variables: { input: { name: 'P', email: uniqueEmail('proto') } } },
          { headers: { 'x-forwarded-proto': proto } },
        );
        const url: string | undefined = r.body.data?.inviteUser?.link?.url;
        if (url !== undefined) expect(url, proto).toMatch(/^https?:\/\//);
      }
    } finally {
      await proxied.close();
    }
  });

  it('a forged Host or X-Forwarded-Host never names the link: PUBLIC_URL, or an allowed host, or no link', async () => {
    const published = await startTestApp({ trustProxy: '1', publicOrigin: 'https://crm.example.com' });
    const listed = await startTestApp({ allowedHosts: ['crm.example.com'] });
    try {
      for (const [on, expected] of [
        [published, /^https:\/\/crm\.example\.com\/dashboard\/set-password#token=/],
        [listed, null],
      ] as const) {
        const w = await on.workspace();
        const admin = await member('Hosted', w, on);
        // fetch does not send a Host header of the caller's: a raw request does.
        const r = await rawPost(
          on.base,
          '/graphql',
          JSON.stringify({
            query: INVITE,
            variables: { input: { name: 'H', email: uniqueEmail('host') } },
          }),
          {
            host: 'evil.example',
            'x-forwarded-host': 'evil.example',
            'x-forwarded-proto': 'https',
            cookie: admin.signed.cookie,
            'x-csrf-token': admin.signed.csrf,
          },
        );
        const url: string | undefined = r.body.data?.inviteUser?.link?.url;
        if (expected) expect(url, r.text).toMatch(expected);
        else {
          expect(url, r.text).toBeUndefined();
          expect(r.body.errors?.[0]?.extensions?.code).toBe('unprocessable_entity');
        }
      }
    } finally {
      await Promise.all([published.close(), listed.close()]);
    }
  });
});
