// What the webhook features need at run time, built once per process from the configuration.
import type { Config } from '../config.ts';
import { loadSecretBox, type SecretBox } from './secret-box.ts';
import { WebhookSender } from './sender.ts';
import type { UrlPolicy } from './url-guard.ts';

export interface WebhookServices {
  policy: UrlPolicy;
  box: SecretBox;
  sender: WebhookSender;
}

export function createWebhookServices(
  config: Pick<Config, 'encryptionKey' | 'dataDir' | 'webhookAllowHttp' | 'webhookAllowPrivateUrls'>,
  resolve?: UrlPolicy['resolve'],
): WebhookServices {
  const policy: UrlPolicy = { allowHttp: config.webhookAllowHttp, allowPrivate: config.webhookAllowPrivateUrls, resolve };
  return { policy, box: loadSecretBox(config.encryptionKey, config.dataDir), sender: new WebhookSender(policy) };
}
