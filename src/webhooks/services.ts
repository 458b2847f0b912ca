// What the webhook features need at run time, built once per process from the configuration.
import type { Redis } from 'ioredis';
import type { Config } from '../config.ts';
import { DEFAULT_OUTBOUND_CAPS, OutboundLimits } from './outbound-limits.ts';
import { loadSecretBox, type SecretBox } from './secret-box.ts';
import { WebhookSender } from './sender.ts';
import type { UrlPolicy } from './url-guard.ts';

export interface WebhookServices {
  policy: UrlPolicy;
  box: SecretBox;
  sender: WebhookSender;
  /** Caps on test sends, redeliveries and deliveries per workspace and per destination host. */
  limits: OutboundLimits;
}

export function createWebhookServices(
  config: Pick<Config, 'encryptionKey' | 'dataDir' | 'webhookAllowHttp' | 'webhookAllowPrivateUrls'> &
    Partial<Pick<Config, 'webhookCaps'>>,
  opts: { resolve?: UrlPolicy['resolve']; redis?: Redis | null } = {},
): WebhookServices {
  const policy: UrlPolicy = {
    allowHttp: config.webhookAllowHttp,
    allowPrivate: config.webhookAllowPrivateUrls,
    resolve: opts.resolve,
  };
  return {
    policy,
    box: loadSecretBox(config.encryptionKey, config.dataDir),
    sender: new WebhookSender(policy),
    limits: new OutboundLimits(config.webhookCaps ?? DEFAULT_OUTBOUND_CAPS, opts.redis ?? null),
  };
}
