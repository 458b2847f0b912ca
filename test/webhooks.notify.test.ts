// A subscription turned off by failures: its workspace's users get an e-mail (SMTP_URL set).
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger } from '../src/logger.ts';
import { createOwnerNotifier } from '../src/webhooks/notify.ts';
import { DeliveryWorker } from '../src/webhooks/worker.ts';
import type { TestApp } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';
import { until, type Receiver } from './helpers/receiver.ts';

interface Mail {
  to: string[];
  body: string;
}

let app: TestApp;
let smtp: SMTPServer;
let smtpPort: number;
let rc: Receiver;
const mails: Mail[] = [];

// Its own schema on PostgreSQL: a delivery worker here must not pick up other files' deliveries.
const test = withAppOptions({ isolated: true });
test.beforeAll(async ({ app: started, listen }) => {
  app = started;
  rc = await listen(() => 500);
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
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => smtp.close(() => r()));
});

describe('owner notification', () => {
  it('e-mails the workspace users once the subscription is turned off', async () => {
    const ws = await app.workspace();
    const ada = await ws.addUser('Ada', `ada.${Date.now()}@acme.test`);
    const sub = (
      await ws.api('POST', '/v1/webhooks', {
        url: rc.url,
        events: ['activity.logged'],
        auto_disable_after: 1,
        retry_policy: { max_retries: 0 },
      })
    ).body.data;
    const logger = createLogger('silent');
    const worker = new DeliveryWorker({
      prisma: app.db.prisma,
      logger,
      pollMs: 50,
      ...app.webhooks,
      notifyDisabled: createOwnerNotifier({
        prisma: app.db.prisma,
        logger,
        smtpUrl: `smtp://127.0.0.1:${smtpPort}`,
        from: 'CRM <crm@acme.test>',
      }),
    });
    for (let i = 0; i < 2; i++) await ws.api('POST', '/v1/activities', { type: 'note', subject: `n${i}` });
    await until(async () => (await worker.runOnce(), mails.length > 0), 15_000);
    expect((await ws.api('GET', `/v1/webhooks/${sub.id}`)).body.data.active).toBe(false);
    expect(mails).toHaveLength(1);
    const user = await app.db.prisma.user.findUnique({ where: { id: ada.id } });
    expect(mails[0].to).toEqual([user!.email]);
    expect(mails[0].body).toContain(sub.id);
    expect(mails[0].body).toMatch(/reactivate/);
  });
});
