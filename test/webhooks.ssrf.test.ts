// SSRF through the API and the delivery worker: a webhook URL that is, or resolves to, a
// loopback, private, link-local, CGNAT, metadata or unspecified address is refused when saved
// (create and update answer 400 with the error envelope) and again at connect time, when a
// name that resolved public at save resolves private at delivery. DNS is stubbed; no socket
// may open: a server on the target port counts connections, and undici reports every connect.
import diagnostics from 'node:diagnostics_channel';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { until } from './helpers/receiver.ts';

const BLOCKED: Record<string, string> = {
  'loopback': '127.0.0.1',
  'RFC 1918 10/8': '10.0.0.1',
  'RFC 1918 172.16/12': '172.16.5.4',
  'RFC 1918 192.168/16': '192.168.1.1',
  'link-local': '169.254.10.20',
  'cloud metadata': '169.254.169.254',
  'CGNAT': '100.64.0.1',
  'unspecified': '0.0.0.0',
  'IPv6 loopback': '::1',
  'IPv4-mapped loopback': '::ffff:127.0.0.1',
  'IPv6 link-local': 'fe80::1',
  'IPv6 unique local': 'fd00::1',
};
const PUBLIC = '93.184.215.14';

/** The stubbed DNS: name → addresses; anything else does not resolve. */
const dns = new Map<string, string[]>();
const resolve = async (host: string) => {
  const found = dns.get(host);
  if (!found) throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
  return found;
};

let app: TestApp;
let ws: TestWorkspace;
let port: number;
const listeners: net.Server[] = [];
let tcpConnections = 0;
const connects: string[] = [];
const onConnect = (msg: unknown) => {
  const { connectParams } = msg as { connectParams: { hostname: string; port: string | number } };
  if (String(connectParams.port) === String(port)) connects.push(connectParams.hostname);
};

beforeAll(async () => {
  // Its own schema on PostgreSQL: its worker must not pick up other files' deliveries.
  app = await startTestApp({ isolated: true, webhooks: { webhookAllowHttp: true, webhookAllowPrivateUrls: false }, resolve });
  ws = await app.workspace();
  // The port every blocked URL names, watched on both loopbacks.
  const count = () => net.createServer((s) => {
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
  diagnostics.subscribe('undici:client:connected', onConnect);
});
afterAll(async () => {
  diagnostics.unsubscribe('undici:client:connected', onConnect);
  await app?.close();
  await Promise.all(listeners.map((l) => new Promise((r) => l.close(r))));
});

const literal = (ip: string) => (net.isIPv6(ip) ? `[${ip}]` : ip);

function expectUrlRefused(r: { status: number; body: any }, label: string) {
  expect(r.status, label).toBe(400);
  expect(r.body, label).toMatchObject({ success: false, error: { code: 'validation_error', details: { url: [expect.stringMatching(/public/)] } }, meta: { request_id: expect.any(String) } });
}

describe('webhook URLs refused when saved', () => {
  it.each(Object.entries(BLOCKED))('%s (%s) as an IP literal', async (label, ip) => {
    expectUrlRefused(await ws.api('POST', '/v1/webhooks', { url: `https://${literal(ip)}:${port}/hook`, events: ['contact.created'] }), label);
  });

  it.each(Object.entries(BLOCKED))('%s (%s) behind a name', async (label, ip) => {
    const host = `save-${ip.replace(/[.:]/g, '-')}.example.test`;
    dns.set(host, [ip]);
    expectUrlRefused(await ws.api('POST', '/v1/webhooks', { url: `https://${host}/hook`, events: ['contact.created'] }), label);
    // One private address among public ones is enough to refuse.
    dns.set(host, [PUBLIC, ip]);
    expectUrlRefused(await ws.api('POST', '/v1/webhooks', { url: `https://${host}/hook`, events: ['contact.created'] }), `${label} among public`);
  });

  it('on update too, leaving the stored URL unchanged', async () => {
    dns.set('update.example.test', [PUBLIC]);
    const created = await ws.api('POST', '/v1/webhooks', { url: 'https://update.example.test/hook', events: ['contact.created'], active: false });
    expect(created.status, created.text).toBe(201);
    for (const [label, ip] of Object.entries(BLOCKED)) {
      expectUrlRefused(await ws.api('PUT', `/v1/webhooks/${created.body.data.id}`, { url: `https://${literal(ip)}/hook` }), label);
    }
    expect((await ws.api('GET', `/v1/webhooks/${created.body.data.id}`)).body.data.url).toBe('https://update.example.test/hook');
  });

  it('opened no socket', () => {
    expect(tcpConnections).toBe(0);
    expect(connects).toEqual([]);
  });
});

describe('a name public at save and private at delivery', () => {
  it('is blocked at connect time for every address family, with no socket opened', async () => {
    const subs = new Map<string, { id: string; host: string }>();
    for (const [label, ip] of Object.entries(BLOCKED)) {
      const host = `rebind-${ip.replace(/[.:]/g, '-')}.example.test`;
      dns.set(host, [PUBLIC]);
      const r = await ws.api('POST', '/v1/webhooks', { url: `http://${host}:${port}/hook`, events: ['contact.created'], retry_policy: { max_retries: 0 } });
      expect(r.status, r.text).toBe(201);
      subs.set(label, { id: r.body.data.id, host });
    }
    for (const [label, ip] of Object.entries(BLOCKED)) dns.set(subs.get(label)!.host, [ip]);

    expect((await ws.api('POST', '/v1/contacts', { first_name: 'Rebind', email: uniqueEmail('rebind') })).status).toBe(201);
    const worker = app.worker();
    const logOf = async (id: string) => (await ws.api('GET', `/v1/webhooks/${id}/logs`)).body.data[0];
    await until(async () => {
      await worker.runOnce();
      const logs = await Promise.all([...subs.values()].map((s) => logOf(s.id)));
      return logs.every((l) => l?.status === 'failed');
    }, 20_000, 100);
    for (const [label, { id }] of subs) {
      expect(await logOf(id), label).toMatchObject({ status: 'failed', response_code: null, error: expect.stringMatching(/^blocked/) });
    }
    expect(tcpConnections).toBe(0);
    expect(connects).toEqual([]);
  });
});
