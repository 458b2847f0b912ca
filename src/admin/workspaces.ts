// Account administration shared by the CLI and the first start: workspaces (each with its
// sandbox twin and default pipeline), users, API keys and custom field definitions.
import type { Prisma } from '../db/generated/client/client.ts';
import type { Db } from '../db/client.ts';
import { transaction, withRefusals } from '../db/transaction.ts';
import { lockCap } from '../db/locks.ts';
import { displayPrefix, generateApiKey, hashApiKey } from '../auth/keys.ts';
import { parsePermissions, SCOPES, type Scope } from '../auth/scopes.ts';
import { normalizeEmail } from '../auth/email.ts';
import { hashPassword } from '../auth/passwords.ts';
import { SessionStore } from '../auth/sessions.ts';
import { PLANS } from '../auth/rate-limit.ts';
import { AppError, validationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { parseCalendarDateTime } from '../schema/common/dates.ts';
import { CUSTOM_FIELD_TYPES } from '../schema/custom-field/custom-field.rules.ts';
import { DEFAULT_STAGES } from '../schema/pipeline/pipeline.rules.ts';


async function createDefaultPipeline(tx: Prisma.TransactionClient, workspaceId: string) {
  const pipelineId = newId('pipe');
  await tx.pipeline.create({ data: { id: pipelineId, workspaceId, name: 'Sales Pipeline', isDefault: true, position: 1 } });
  await tx.stage.createMany({
    data: DEFAULT_STAGES.map((s, i) => ({ id: newId('stg'), workspaceId, pipelineId, name: s.name, probability: s.probability, position: i + 1 })),
  });
}

export async function createWorkspace(db: Db, input: { name: string; plan?: string; currency?: string }) {
  const name = input.name?.trim();
  if (!name) throw validationError({ name: ['is required'] });
  const plan = input.plan ?? 'standard';
  if (!PLANS.includes(plan)) throw validationError({ plan: [`must be one of ${PLANS.join(', ')}`] });
  const currency = (input.currency ?? 'USD').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) throw validationError({ currency: ['must be an ISO 4217 code'] });
  return db.$transaction(async (tx) => {
    const live = await tx.workspace.create({ data: { id: newId('ws'), name, plan, currency } });
    const sandbox = await tx.workspace.create({ data: { id: newId('ws'), name: `${name} (sandbox)`, plan, currency, isSandbox: true, liveId: live.id } });
    await createDefaultPipeline(tx, live.id);
    await createDefaultPipeline(tx, sandbox.id);
    return { id: live.id, name, plan, currency, sandbox_id: sandbox.id, created_at: live.createdAt.toISOString() };
  });
}

async function liveWorkspace(db: Db, id: string) {
  const ws = await db.workspace.findFirst({ where: { id, isSandbox: false } });
  if (!ws) throw new AppError('not_found', `Workspace ${id} not found`);
  return ws;
}

export async function createUser(db: Db, input: { workspace: string; name: string; email: string }) {
  await liveWorkspace(db, input.workspace);
  const email = normalizeEmail(input.email ?? '');
  if (!input.name?.trim()) throw validationError({ name: ['is required'] });
  if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw validationError({ email: ['must be a valid email address'] });
  const taken = () => new AppError('conflict', `A user with email ${email} already exists in this workspace`);
  const user = await withRefusals({ uniqueViolation: taken }, () =>
    db.user.create({ data: { id: newId('usr'), workspaceId: input.workspace, name: input.name.trim(), email } }),
  );
  return { id: user.id, workspace_id: user.workspaceId, name: user.name, email: user.email, active: user.active };
}

/**
 * Sets the dashboard password of a person: every user row with this e-mail (one per workspace)
 * gets the same hash, so a sign-in checks one hash. Their open dashboard sessions end.
 */
export async function setUserPassword(db: Db, input: { email: string; password: string }) {
  const email = normalizeEmail(input.email ?? '');
  if (!email) throw validationError({ email: ['is required'] });
  const passwordHash = await hashPassword(input.password ?? '');
  const users = await db.user.findMany({ where: { email, workspace: { isSandbox: false } }, select: { id: true, workspaceId: true } });
  if (users.length === 0) throw new AppError('not_found', `No user with email ${email}`);
  const ids = users.map((u) => u.id);
  await db.user.updateMany({ where: { id: { in: ids } }, data: { passwordHash } });
  const sessionsEnded = await SessionStore.deleteForUsers(db, ids);
  return { email, users: users.map((u) => ({ id: u.id, workspace_id: u.workspaceId })), sessions_ended: sessionsEnded };
}

