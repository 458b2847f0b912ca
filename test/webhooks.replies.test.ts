// Whatever a receiver answers is stored safely and never wedges a delivery: bytes that are not
// text, characters split between chunks or at the 1,000-character cut, endless and huge
// replies. One outcome that cannot be saved never holds back or repeats another, and no
// delivery stays pending past its last allowed attempt.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { until, type Behaviour } from './helpers/receiver.ts';
import { deliveryWorld } from './helpers/delivery-world.ts';
import type { DeliveryWorker } from '../src/webhooks/worker.ts';

const world = deliveryWorld();
const { listen, subscribe, logs, drive } = world;
let app: TestApp;
let ws: TestWorkspace;
let worker: DeliveryWorker;
beforeAll(() => ({ app, ws, worker } = world));
const newContact = () => ws.api('POST', '/v1/contacts', { first_name: 'Reply', email: uniqueEmail('reply') });
/** One event to one subscription answered by `behaviour`; resolves to its recorded log entry once it left `pending`. */
async function deliverOnce(behaviour: Behaviour, settings: Record<string, unknown> = {}) {
  const rc = await listen(behaviour);
  const sub = await subscribe(rc.url, settings);
  await newContact();
  const log = await drive(async () => (await logs(sub.id)).find((l) => l.status !== 'pending'));
  return { rc, sub, log };
}

describe('replies are stored whatever bytes they hold', () => {
  it('NUL and other control characters are escaped visibly, invalid UTF-8 becomes U+FFFD; delivered once', async () => {
    const body = Buffer.concat([
      Buffer.from('ok\0done\x07\x1b[31m '),
      Buffer.from([0xff, 0xfe, 0xc3]),
      Buffer.from(' end\u0085'),
    ]);
    const { rc, sub, log } = await deliverOnce(() => ({ status: 200, body }));
    expect(log).toMatchObject({ status: 'delivered', response_code: 200, attempts: 1 });
    expect(log.response_body).toBe('ok\\u0000done\\u0007\\u001b[31m \ufffd\ufffd\ufffd end\\u0085');
    await worker.runOnce();
    expect(rc.hits).toHaveLength(1);
    expect(await logs(sub.id)).toHaveLength(1);
  });

  it('a 1,000th character that is half of an emoji is cut before the emoji, not stored as half of it', async () => {
    const { log } = await deliverOnce(() => ({ status: 200, body: `${'a'.repeat(999)}😀 and more` }));
    expect(log.status).toBe('delivered');
    expect(log.response_body).toBe('a'.repeat(999));
  });

  it('a reply in 1-byte chunks is decoded across chunk boundaries (no U+FFFD for split characters)', async () => {
    const text = 'héllo 😀 wörld — 日本語';
    const chunks = [...Buffer.from(text)].map((b) => Buffer.from([b]));
    const { log } = await deliverOnce(() => ({ status: 200, chunks }));
    expect(log.status).toBe('delivered');
    expect(log.response_body).toBe(text);
  });

  it('10 MB and endless replies split mid-character: cut on a character boundary, recorded at once', async () => {
    // The 1,000th character is the first half of an emoji, 10 MB in all.
    const big = Buffer.concat([Buffer.from('a'.repeat(999)), Buffer.alloc(10 * 1024 * 1024, Buffer.from('😀'))]);
    const huge = await deliverOnce(() => ({ status: 200, body: big }));
    expect(huge.log).toMatchObject({ status: 'delivered', response_body: 'a'.repeat(999) });
    // Emoji (4 bytes) in 7-byte chunks, forever.
    const stream = Buffer.from('😀'.repeat(7));
    const chunks = Array.from({ length: 4 }, (_, i) => stream.subarray(i * 7, i * 7 + 7));
    const started = Date.now();
    const endless = await deliverOnce(() => ({ status: 200, chunks, endless: true }), { timeout_seconds: 30 });
    expect(endless.log).toMatchObject({ status: 'delivered', response_body: '😀'.repeat(500) });
    // Well within the 30 s receiver timeout: the cap ends the read, not the deadline.
    expect(Date.now() - started).toBeLessThan(25_000);
  });
});

