// Webhook signing secrets are stored encrypted (AES-256-GCM), never in plain text.
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Opened secrets kept in memory, by sealed form; past this many the oldest is dropped. */
const OPENED_CACHE_SIZE = 1000;

export class SecretBox {
  private readonly key: Buffer;
  /**
   * A worker signs every delivery with the subscription's secret; a sealed form always opens
   * to the same text, so it is opened once rather than per delivery.
   */
  private readonly opened = new Map<string, string>();

  constructor(keyMaterial: string) {
    this.key = createHash('sha256').update(keyMaterial).digest();
  }

  seal(plain: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return ['v1', iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
  }

  open(sealed: string): string {
    let plain = this.opened.get(sealed);
    if (plain === undefined) {
      plain = this.decrypt(sealed);
      if (this.opened.size >= OPENED_CACHE_SIZE) this.opened.delete(this.opened.keys().next().value!);
      this.opened.set(sealed, plain);
    }
    return plain;
  }

  /**
   * Names the key without revealing it: an HMAC of a constant under the key. Kept in the
   * database, it tells an instance whether its key is the one the stored secrets were sealed with.
   */
  fingerprint(): string {
    return createHmac('sha256', this.key).update('crm encryption key fingerprint v1').digest('hex');
  }

  /** True when the sealed text opens with this key. */
  canOpen(sealed: string): boolean {
    try {
      this.open(sealed);
      return true;
    } catch {
      return false;
    }
  }

  private decrypt(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== 'v1') throw new Error('Unknown secret format');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

/**
 * ENCRYPTION_KEY when set (several instances must share it); otherwise a random key kept in
 * a file beside the embedded database, made on first use and readable by its owner only.
 */
export function loadSecretBox(encryptionKey: string | null, dataDir: string): SecretBox {
  if (encryptionKey) return new SecretBox(encryptionKey);
  const file = keyFile(dataDir);
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dataDir, { recursive: true });
    try {
      fs.writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (err) {
      // Another process made it first: use theirs.
      if ((err as { code?: string }).code !== 'EEXIST') throw err;
    }
  }
  return new SecretBox(fs.readFileSync(file, 'utf8').trim());
}

/**
 * The key loadSecretBox would use, without making one: null when ENCRYPTION_KEY is unset and
 * `dataDir` has no key file yet (a restore checks the key before anything is started there).
 */
export function existingSecretBox(encryptionKey: string | null, dataDir: string): SecretBox | null {
  if (encryptionKey) return new SecretBox(encryptionKey);
  const file = keyFile(dataDir);
  return fs.existsSync(file) ? new SecretBox(fs.readFileSync(file, 'utf8').trim()) : null;
}

const keyFile = (dataDir: string) => path.join(dataDir, 'encryption.key');

/** Generated secrets follow the Standard Webhooks form: `whsec_` + base64 of 32 random bytes. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
