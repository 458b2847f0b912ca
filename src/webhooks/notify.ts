// Tells a workspace's people that one of its webhook subscriptions was turned off: by e-mail
// when SMTP_URL is set, always in the log.
import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Db } from '../db/client.ts';

export interface DisabledSubscription {
  id: string;
  workspaceId: string;
  url: string;
  consecutiveFailures: number;
}

export type OwnerNotifier = (sub: DisabledSubscription) => Promise<void>;

export function createOwnerNotifier(opts: {
  prisma: Db;
  logger: Logger;
  smtpUrl: string | null;
  from: string;
}): OwnerNotifier {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  return async (sub) => {
    opts.logger.warn(
      {
        workspaceId: sub.workspaceId,
        subscriptionId: sub.id,
        url: sub.url,
        consecutiveFailures: sub.consecutiveFailures,
      },
      'webhook subscription disabled after repeated delivery failures; ' +
        'reactivate it with PUT /v1/webhooks/:id {"active": true}',
    );
    if (!transport) return;
    // Users belong to the live workspace; a sandbox subscription's owners are the same people.
    const ws = await opts.prisma.workspace.findUnique({
      where: { id: sub.workspaceId },
      select: { liveId: true, name: true },
    });
    const accountId = ws?.liveId ?? sub.workspaceId;
    const users = await opts.prisma.user.findMany({
      where: { workspaceId: accountId, active: true },
      select: { email: true },
    });
    if (users.length === 0) return;
    await transport.sendMail({
      from: opts.from,
      to: users.map((u) => u.email),
      subject: `Webhook to ${new URL(sub.url).host} was turned off`,
      text:
        `The webhook subscription ${sub.id} (${sub.url}) in workspace "${ws?.name ?? sub.workspaceId}" failed ` +
        `${sub.consecutiveFailures} times in a row and is now inactive. Its undelivered events are kept.\n\n` +
        `Fix the receiver, then reactivate the subscription: PUT /v1/webhooks/${sub.id} {"active": true}.\n`,
    });
  };
}
