// The URL guard at connect time: the address actually connected to must be public, whatever
// the name resolved to when the subscription was saved.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebhookSender } from '../src/webhooks/sender.ts';
import { isPublicAddress, validateWebhookUrl } from '../src/webhooks/url-guard.ts';
import { receiver, type Receiver } from './helpers/receiver.ts';

let rc: Receiver;
beforeAll(async () => {
  rc = await receiver();
});
afterAll(() => rc.close());

describe('URL guard', () => {
  it('classifies addresses', () => {
    for (const ip of [
      '127.0.0.1',
      '10.0.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '198.18.0.1',
      '192.0.2.1',
      '240.0.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '::',
      '::1',
      '::ffff:127.0.0.1',
      '::ffff:a9fe:a9fe',
      'fe80::1',
      'fd00::1',
      'fec0::1',
      'ff02::1',
      '2001:db8::1',
      '2002:a00:1::',
      '64:ff9b::a00:1',
      '64:ff9b:1::a00:1',
      // ipaddr.js calls these 'unicast': IPv4-compatible (deprecated) and unallocated IPv6.
      '::7f00:1',
      '::a00:1',
      '4000::1',
    ]) {
      expect(isPublicAddress(ip), ip).toBe(false);
    }
    for (const ip of ['93.184.215.14', '8.8.8.8', '::ffff:8.8.8.8', '2606:4700:4700::1111', '2a00:1450:4001::1'])
      expect(isPublicAddress(ip), ip).toBe(true);
  });

  it('a name that resolved public at save and private at delivery is refused without reaching the target', async () => {
    let answer = '93.184.215.14';
    const resolve = async () => [answer];
    const policy = { allowHttp: true, allowPrivate: false, resolve };
    const port = new URL(rc.url).port;
    const url = `http://hooks.example.test:${port}/hook`;
    await expect(validateWebhookUrl(url, policy)).resolves.toBe(url);
    answer = '127.0.0.1';
    const sender = new WebhookSender(policy);
    const result = await sender.send({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });
    await sender.close();
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^blocked/);
    expect(rc.hits).toHaveLength(0);
  });

  it('an IP literal is checked before any socket opens', async () => {
    const sender = new WebhookSender({ allowHttp: true, allowPrivate: false });
    const result = await sender.send({ url: rc.url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });
    await sender.close();
    expect(result.error).toMatch(/^blocked/);
    expect(rc.hits).toHaveLength(0);
  });

  it('the same target passes when private addresses are allowed (local development)', async () => {
    const sender = new WebhookSender({ allowHttp: true, allowPrivate: true });
    const result = await sender.send({ url: rc.url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });
    await sender.close();
    expect(result.ok).toBe(true);
    expect(rc.hits).toHaveLength(1);
  });
});
