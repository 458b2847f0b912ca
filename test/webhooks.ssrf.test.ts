// SSRF through the API and the delivery worker: a webhook URL that is, or resolves to, a
// loopback, private, link-local, CGNAT, metadata, benchmarking, NAT64, unspecified or other
// non-global address is refused when saved (create and update answer 400 with the error
// envelope) and again at delivery, both for an IP literal and for a name that resolved public
// at save and private at delivery. DNS is stubbed.
//
// "No socket opened" is checked by counting connect ATTEMPTS, not successful connections, at
// three layers: undici's `undici:client:beforeConnect` channel, `net.Socket.prototype.connect`
// (where net.connect, net.createConnection and tls.connect all end up) and the TCP handle's
// connect/connect6 (the connect(2) call itself, with the address actually dialled). A SYN to
// 10.x or 169.254.x that would never be answered is therefore still seen. The last test is a
// positive control: an allowed delivery to a local receiver, showing all three layers count.
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../src/webhooks/sender.ts';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { receiver, until } from './helpers/receiver.ts';

/** Addresses as a resolver or an IP literal gives them; every one must be refused. */
const BLOCKED: Record<string, string> = {
  'loopback': '127.0.0.1',
  'RFC 1918 10/8': '10.0.0.1',
  'RFC 1918 172.16/12': '172.16.5.4',
  'RFC 1918 192.168/16': '192.168.1.1',
  'link-local': '169.254.10.20',
  'cloud metadata': '169.254.169.254',
  'CGNAT': '100.64.0.1',
  'benchmarking 198.18/15': '198.18.0.1',
  'unspecified': '0.0.0.0',
  'IPv6 unspecified': '::',
  'IPv6 loopback': '::1',
  'IPv4-mapped loopback': '::ffff:127.0.0.1',
  'IPv4-mapped metadata': '::ffff:169.254.169.254',
  'IPv4-compatible loopback (::127.0.0.1)': '::7f00:1',
  'NAT64 of 10.0.0.1': '64:ff9b::a00:1',
  'IPv6 link-local': 'fe80::1',
  'IPv6 unique local': 'fd00::1',
};

/** Other spellings of blocked addresses in a URL, and the hostname WHATWG URL parsing hands the guard. */
const SPELLINGS: [string, string][] = [
  ['127.1', '127.0.0.1'],
  ['0x7f.1', '127.0.0.1'],
  ['0177.0.0.1', '127.0.0.1'],
  ['2130706433', '127.0.0.1'],
  ['127.0.0.1.', '127.0.0.1'],
  ['0', '0.0.0.0'],
  ['0x0a.0.0.1', '10.0.0.1'],
  ['0xa9fea9fe', '169.254.169.254'],
  ['[::]', '[::]'],
  ['[::ffff:7f00:1]', '[::ffff:7f00:1]'],
  ['[0:0:0:0:0:ffff:127.0.0.1]', '[::ffff:7f00:1]'],
  ['[::127.0.0.1]', '[::7f00:1]'],
  ['[64:ff9b::10.0.0.1]', '[64:ff9b::a00:1]'],
];
const PUBLIC = '93.184.215.14';

