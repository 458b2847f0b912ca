// One encryption key per database. An instance (API or worker) whose key is not the one the
// database's webhook secrets were sealed with refuses to start with one clear line; a secret
// that cannot be opened anyway fails its own delivery, test send or redelivery with a clear
// error, and never ends the process.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { freshStore, runEntry, waitForHttp, freePort, type Child } from './helpers/processes.ts';
import { receiver, until, type Receiver } from './helpers/receiver.ts';
import { serviceEnv } from './helpers/service-process.ts';
import { SecretBox } from '../src/webhooks/secret-box.ts';

const SLOW = 180_000;
// Its own schema on PostgreSQL: the workers here must not pick up other files' deliveries.
const test = withAppOptions({ isolated: true });

describe('a secret this instance cannot open', () => {
  let app: TestApp;
  let ws: TestWorkspace;
  let rc: Receiver;

  test.beforeAll(async ({ app: started, ws: main, listen }) => {
    app = started;
    ws = main;
    rc = await listen(() => 200);
  });

  /** A subscription as another instance, with its own key, would have stored it. */
  async function foreignSubscription(events = ['contact.created']) {
    const sub = (await ws.api('POST', '/v1/webhooks', { url: rc.url, events, retry_policy: { max_retries: 0 } })).body
      .data;
    await app.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: {
        secretEncrypted: new SecretBox('another instance key').seal('whsec_c2VjcmV0IG9mIGFub3RoZXIgaW5zdGFuY2U='),
      },
    });
    return sub as { id: string };
  }
  const logs = async (id: string) => (await ws.api('GET', `/v1/webhooks/${id}/logs?limit=100`)).body.data as any[];

  it('fails the delivery with a clear error, sends nothing, and the worker keeps delivering others', async () => {
    const sub = await foreignSubscription();
    const ok = await receiver(() => 200);
    try {
      const okSub = (await ws.api('POST', '/v1/webhooks', { url: ok.url, events: ['contact.created'] })).body.data;
      await ws.api('POST', '/v1/contacts', { first_name: 'Key', email: uniqueEmail('key') });
      const worker = app.worker();
      const log = await until(
        async () => {
          await worker.runOnce();
          return (await logs(sub.id)).find((l) => l.status !== 'pending');
        },
        20_000,
        100,
      );
      expect(log).toMatchObject({ status: 'failed', response_code: null });
      expect(log.error).toMatch(/cannot be decrypted with this instance's ENCRYPTION_KEY/);
      expect(rc.hits).toHaveLength(0);
      expect((await logs(okSub.id))[0]).toMatchObject({ status: 'delivered' });
      expect(ok.hits).toHaveLength(1);
    } finally {
      await ok.close();
    }
  });

  it('POST /test answers 200 with a failed result per event and the reason, never a 500', async () => {
    const sub = await foreignSubscription(['contact.created', 'deal.won']);
    const r = await ws.api('POST', `/v1/webhooks/${sub.id}/test`);
    expect(r.status).toBe(200);
    expect(r.body.data).toHaveLength(2);
    for (const result of r.body.data) {
      expect(result).toMatchObject({ status: 'failed', response_code: null });
      expect(result.error).toMatch(/ENCRYPTION_KEY/);
    }
    expect(rc.hits).toHaveLength(0);
  });
});

describe('a secret this instance cannot open, redelivered', () => {
  let app: TestApp;
  let ws: TestWorkspace;
  let rc: Receiver;
  // A second isolated app: this block starts from an empty delivery queue, as the first one does.
  test.beforeAll(async ({ startApp, listen }) => {
    app = await startApp({ isolated: true });
    ws = await app.workspace();
    rc = await listen(() => 200);
  });

  it('POST …/redeliver: 422 saying why, nothing queued; rotating the secret makes it work again', async () => {
    const sub = (await ws.api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] })).body.data;
    await ws.api('POST', '/v1/contacts', { first_name: 'Re', email: uniqueEmail('re') });
    const worker = app.worker();
    const logs = async () => (await ws.api('GET', `/v1/webhooks/${sub.id}/logs?limit=100`)).body.data as any[];
    const [done] = (await until(
      async () => {
        await worker.runOnce();
        const l = await logs();
        return l[0]?.status === 'delivered' ? l : null;
      },
      20_000,
      100,
    ))!;
    await app.db.prisma.webhookSubscription.update({
      where: { id: sub.id },
      data: { secretEncrypted: new SecretBox('another instance key').seal('whsec_b3RoZXI=') },
    });
    const refused = await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${done.id}/redeliver`);
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'unprocessable_entity' });
    expect(refused.body.error.message).toMatch(/ENCRYPTION_KEY/);
    expect(await logs()).toHaveLength(1);
    expect((await ws.api('PUT', `/v1/webhooks/${sub.id}`, { rotate_secret: true })).status).toBe(200);
    expect((await ws.api('POST', `/v1/webhooks/${sub.id}/logs/${done.id}/redeliver`)).status).toBe(202);
  });
});

describe('instances with different keys on one database', () => {
  let store: Awaited<ReturnType<typeof freshStore>>;
  const children: Child[] = [];
  beforeAll(async () => {
    store = await freshStore();
  });
  afterAll(async () => {
    for (const c of children) if (c.proc.exitCode === null) c.proc.kill('SIGKILL');
    await Promise.all(children.map((c) => c.exited));
    await store.drop();
    fs.rmSync(`${store.env.DATA_DIR}-other`, { recursive: true, force: true });
  });

  const env = (extra: Record<string, string>) => ({
    ...serviceEnv,
    REDIS_URL: '',
    ...store.env,
    ENCRYPTION_KEY: '',
    ...extra,
  });
  async function startApi(extra: Record<string, string>) {
    const port = await freePort();
    const child = runEntry('src/main.ts', env({ PORT: String(port), ...extra }));
    children.push(child);
    return { child, base: `http://127.0.0.1:${port}` };
  }
  /** Exits non-zero at once, with the one line that says why. */
  async function expectRefusal(child: Child) {
    const code = await Promise.race([child.exited, new Promise((r) => setTimeout(() => r('still running'), 60_000))]);
    expect(code, child.output()).toBe(1);
    const lines = child.output().trim().split('\n');
    expect(lines, child.output()).toHaveLength(1);
    expect(lines[0]).toMatch(
      /ENCRYPTION_KEY does not match the key this database's webhook secrets are encrypted with/,
    );
  }

  it(
    'the first instance records its generated key; one with another key (API or worker) refuses to start with one line',
    async () => {
      const first = await startApi({});
      await waitForHttp(`${first.base}/healthz`, first.child, 90_000);
      first.child.proc.kill('SIGTERM');
      expect(await first.child.exited).toBe(0);

      // PostgreSQL: another instance with a data dir (so a generated key) of its own. The embedded
      // database: the same data dir started with a key that differs from the generated one.
      const other: Record<string, string> = process.env.DATABASE_URL
        ? { DATA_DIR: `${store.env.DATA_DIR}-other` }
        : { ENCRYPTION_KEY: 'a different key' };
      await expectRefusal((await startApi(other)).child);
      const worker = runEntry('src/worker.ts', env(other));
      children.push(worker);
      await expectRefusal(worker);

      // The instance with the recorded key still starts.
      const again = await startApi({});
      await waitForHttp(`${again.base}/healthz`, again.child, 90_000);
      again.child.proc.kill('SIGTERM');
      expect(await again.child.exited).toBe(0);
    },
    SLOW,
  );
});