describe('one outcome never holds back another', () => {
  it("a reply that failed to save earlier does not get another receiver's outcome in its batch re-sent", async () => {
    const bad = await listen(() => ({ status: 200, body: Buffer.from('nul\0byte') }));
    const good = await listen(() => 200);
    const badSub = await subscribe(bad.url);
    const goodSub = await subscribe(good.url);
    await newContact();
    // One pass sends both and records both outcomes in one batch.
    await drive(() => bad.hits.length === 1 && good.hits.length === 1);
    await drive(
      async () => (await logs(goodSub.id))[0]?.status !== 'pending' && (await logs(badSub.id))[0]?.status !== 'pending',
      5_000,
    );
    expect((await logs(goodSub.id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    expect((await logs(badSub.id))[0]).toMatchObject({
      status: 'delivered',
      attempts: 1,
      response_body: 'nul\\u0000byte',
    });
  });

  it('a subscription deleted during its failing attempt does not roll back the outcomes recorded with it', async () => {
    // One receiver holds both requests and answers them in the same tick, so both outcomes are
    // recorded in one batch: a 500 for the subscription deleted meanwhile, a 200 for the other.
    const held: { path: string; res: http.ServerResponse }[] = [];
    const gate = http.createServer((req, res) => req.resume().on('end', () => held.push({ path: req.url!, res })));
    await new Promise<void>((r) => gate.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(gate.address() as AddressInfo).port}`;
    try {
      const doomedSub = await subscribe(`${base}/doomed`);
      const goodSub = await subscribe(`${base}/good`);
      await newContact();
      const pass = worker.runOnce();
      await until(() => held.length === 2);
      expect((await ws.api('DELETE', `/v1/webhooks/${doomedSub.id}`)).status).toBe(200);
      for (const { path, res } of held) res.writeHead(path === '/doomed' ? 500 : 200).end('answer');
      await pass;
      expect((await logs(goodSub.id))[0]).toMatchObject({ status: 'delivered', attempts: 1 });
      await worker.runOnce();
      expect(held).toHaveLength(2);
    } finally {
      gate.closeAllConnections();
      gate.close();
    }
  });

  it('a worker whose lease ran out does not overwrite the claim of the worker that took over', async () => {
    const rc = await listen(() => ({ status: 200, delayMs: 1500 }));
    const sub = await subscribe(rc.url);
    await newContact();
    const pass = worker.runOnce();
    await until(() => rc.hits.length === 1);
    // Another worker claims it again, as it may once the lease ran out: one more attempt, a new lease.
    const lease = new Date(Date.now() + 60_000);
    await app.db.prisma.webhookDelivery.updateMany({
      where: { subscriptionId: sub.id },
      data: { attempts: { increment: 1 }, lockedUntil: lease },
    });
    await pass;
    const [row] = await app.db.prisma.webhookDelivery.findMany({ where: { subscriptionId: sub.id } });
    expect(row).toMatchObject({ status: 'pending', attempts: 2, lockedUntil: lease });
  });

  it('a delivery with every allowed attempt claimed but no outcome ends failed, without another send', async () => {
    const rc = await listen(() => 200);
    const sub = await subscribe(rc.url, { retry_policy: { max_retries: 2, intervals_seconds: [1] } });
    await newContact();
    await drive(async () => (await logs(sub.id))[0]?.status === 'delivered');
    // Three claims (1 + max_retries) whose leases all ran out: what a worker that could never
    // record the outcome, or died each time, leaves behind.
    await app.db.prisma.webhookDelivery.updateMany({
      where: { subscriptionId: sub.id },
      data: {
        status: 'pending',
        attempts: 3,
        lockedUntil: new Date(Date.now() - 1000),
        nextAttemptAt: new Date(Date.now() - 60_000),
        lastAttemptAt: new Date(Date.now() - 50_000),
      },
    });
    const hitsBefore = rc.hits.length;
    const log = await drive(async () => (await logs(sub.id)).find((l) => l.status !== 'pending'));
    expect(log.status).toBe('failed');
    expect(log.error).toMatch(/no outcome was recorded/);
    expect(rc.hits.length).toBe(hitsBefore);
  });
});

describe('test sends and redeliveries store replies the same way', () => {
  it('POST /test with a reply holding NUL and a split emoji answers 200 and logs the escaped text', async () => {
    const rc = await listen(() => ({
      status: 200,
      body: Buffer.concat([Buffer.from(`${'b'.repeat(998)}\0`), Buffer.from('😀')]),
    }));
    const sub = await subscribe(rc.url, { events: ['contact.created', 'deal.created'] });
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/test`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(2);
    for (const result of r.body.data) expect(result).toMatchObject({ status: 'delivered', response_code: 200 });
    const tests = (await logs(sub.id)).filter((l) => l.test);
    expect(tests).toHaveLength(2);
    for (const l of tests) expect(l.response_body).toBe(`${'b'.repeat(998)}\\u0000`);
  });

  it('a redelivery answered with bytes that are not text is delivered and logged', async () => {
    const rc = await listen((n) =>
      n === 1 ? 200 : { status: 200, body: Buffer.from([0x00, 0xed, 0xa0, 0x80, 0x41]) },
    );
    const sub = await subscribe(rc.url);
    await newContact();
    const [first] = (await drive(async () => {
      const l = await logs(sub.id);
      return l[0]?.status === 'delivered' ? l : null;
    }))!;
    const again = await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${first.id}/redeliver`);
    expect(again.status).toBe(202);
    const log = await drive(async () =>
      (await logs(sub.id)).find((l) => l.id === again.body.data.id && l.status !== 'pending'),
    );
    expect(log).toMatchObject({ status: 'delivered', response_code: 200 });
    expect(log.response_body).toBe('\\u0000\ufffd\ufffd\ufffdA');
  });
});

describe('header values are sendable and storable', () => {
  it('a custom header value with a control or non-ASCII character is a 400 on create and update', async () => {
    const rc = await listen();
    const sub = await subscribe(rc.url);
    for (const value of ['a\0b', 'bell\u0007', 'smile 😀', '\ud800lone']) {
      const created = await ws.api('POST', '/v1/webhooks', {
        url: rc.url,
        events: ['contact.created'],
        headers: { 'X-Odd': value },
      });
      expect(created.status, JSON.stringify(value)).toBe(400);
      expect(created.body.error).toMatchObject({ code: 'validation_error' });
      expect(Object.keys(created.body.error.details).join()).toMatch(/headers/);
      const updated = await ws.api('PUT', `/v1/webhooks/${sub.id}`, { headers: { 'X-Odd': value } });
      expect(updated.status, JSON.stringify(value)).toBe(400);
    }
    // A sendable value is kept and sent as given.
    expect((await ws.api('PUT', `/v1/webhooks/${sub.id}`, { headers: { 'X-Odd': 'plain\tvalue ~!' } })).status).toBe(
      200,
    );
  });
});