/** The stubbed DNS: name → addresses; anything else does not resolve. */
const dns = new Map<string, string[]>();
const resolve = async (host: string) => {
  const found = dns.get(host);
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

// ---- The connect probe -------------------------------------------------------------------

interface Attempt {
  layer: 'undici' | 'socket' | 'tcp';
  host: string;
  port: number;
}
type Handle = Record<
  'connect' | 'connect6',
  (req: unknown, address: string, port: number, ...rest: unknown[]) => unknown
>;

/** Records every outbound connect attempt until restore() is called. */
function installConnectProbe() {
  const attempts: Attempt[] = [];
  const connectErrors: { host: string; code: string | undefined }[] = [];
  const restore: (() => void)[] = [];

  const onBefore = (msg: unknown) => {
    const { connectParams: p } = msg as { connectParams: { hostname: string; port: string | number } };
    attempts.push({ layer: 'undici', host: p.hostname, port: Number(p.port) });
  };
  const onError = (msg: unknown) => {
    const { connectParams: p, error } = msg as { connectParams: { hostname: string }; error: { code?: string } };
    connectErrors.push({ host: p.hostname, code: error?.code });
  };
  diagnostics.subscribe('undici:client:beforeConnect', onBefore);
  diagnostics.subscribe('undici:client:connectError', onError);
  restore.push(() => diagnostics.unsubscribe('undici:client:beforeConnect', onBefore));
  restore.push(() => diagnostics.unsubscribe('undici:client:connectError', onError));

  // net.connect/createConnection pass their normalized arguments as one array; tls.connect and
  // direct callers pass (options) or (port, host).
  const socketConnect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function (this: net.Socket, ...args: unknown[]) {
    const first = Array.isArray(args[0]) ? args[0][0] : args[0];
    const opts = (
      typeof first === 'object' && first !== null
        ? first
        : { port: first, host: typeof args[1] === 'string' ? args[1] : undefined }
    ) as { host?: string; port?: unknown; path?: string };
    if (opts.path === undefined)
      attempts.push({ layer: 'socket', host: opts.host ?? 'localhost', port: Number(opts.port) });
    return socketConnect.apply(this, args as never);
  } as typeof socketConnect;
  restore.push(() => {
    net.Socket.prototype.connect = socketConnect;
  });

  // The TCP handle every net socket dials through: connect (IPv4) and connect6 (IPv6), called
  // with the resolved address just before connect(2).
  const { TCP } = (process as unknown as { binding(name: string): { TCP: { prototype: Handle } } }).binding('tcp_wrap');
  for (const method of ['connect', 'connect6'] as const) {
    const original = TCP.prototype[method];
    TCP.prototype[method] = function (this: unknown, req, address, port, ...rest) {
      attempts.push({ layer: 'tcp', host: address, port });
      return original.call(this, req, address, port, ...rest);
    };
    restore.push(() => {
      TCP.prototype[method] = original;
    });
  }
  return { attempts, connectErrors, restore: () => restore.splice(0).forEach((r) => r()) };
}

// ---- Setup -------------------------------------------------------------------------------

let app: TestApp;
let ws: TestWorkspace;
let port: number;
const listeners: net.Server[] = [];
let tcpConnections = 0;
let probe: ReturnType<typeof installConnectProbe>;
/** The test's own traffic: the API under test, PostgreSQL and Redis. */
const infraPorts = new Set<number>();
const rebindHosts = new Set<string>();
let rejections = 0;

const portOf = (url: string | undefined, fallback: number) => (url ? Number(new URL(url).port || fallback) : null);
const bare = (host: string) => host.replace(/^\[|\]$/g, '');
/**
 * Attempts that must never happen: any connect(2) outside the test's own traffic, and any
 * undici or socket connect naming an IP literal (a literal is refused before connecting).
 * A name may reach undici and net only to be refused by the guarded lookup (the rebinding case).
 */
const forbidden = (attempts: Attempt[]) =>
  attempts.filter((a) => !infraPorts.has(a.port) && (a.layer === 'tcp' || net.isIP(bare(a.host)) !== 0));

// Its own schema on PostgreSQL: its worker must not pick up other files' deliveries.
const test = withAppOptions({
  isolated: true,
  webhooks: { webhookAllowHttp: true, webhookAllowPrivateUrls: false },
  resolve,
});
test.beforeAll(async ({ app: started, ws: main }) => {
  app = started;
  ws = main;
  infraPorts.add(Number(new URL(app.base).port));
  for (const p of [portOf(process.env.DATABASE_URL, 5432), portOf(process.env.REDIS_URL, 6379)])
    if (p) infraPorts.add(p);
  // The port every blocked URL names, watched on both loopbacks.
  const count = () =>
    net.createServer((s) => {
      tcpConnections++;
      s.destroy();
    });
  const v4 = count();
  await new Promise<void>((r) => v4.listen(0, '127.0.0.1', r));
  port = (v4.address() as net.AddressInfo).port;
  listeners.push(v4);
  const v6 = count();
  await new Promise<void>((r) => v6.once('error', () => r()).listen(port, '::1', r));
  listeners.push(v6);
  probe = installConnectProbe();
});
afterAll(async () => {
  probe?.restore();
  await Promise.all(listeners.map((l) => new Promise((r) => l.close(r))));
});

const literal = (ip: string) => (net.isIPv6(ip) ? `[${ip}]` : ip);

function expectUrlRefused(
  r: { status: number; body: any },
  label: string,
  detail: RegExp = /must point to a publicly reachable host: .* is not a public address/,
) {
  expect(r.status, label).toBe(400);
  expect(r.body, label).toMatchObject({
    success: false,
    error: { code: 'validation_error', details: { url: [expect.stringMatching(detail)] } },
    meta: { request_id: expect.any(String) },
  });
  rejections++;
}

// ---- Save time ---------------------------------------------------------------------------

describe('webhook URLs refused when saved', () => {
  it('URL parsing hands the guard the canonical address for every other spelling', () => {
    for (const [spelling, host] of SPELLINGS)
      expect(new URL(`https://${spelling}:${port}/hook`).hostname, spelling).toBe(host);
    // An unbracketed IPv6 address is not a URL at all.
    expect(() => new URL('https://::/hook')).toThrow();
  });

  it.each(Object.entries(BLOCKED))('%s (%s) as an IP literal', async (label, ip) => {
    expectUrlRefused(
      await ws.api('POST', '/v1/webhooks', { url: `https://${literal(ip)}:${port}/hook`, events: ['contact.created'] }),
      label,
    );
  });

  it.each(SPELLINGS)('%s (→ %s) as an IP literal', async (spelling) => {
    expectUrlRefused(
      await ws.api('POST', '/v1/webhooks', { url: `http://${spelling}:${port}/hook`, events: ['contact.created'] }),
      spelling,
    );
  });

  it('an unbracketed :: is refused as a malformed URL', async () => {
    expectUrlRefused(
      await ws.api('POST', '/v1/webhooks', { url: `https://::/hook`, events: ['contact.created'] }),
      '::',
      /absolute URL/,
    );
  });

  it.each(Object.entries(BLOCKED))('%s (%s) behind a name', async (label, ip) => {
    const host = `save-${ip.replace(/[.:]/g, '-')}.example.test`;
    dns.set(host, [ip]);
    expectUrlRefused(
      await ws.api('POST', '/v1/webhooks', { url: `https://${host}/hook`, events: ['contact.created'] }),
      label,
    );
    // One private address among public ones is enough to refuse.
    dns.set(host, [PUBLIC, ip]);
    expectUrlRefused(
      await ws.api('POST', '/v1/webhooks', { url: `https://${host}/hook`, events: ['contact.created'] }),
      `${label} among public`,
    );
  });

  it('on update too, leaving the stored URL unchanged', async () => {
    dns.set('update.example.test', [PUBLIC]);
    const created = await ws.api('POST', '/v1/webhooks', {
      url: 'https://update.example.test/hook',
      events: ['contact.created'],
      active: false,
    });
    expect(created.status, created.text).toBe(201);
    for (const [label, ip] of Object.entries(BLOCKED)) {
      expectUrlRefused(
        await ws.api('PUT', `/v1/webhooks/${created.body.data.id}`, { url: `https://${literal(ip)}/hook` }),
        label,
      );
    }
    for (const [spelling] of SPELLINGS) {
      expectUrlRefused(
        await ws.api('PUT', `/v1/webhooks/${created.body.data.id}`, { url: `https://${spelling}/hook` }),
        spelling,
      );
    }
    expect((await ws.api('GET', `/v1/webhooks/${created.body.data.id}`)).body.data.url).toBe(
      'https://update.example.test/hook',
    );
  });

  it('attempted no connection at all', () => {
    // Saving resolves names but never connects: not even to a name.
    expect(probe.attempts.filter((a) => !infraPorts.has(a.port))).toEqual([]);
    expect(tcpConnections).toBe(0);
  });
});

// ---- Delivery time -----------------------------------------------------------------------

describe('at delivery', () => {
  it('an IP literal (say, stored before the guard tightened) is refused before any connect', async () => {
    const { sender } = app.webhooks;
    const urls = [...Object.values(BLOCKED).map(literal), ...SPELLINGS.map(([s]) => s)].map(
      (h) => `http://${h}:${port}/hook`,
    );
    const before = probe.attempts.length;
    for (const url of urls) {
      const result = await sender.send({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000 });
      expect(result, url).toMatchObject({
        ok: false,
        statusCode: null,
        error: expect.stringMatching(/^blocked: .* is not a public address$/),
      });
      rejections++;
    }
    // Not a single attempt, at any layer, to anything.
    expect(probe.attempts.slice(before).filter((a) => !infraPorts.has(a.port))).toEqual([]);
    expect(tcpConnections).toBe(0);
  });

  it('a name public at save, private at delivery: blocked in the lookup, recorded as failed, no connect', async () => {
    const subs = new Map<string, { id: string; host: string; ip: string }>();
    for (const [label, ip] of Object.entries(BLOCKED)) {
      const host = `rebind-${ip.replace(/[.:]/g, '-')}.example.test`;
      dns.set(host, [PUBLIC]);
      rebindHosts.add(host);
      const r = await ws.api('POST', '/v1/webhooks', {
        url: `http://${host}:${port}/hook`,
        events: ['contact.created'],
        retry_policy: { max_retries: 0 },
      });
      expect(r.status, r.text).toBe(201);
      subs.set(label, { id: r.body.data.id, host, ip });
    }
    for (const { host, ip } of subs.values()) dns.set(host, [ip]);

    const before = probe.attempts.length;
    const errorsBefore = probe.connectErrors.length;
    expect((await ws.api('POST', '/v1/contacts', { first_name: 'Rebind', email: uniqueEmail('rebind') })).status).toBe(
      201,
    );
    const worker = app.worker();
    const logOf = async (id: string) => (await ws.api('GET', `/v1/webhooks/${id}/logs`)).body.data[0];
    await until(
      async () => {
        await worker.runOnce();
        const logs = await Promise.all([...subs.values()].map((s) => logOf(s.id)));
        return logs.every((l) => l?.status === 'failed');
      },
      20_000,
      100,
    );
    for (const [label, { id, host, ip }] of subs) {
      expect(await logOf(id), label).toMatchObject({
        status: 'failed',
        response_code: null,
        error: `blocked: ${host} (${ip}) is not a public address`,
      });
      rejections++;
    }

    const attempts = probe.attempts.slice(before).filter((a) => !infraPorts.has(a.port));
    // undici and net were handed the name (the guard is the socket's lookup)...
    expect(new Set(attempts.map((a) => a.host))).toEqual(rebindHosts);
    // ...every such connect failed in that lookup...
    const connectErrors = probe.connectErrors.slice(errorsBefore).filter((e) => rebindHosts.has(e.host));
    expect(connectErrors.length).toBe(attempts.filter((a) => a.layer === 'undici').length);
    expect(
      connectErrors.every((e) => e.code === 'EBLOCKED'),
      JSON.stringify(connectErrors),
    ).toBe(true);
    // ...and none reached connect(2).
    expect(attempts.filter((a) => a.layer === 'tcp')).toEqual([]);
    expect(tcpConnections).toBe(0);
  });
});

// ---- The probe itself --------------------------------------------------------------------

describe('the connect probe', () => {
  it('sees an allowed delivery at every layer, so the zeros above mean something', async () => {
    const blockedPhase = [...probe.attempts];
    const rc = await receiver();
    const rcPort = Number(new URL(rc.url).port);
    dns.set('allowed.example.test', ['127.0.0.1']);
    const named = `http://allowed.example.test:${rcPort}/hook`;
    const before = probe.attempts.length;
    // The same URLs the app's guard refuses, with no attempt...
    for (const url of [rc.url, named]) {
      expect(
        (await app.webhooks.sender.send({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 2000 })).error,
        url,
      ).toMatch(/^blocked/);
    }
    expect(probe.attempts.slice(before).filter((a) => a.layer === 'tcp' && a.port === rcPort)).toEqual([]);
    // ...are delivered when private targets are allowed (local development), and counted.
    const allowed = new WebhookSender({ allowHttp: true, allowPrivate: true, resolve });
    const beforeAllowed = probe.attempts.length;
    try {
      for (const url of [rc.url, named]) {
        expect(
          await allowed.send({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 }),
          url,
        ).toMatchObject({ ok: true, statusCode: 200 });
      }
    } finally {
      await allowed.close();
      await rc.close();
    }
    expect(rc.hits).toHaveLength(2);
    const seen = probe.attempts.slice(beforeAllowed).filter((a) => a.port === rcPort);
    expect(seen).toEqual([
      { layer: 'undici', host: '127.0.0.1', port: rcPort },
      { layer: 'socket', host: '127.0.0.1', port: rcPort },
      { layer: 'tcp', host: '127.0.0.1', port: rcPort },
      { layer: 'undici', host: 'allowed.example.test', port: rcPort },
      { layer: 'socket', host: 'allowed.example.test', port: rcPort },
      { layer: 'tcp', host: '127.0.0.1', port: rcPort },
    ]);
    probe.restore();

    const bad = forbidden(blockedPhase);
    expect(bad).toEqual([]);
    const addresses = Object.keys(BLOCKED).length;
    const count = (layer: Attempt['layer']) => seen.filter((a) => a.layer === layer).length;
    console.log(
      `ssrf: ${addresses} addresses × 5 ways + ${SPELLINGS.length} spellings × 3 ways = ${rejections} rejections, ` +
        `connect attempts to blocked addresses: ${bad.length} ` +
        `(positive control seen: undici ${count('undici')}, socket ${count('socket')}, tcp ${count('tcp')})`,
    );
  });
});
