// Account administration shared by the CLI and the first start: workspaces (each with its
// sandbox twin and default pipeline), users, API keys and custom field definitions. Keys and
// definitions are checked and stored by the schema's writes, the same ones its mutations use.
import type { Prisma } from '../db/generated/client/client.ts';
import type { Db } from '../db/client.ts';
import { withRefusals } from '../db/transaction.ts';
import { normalizeEmail } from '../auth/email.ts';
import { hashPassword } from '../auth/passwords.ts';
import { SessionStore } from '../auth/sessions.ts';
import { PLANS } from '../auth/rate-limit.ts';
import { AppError, validationError } from '../errors.ts';
import { newId } from '../ids.ts';
import { CLI_ACTOR, diff, recordAudit, SETUP_ACTOR } from '../events/audit.ts';
import type { Actor } from '../events/outbox.ts';
import { insertApiKey, revokeKey, type KeyInput } from '../schema/api-key/api-key.write.ts';
import { liveWorkspace } from '../schema/common/live-workspace.ts';
import { insertCustomField, type CustomFieldInput } from '../schema/custom-field/custom-field.write.ts';
import { DEFAULT_STAGES } from '../schema/pipeline/pipeline.rules.ts';

/** The input of createApiKey, for its callers. */
export type { KeyInput };

async function createDefaultPipeline(tx: Prisma.TransactionClient, workspaceId: string) {
  const pipelineId = newId('pipe');
  await tx.pipeline.create({
    data: { id: pipelineId, workspaceId, name: 'Sales Pipeline', isDefault: true, position: 1 },
  });
  await tx.stage.createMany({
    data: DEFAULT_STAGES.map((s, i) => ({
      id: newId('stg'),
      workspaceId,
      pipelineId,
      name: s.name,
      probability: s.probability,
      position: i + 1,
    })),
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
    const sandbox = await tx.workspace.create({
      data: { id: newId('ws'), name: `${name} (sandbox)`, plan, currency, isSandbox: true, liveId: live.id },
    });
    await createDefaultPipeline(tx, live.id);
    await createDefaultPipeline(tx, sandbox.id);
    await recordAudit(tx, {
      workspaceId: live.id,
      actor: CLI_ACTOR,
      resource: 'workspace',
      recordId: live.id,
      action: 'created',
      changes: diff(null, { name, plan, currency, sandbox_id: sandbox.id }),
    });
    return { id: live.id, name, plan, currency, sandbox_id: sandbox.id, created_at: live.createdAt.toISOString() };
  });
}

export async function createUser(db: Db, input: { workspace: string; name: string; email: string }) {
  await liveWorkspace(db, input.workspace);
  const email = normalizeEmail(input.email ?? '');
  if (!input.name?.trim()) throw validationError({ name: ['is required'] });
  if (!email || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
    throw validationError({ email: ['must be a valid email address'] });
  const taken = () => new AppError('conflict', `A user with email ${email} already exists in this workspace`);
  const user = await withRefusals({ uniqueViolation: taken }, () =>
    db.$transaction(async (tx) => {
      const created = await tx.user.create({
        data: { id: newId('usr'), workspaceId: input.workspace, name: input.name.trim(), email },
      });
      await recordAudit(tx, {
        workspaceId: created.workspaceId,
        actor: CLI_ACTOR,
        resource: 'user',
        recordId: created.id,
        action: 'created',
        changes: diff(null, { name: created.name, email: created.email, active: created.active }),
      });
      return created;
    }),
  );
  return { id: user.id, workspace_id: user.workspaceId, name: user.name, email: user.email, active: user.active };
}

/**
 * Sets the dashboard password of a person: every user row with this e-mail (one per workspace)
 * gets the same hash, so a sign-in checks one hash. Their open dashboard sessions end.
 */
/** Sets the password of the address's user in every workspace, or in `workspace` only. */
export async function setUserPassword(db: Db, input: { email: string; password: string; workspace?: string }) {
  const email = normalizeEmail(input.email ?? '');
  if (!email) throw validationError({ email: ['is required'] });
  const passwordHash = await hashPassword(input.password ?? '');
  const users = await db.user.findMany({
    where: { email, workspace: { isSandbox: false }, ...(input.workspace && { workspaceId: input.workspace }) },
    select: { id: true, workspaceId: true },
  });
  if (users.length === 0)
    throw new AppError('not_found', `No user with email ${email}${input.workspace ? ` in ${input.workspace}` : ''}`);
  const ids = users.map((u) => u.id);
  await db.$transaction(async (tx) => {
    await tx.user.updateMany({ where: { id: { in: ids } }, data: { passwordHash } });
    for (const u of users)
      await recordAudit(tx, {
        workspaceId: u.workspaceId,
        actor: CLI_ACTOR,
        resource: 'user',
        recordId: u.id,
        action: 'password_set',
        // Named, never kept.
        changes: { password: { before: null, after: null } },
      });
  });
  const sessionsEnded = await SessionStore.deleteForUsers(db, ids);
  return { email, users: users.map((u) => ({ id: u.id, workspace_id: u.workspaceId })), sessions_ended: sessionsEnded };
}

/** Creates a key and returns it in full: the only time it is ever shown. */
export async function createApiKey(db: Db, input: KeyInput, actor: Actor = CLI_ACTOR) {
  const { row, key } = await insertApiKey(db, input, actor);
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

export async function revokeApiKey(db: Db, id: string) {
  const key = await db.apiKey.findUnique({ where: { id } });
  if (!key) throw new AppError('not_found', `API key ${id} not found`);
  const row = await revokeKey(db, key, CLI_ACTOR);
  return { id: row.id, revoked: true, revoked_at: row.revokedAt!.toISOString() };
}

export async function createCustomField(db: Db, input: CustomFieldInput) {
  const row = await insertCustomField(db, input, CLI_ACTOR);
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    key: row.key,
    type: row.type,
    options: row.options,
    label: row.label,
  };
}

/** First start: one workspace, one user and a full-access key, when the database has none. */
export async function ensureDefaultWorkspace(db: Db) {
  if ((await db.workspace.count()) > 0) return null;
  const ws = await createWorkspace(db, { name: 'Default workspace', plan: 'standard' });
  const user = await createUser(db, { workspace: ws.id, name: 'Admin', email: 'admin@example.com' });
  const key = await createApiKey(
    db,
    {
      workspace: ws.id,
      name: 'Default full-access key',
      scope: 'full',
      userId: user.id,
    },
    SETUP_ACTOR,
  );
  return { workspace: ws, user, key };
}