export interface KeyInput {
  workspace: string;
  name: string;
  scope: string;
  permissions?: string[];
  sandbox?: boolean;
  expiresAt?: string;
  userId?: string;
}

/** Creates a key and returns it in full: the only time it is ever shown. */
export async function createApiKey(db: Db, input: KeyInput) {
  const { row, key } = await insertApiKey(db, input);
  return {
    id: row.id,
    key,
    name: row.name,
    prefix: row.prefix,
    scope: row.scope,
    permissions: row.permissions,
    sandbox: row.sandbox,
    workspace_id: row.workspaceId,
    expires_at: row.expiresAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** Checks and stores a new key: its row, and the key itself (never stored). */
export async function insertApiKey(db: Db, input: KeyInput) {
  await liveWorkspace(db, input.workspace);
  if (!input.name?.trim()) throw validationError({ name: ['is required'] });
  if (!(SCOPES as readonly string[]).includes(input.scope)) throw validationError({ scope: [`must be one of ${SCOPES.join(', ')}`] });
  const { valid, invalid } = parsePermissions(input.permissions ?? []);
  if (invalid.length) throw validationError({ permissions: [`unknown permission(s): ${invalid.join(', ')}`] });
  if (input.scope === 'custom' && valid.length === 0) throw validationError({ permissions: ['a custom key needs at least one permission'] });
  let expiresAt: Date | null = null;
  if (input.expiresAt) {
    expiresAt = parseCalendarDateTime(input.expiresAt);
    if (!expiresAt) throw validationError({ expires_at: ['must be an ISO 8601 date or date-time that exists (years 0001-9999)'] });
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

export async function revokeApiKey(db: Db, id: string) {
  const key = await db.apiKey.findUnique({ where: { id } });
  if (!key) throw new AppError('not_found', `API key ${id} not found`);
  const row = key.revokedAt ? key : await db.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
  return { id: row.id, revoked: true, revoked_at: row.revokedAt!.toISOString() };
}

export interface CustomFieldInput {
  workspace: string;
  key: string;
  type: string;
  options?: string[];
  label?: string;
}

export async function createCustomField(db: Db, input: CustomFieldInput) {
  const row = await insertCustomField(db, input);
  return { id: row.id, workspace_id: row.workspaceId, key: row.key, type: row.type, options: row.options, label: row.label };
}

/** Every contact and deal write checks values against all definitions: keep the list short. */
export const MAX_CUSTOM_FIELDS = 100;

/** Checks and stores a custom field definition of a live workspace. */
export async function insertCustomField(db: Db, input: CustomFieldInput) {
  await liveWorkspace(db, input.workspace);
  if (!input.key || !/^[A-Za-z][A-Za-z0-9_]{0,63}$/.test(input.key)) {
    throw validationError({ key: ['must start with a letter and hold only letters, digits and _ (at most 64)'] });
  }
  if (!(CUSTOM_FIELD_TYPES as readonly string[]).includes(input.type)) throw validationError({ type: [`must be one of ${CUSTOM_FIELD_TYPES.join(', ')}`] });
  const options = (input.options ?? []).map((o) => o.trim()).filter(Boolean);
  if (input.type === 'select' && options.length === 0) throw validationError({ options: ['a select field needs options'] });
  const taken = () => new AppError('conflict', `Custom field ${input.key} already exists`);
  // Counted and created under the workspace's lock, so parallel creates cannot pass the cap together.
  return transaction(db, async (tx) => {
    await lockCap(tx, 'custom_field_definitions', input.workspace);
    const count = await tx.customFieldDefinition.count({ where: { workspaceId: input.workspace } });
    if (count >= MAX_CUSTOM_FIELDS) {
      const message = `A workspace has at most ${MAX_CUSTOM_FIELDS} custom fields; remove one first`;
      throw new AppError('unprocessable_entity', message);
    }
    const { workspace: workspaceId, key, type, label } = input;
    const id = newId('cf');
    return tx.customFieldDefinition.create({ data: { id, workspaceId, key, type, options, label: label ?? null } });
  }, { uniqueViolation: taken });
}

/** First start: one workspace, one user and a full-access key, when the database has none. */
export async function ensureDefaultWorkspace(db: Db) {
  if ((await db.workspace.count()) > 0) return null;
  const ws = await createWorkspace(db, { name: 'Default workspace', plan: 'standard' });
  const user = await createUser(db, { workspace: ws.id, name: 'Admin', email: 'admin@example.com' });
  const key = await createApiKey(db, { workspace: ws.id, name: 'Default full-access key', scope: 'full', userId: user.id });
  return { workspace: ws, user, key };
}
