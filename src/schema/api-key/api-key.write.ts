// Storing a new API key, for the createApiKey mutation and the admin CLI alike: scope, permissions
// and expiry are checked; only the key's hash and display prefix are kept.
import type { Db } from '../../db/client.ts';
import type { ApiKey, Prisma } from '../../db/generated/client/client.ts';
import { diff, recordAudit } from '../../events/audit.ts';
import type { Actor } from '../../events/outbox.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../../auth/keys.ts';
import { parsePermissions, SCOPES, type Scope } from '../../auth/scopes.ts';
import { validationError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import { parseCalendarDateTime } from '../common/dates.ts';
import { liveWorkspace } from '../common/live-workspace.ts';

export interface KeyInput {
  workspace: string;
  name: string;
  scope: string;
  permissions?: string[];
  sandbox?: boolean;
  expiresAt?: string;
  userId?: string;
}

/** What the audit log keeps of a key: never its hash. */
export const apiKeyAuditFields = (k: ApiKey) => ({
  name: k.name,
  prefix: k.prefix,
  scope: k.scope,
  permissions: k.permissions,
  sandbox: k.sandbox,
  user_id: k.userId,
  expires_at: k.expiresAt?.toISOString() ?? null,
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

/** Checks and stores a new key: its row, and the key itself (never stored); the audit log names `actor`. */
export async function insertApiKey(db: Db, input: KeyInput, actor: Actor | null = null) {
  await liveWorkspace(db, input.workspace);
  if (!input.name?.trim()) throw validationError({ name: ['is required'] });
  if (!(SCOPES as readonly string[]).includes(input.scope)) {
    throw validationError({ scope: [`must be one of ${SCOPES.join(', ')}`] });
  }
  const { valid, invalid } = parsePermissions(input.permissions ?? []);
  if (invalid.length) throw validationError({ permissions: [`unknown permission(s): ${invalid.join(', ')}`] });
  if (input.scope === 'custom' && valid.length === 0) {
    throw validationError({ permissions: ['a custom key needs at least one permission'] });
  }
  let expiresAt: Date | null = null;
  if (input.expiresAt) {
    expiresAt = parseCalendarDateTime(input.expiresAt);
    if (!expiresAt) {
      throw validationError({ expires_at: ['must be an ISO 8601 date or date-time that exists (years 0001-9999)'] });
    }
  }
  const key = generateApiKey(Boolean(input.sandbox));
  const create = (tx: Prisma.TransactionClient) =>
    tx.apiKey.create({
      data: {
        id: newId('key'),
        workspaceId: input.workspace,
        userId: input.userId ?? null,
        name: input.name.trim(),
        prefix: displayPrefix(key),
        hash: hashApiKey(key),
        scope: input.scope as Scope,
        permissions: input.scope === 'custom' ? valid : [],
        sandbox: Boolean(input.sandbox),
        expiresAt,
      },
    });
  const row = await db.$transaction(async (tx) => {
    const created = await create(tx);
    await recordAudit(tx, {
      workspaceId: created.workspaceId,
      actor,
      resource: 'api_key',
      recordId: created.id,
      action: 'created',
      changes: diff(null, apiKeyAuditFields(created)),
    });
    return created;
  });
  return { row, key };
}

/** Revokes a key (once: a revoked key stays as it was), with its audit entry. */
export async function revokeKey(db: Db, key: ApiKey, actor: Actor | null): Promise<ApiKey> {
  if (key.revokedAt) return key;
  return db.$transaction(async (tx) => {
    const row = await tx.apiKey.update({ where: { id: key.id }, data: { revokedAt: new Date() } });
    await recordAudit(tx, {
      workspaceId: row.workspaceId,
      actor,
      resource: 'api_key',
      recordId: row.id,
      action: 'revoked',
      changes: diff(apiKeyAuditFields(key), apiKeyAuditFields(row)),
    });
    return row;
  });
}
