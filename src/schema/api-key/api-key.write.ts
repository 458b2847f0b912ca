// Storing a new API key, for the createApiKey mutation and the admin CLI alike: scope, permissions
// and expiry are checked; only the key's hash and display prefix are kept.
import type { Db } from '../../db/client.ts';
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

/** Checks and stores a new key: its row, and the key itself (never stored). */
export async function insertApiKey(db: Db, input: KeyInput) {
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
  const row = await db.apiKey.create({
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
  return { row, key };
}
