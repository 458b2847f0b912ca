// Every instance on one database must encrypt webhook secrets with the same key: one that
// does not could open none of the secrets the others sealed (and seal ones they cannot open).
// The database keeps the key's fingerprint; an instance whose key differs refuses to start.
import type { Db } from '../db/client.ts';
import { StartupError } from '../startup-error.ts';
import type { SecretBox } from './secret-box.ts';

/** The row of table `settings` that holds the key's fingerprint. */
export const FINGERPRINT_SETTING = 'encryption_key_fingerprint';

export class EncryptionKeyMismatchError extends StartupError {
  /** `expected`: the database's fingerprint, null when only its stored secrets told. */
  constructor(expected: string | null, actual: string) {
    const seen = expected ? `database key ${expected.slice(0, 12)}…` : 'its stored webhook secrets do not open';
    super(
      `ENCRYPTION_KEY does not match the key this database's webhook secrets are encrypted with ` +
        `(${seen}, this instance's key ${actual.slice(0, 12)}…): start every instance with the same ENCRYPTION_KEY`,
    );
    this.name = 'EncryptionKeyMismatchError';
  }
}

/** Records this key's fingerprint on first use; throws EncryptionKeyMismatchError when the database holds another. */
export async function verifyEncryptionKey(prisma: Db, box: SecretBox): Promise<void> {
  const mine = box.fingerprint();
  let stored = await prisma.setting.findUnique({ where: { name: FINGERPRINT_SETTING } });
  if (!stored) {
    // A database from before fingerprints were kept: a secret it already holds tells whose key it is.
    const sealed = await prisma.webhookSubscription.findFirst({ select: { secretEncrypted: true } });
    if (sealed && !box.canOpen(sealed.secretEncrypted)) throw new EncryptionKeyMismatchError(null, mine);
    // Instances starting at once on a new database: the first write wins, the others compare with it.
    await prisma.setting.createMany({ data: [{ name: FINGERPRINT_SETTING, value: mine }], skipDuplicates: true });
    stored = await prisma.setting.findUniqueOrThrow({ where: { name: FINGERPRINT_SETTING } });
  }
  if (stored.value !== mine) throw new EncryptionKeyMismatchError(stored.value, mine);
}
