// The fast way through a batch of contacts: every operation is decided in memory from one read
// of the records it names, then all rows and events are written in a handful of set-based
// statements (insert, update, delete, events) instead of several statements per operation. The
// answers and events are those the one-by-one writes give. A batch where two operations name the
// same record or the same email or external_id takes the one-by-one way, whose order decides.
import type { Contact } from '../../db/generated/client/client.ts';
import type { SqlQuery } from '../../db/sql.ts';
import { AppError, validationError, type ErrorDetails } from '../../errors.ts';
import { recordEvents, type NewEvent } from '../../events/outbox.ts';
import { contactCreated, contactDeleted } from '../../events/catalogue/contact.events.ts';
import { actorOf, type Context } from '../context.ts';
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';
import { applyCustomFields, droppedWarning } from '../custom-field/custom-field.rules.ts';
import { assertActiveUser } from '../user/user.rules.ts';
import type { BatchOperation } from '../batch/batch.inputs.ts';
import { dataOf, invalid, PlanOutdated, type BatchPlan, type Outcome } from '../batch/batch.run.ts';
import {
  contactCreateInput,
  contactUpdateInput,
  type ContactCreateInput,
  type ContactUpdateInput,
} from './contact.inputs.ts';
import { contactChanges, contactUpdateEvents, FIELD_MAP, newContact } from './contact.write.ts';

type Company = { id: string; name: string };

/** What one operation will do, decided in memory. */
type Step =
  | { kind: 'create'; row: Contact }
  | { kind: 'update'; before: Contact; after: Contact; events: NewEvent[] }
  | { kind: 'delete'; before: Contact }
  | { kind: 'unchanged'; id: string };

const conflict = (key: string, holder: string) =>
  new AppError('conflict', `A contact with this ${key} already exists in the workspace`, {
    [key]: ['is already taken'],
    existing_id: holder,
  } as ErrorDetails);

/** The row after an update, as the database will hold it (the trigger raises the version). */
function updated(
  before: Contact,
  input: ContactUpdateInput,
  customFields: Record<string, unknown> | null,
  linked: Company | null,
  now: Date,
): Contact {
  const after = { ...before } as Record<string, unknown>;
  for (const [api, field] of Object.entries(FIELD_MAP)) {
    const value = input[api as keyof typeof FIELD_MAP];
    if (value !== undefined) after[field] = value;
  }
  if (linked) after.company = linked.name;
  if (customFields) after.customFields = customFields;
  return { ...(after as Contact), updatedAt: now, version: before.version + 1 };
}

const CONTACT_COLUMNS = `id, workspace_id, first_name, last_name, email, phone, company, job_title, status,
  source, tags, assigned_to, engagement_score, custom_fields, address, company_id, external_id, version, created_at,
  updated_at`;

// One statement with three array parameters: a batch names up to 2,000 keys, which as Prisma's
// `in` lists would be as many parameters to send and plan. On the driver itself (db/sql.ts):
// Prisma would walk every one of up to 1,000 rows. Each key is looked up on its own, one probe of
// its unique index: written as one OR of the three lists, PostgreSQL read the whole workspace
// whenever its statistics were older than its rows (an import's table growing by a million rows),
// 270 ms a batch at 900,000 contacts. OFFSET 0 keeps each lookup a subquery of its own (LIMIT 1
// would too, but its promise of an early row favoured walking the workspace). The workspace is
// given as a sub-select, a value the planner does not know: given as a constant, a workspace
// created or filled since the last ANALYZE looked like a single row to it, and each key's lookup
// became a walk of the whole workspace (2–4 s a batch). A record found by two keys comes twice;
// planContacts' maps keep one.
const byKey = (column: string, param: string) =>
  `SELECT found.* FROM unnest(${param}::text[]) AS key(value)
    CROSS JOIN LATERAL (SELECT ${CONTACT_COLUMNS} FROM contacts
      WHERE workspace_id = (SELECT $1::text) AND ${column} = key.value OFFSET 0) AS found`;

/** The records a batch names ($1 the workspace; $2 ids, $3 e-mails, $4 external ids). Exported for its plan's test. */
export const LOOKUP_SQL = [byKey('id', '$2'), byKey('email', '$3'), byKey('external_id', '$4')].join(' UNION ALL ');

/** The batch's plan, or null when it must run one operation at a time. */
export async function planContacts(ctx: Context, operations: BatchOperation[]): Promise<BatchPlan | null> {
  const ws = ctx.caller.workspaceId;
  const data = (op: BatchOperation) => (op.data ?? {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : undefined);
  const emails = operations.map((o) => text(data(o).email)?.trim().toLowerCase());
  const externals = operations.map((o) => text(data(o).external_id)?.trim());
  // The same key twice: which operation comes first decides, so the batch goes one by one.
  const repeated = (values: (string | undefined)[]) => {
    const given = values.filter((v): v is string => Boolean(v));
    return new Set(given).size !== given.length;
  };
  const ids = operations.flatMap((o) => (o.id ? [o.id] : []));
  if (repeated(emails) || repeated(externals) || repeated(ids)) return null;

  const given = (values: (string | undefined)[]) => values.filter((v): v is string => Boolean(v));
  const found = await ctx.sql.query<ContactRow>(LOOKUP_SQL, [ws, ids, given(emails), given(externals)]);
  const rows = found.map(contactOf);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  const byExternal = new Map(rows.filter((r) => r.externalId).map((r) => [r.externalId!, r]));
  const companyIds = operations.flatMap((o) =>
    typeof data(o).company_id === 'string' ? [data(o).company_id as string] : [],
  );
  const domains = ctx.caller.linkContactsByDomain
    ? emails.flatMap((e) => (e?.includes('@') ? [e.slice(e.lastIndexOf('@') + 1)] : []))
    : [];
  const companies =
    companyIds.length || domains.length
      ? await ctx.prisma.company.findMany({
          where: { workspaceId: ws, OR: [{ id: { in: companyIds } }, { domain: { in: domains } }] },
          select: { id: true, name: true, domain: true },
        })
      : [];
  const defs = await definitionsLoader(ctx).load(ctx.caller.accountId);
  const dropped = new Set<string>();
  const now = new Date();
  const touched = new Set<string>();

  const linkedOf = (
    companyId: string | null | undefined,
    email: string | undefined,
    isNew: boolean,
  ): Company | null => {
    if (typeof companyId === 'string') {
      const found = companies.find((c) => c.id === companyId);
      if (!found)
        throw new AppError('unprocessable_entity', 'company_id does not name a company of this workspace', {
          company_id: ['unknown company'],
        });
      return found;
    }
    if (companyId === undefined && isNew && email && ctx.caller.linkContactsByDomain)
      return companies.find((c) => c.domain === email.slice(email.lastIndexOf('@') + 1)) ?? null;
    return null;
  };
  const customFieldsOf = (input: Record<string, unknown> | undefined, existing: Record<string, unknown>) => {
    if (!input) return null;
    const { values, dropped: d, errors } = applyCustomFields(defs, input, existing);
    if (Object.keys(errors).length) throw validationError(errors);
    for (const key of d) dropped.add(key);
    return values;
  };
  /** A key value the data sets that another record holds. */
  const assertFree = (email: string | undefined, external: string | null | undefined, self: string | null) => {
    const byMail = email ? byEmail.get(email) : undefined;
    if (byMail && byMail.id !== self) throw conflict('email', byMail.id);
    const byExt = external ? byExternal.get(external) : undefined;
    if (byExt && byExt.id !== self) throw conflict('external_id', byExt.id);
  };
  const create = async (op: BatchOperation): Promise<Step> => {
    const input = dataOf<ContactCreateInput>(contactCreateInput, op);
    assertFree(input.email, input.external_id, null);
    await assertActiveUser(null, ctx, input.assigned_to, 'assigned_to');
    const customFields = customFieldsOf(input.custom_fields, {}) ?? {};
    return { kind: 'create', row: newContact(ctx, input, customFields, linkedOf(input.company_id, input.email, true)) };
  };
  const update = async (before: Contact, op: BatchOperation): Promise<Step> => {
    const input = dataOf<ContactUpdateInput>(contactUpdateInput, op);
    if (input.first_name === null || input.email === null)
      throw validationError({ [input.first_name === null ? 'data.first_name' : 'data.email']: ['cannot be null'] });
    assertFree(input.email, input.external_id, before.id);
    await assertActiveUser(null, ctx, input.assigned_to, 'assigned_to');
    const linked = linkedOf(input.company_id, undefined, false);
    const customFields = customFieldsOf(input.custom_fields, before.customFields as Record<string, unknown>);
    const after = updated(before, input, customFields, linked, now);
    const changed = contactChanges(before, after, input, linked !== null);
    if (!changed.length) return { kind: 'unchanged', id: before.id };
    return { kind: 'update', before, after, events: contactUpdateEvents(ctx, before, after, changed) };
  };
  const decide = async (op: BatchOperation, index: number): Promise<Step> => {
    switch (op.op) {
      case undefined:
        throw invalid({ op: ['is required: create, update, upsert or delete'] });
      case 'create':
        return create(op);
      case 'update':
      case 'delete': {
        if (!op.id) throw invalid({ id: [`is required for ${op.op}`] });
        const before = byId.get(op.id);
        if (!before) throw new AppError('not_found', 'Contact not found');
        return op.op === 'delete' ? { kind: 'delete', before } : update(before, op);
      }
      case 'upsert': {
        const key = op.upsert_by;
        if (!key) throw invalid({ upsert_by: ['is required for upsert'] });
        const value = key === 'email' ? emails[index] : externals[index];
        if (!value) throw invalid({ [`data.${key}`]: ['is required for an upsert by it'] });
        const existing = key === 'email' ? byEmail.get(value) : byExternal.get(value);
        return existing ? update(existing, op) : create(op);
      }
    }
  };

  const steps: (Step | AppError)[] = [];
  for (const [index, op] of operations.entries()) {
    try {
      const step = await decide(op, index);
      // A record two operations reach (one by id, one by a key it holds) goes one by one too.
      const id = step.kind === 'create' ? null : step.kind === 'unchanged' ? step.id : step.before.id;
      if (id && touched.has(id)) return null;
      if (id) touched.add(id);
      steps.push(step);
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      steps.push(err);
    }
  }
  if (dropped.size) ctx.warnings.push(droppedWarning([...dropped]));

  const outcomes: Outcome[] = steps.map((s) =>
    s instanceof AppError
      ? s
      : s.kind === 'create'
        ? { status: 201, id: s.row.id, created: true }
        : { status: 200, id: s.kind === 'unchanged' ? s.id : s.before.id, created: false },
  );
  const ok = steps.filter((s): s is Step => !(s instanceof AppError));
  return { outcomes, write: (query) => writeSteps(query, ctx, ok) };
}

const json = (rows: unknown[]) => JSON.stringify(rows);

/** Every column of a contact but its search vector (read by search only). */
type ContactRow = Omit<ReturnType<typeof columns>, 'created_at' | 'updated_at'> & {
  version: number;
  created_at: Date;
  updated_at: Date;
};

/** A row read with CONTACT_COLUMNS as Prisma's Contact. */
function contactOf(r: ContactRow): Contact {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    firstName: r.first_name,
    lastName: r.last_name,
    email: r.email,
    phone: r.phone,
    company: r.company,
    jobTitle: r.job_title,
    status: r.status,
    source: r.source,
    tags: r.tags,
    assignedToId: r.assigned_to,
    engagementScore: r.engagement_score,
    customFields: r.custom_fields,
    address: r.address,
    companyId: r.company_id,
    externalId: r.external_id,
    version: r.version,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** One contact as the bulk statements read it (snake_case, as the columns). */
function columns(c: Contact) {
  return {
    id: c.id,
    workspace_id: c.workspaceId,
    first_name: c.firstName,
    last_name: c.lastName,
    email: c.email,
    phone: c.phone,
    company: c.company,
    job_title: c.jobTitle,
    status: c.status,
    source: c.source,
    tags: c.tags,
    assigned_to: c.assignedToId,
    engagement_score: c.engagementScore,
    custom_fields: c.customFields,
    address: c.address,
    external_id: c.externalId,
    company_id: c.companyId,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

const RECORD = `x(id text, workspace_id text, first_name text, last_name text, email text, phone text,
  company text, job_title text, status text, source text, tags text[], assigned_to text, engagement_score int,
  custom_fields jsonb, address jsonb, external_id text, company_id text, version int, created_at timestamptz,
  updated_at timestamptz)`;

/**
 * Writes the plan's rows and events. False, writing nothing, when a record it read changed since
 * (another writer came between): the batch then runs one by one.
 */
async function writeSteps(query: SqlQuery, ctx: Context, steps: Step[]): Promise<void> {
  const creates = steps.flatMap((s) => (s.kind === 'create' ? [columns(s.row)] : []));
  if (creates.length)
    await query(
      `INSERT INTO contacts (id, workspace_id, first_name, last_name, email, phone, company, job_title, status,
        source, tags, assigned_to, engagement_score, custom_fields, address, external_id, company_id, created_at,
        updated_at)
      SELECT id, workspace_id, first_name, last_name, email, phone, company, job_title, status, source, tags,
        assigned_to, engagement_score, custom_fields, NULLIF(address, 'null'::jsonb), external_id, company_id,
        created_at, updated_at
      FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}`,
      [json(creates)],
    );
  // Each update and delete holds only where the record is still at the version the plan read;
  // one that is not (another writer came between) undoes the whole write.
  const updates = steps.flatMap((s) =>
    s.kind === 'update' ? [{ ...columns(s.after), version: s.before.version }] : [],
  );
  if (updates.length) {
    const [{ n }] = await query<{ n: number }>(
      `WITH changed AS (
        UPDATE contacts c SET first_name = x.first_name, last_name = x.last_name, email = x.email, phone = x.phone,
          company = x.company, job_title = x.job_title, status = x.status, source = x.source, tags = x.tags,
          assigned_to = x.assigned_to, custom_fields = x.custom_fields, address = NULLIF(x.address, 'null'::jsonb),
          external_id = x.external_id, company_id = x.company_id, updated_at = x.updated_at
        FROM jsonb_to_recordset($1::jsonb) AS ${RECORD}
        WHERE c.id = x.id AND c.version = x.version
        RETURNING 1)
      SELECT count(*)::int AS n FROM changed`,
      [json(updates)],
    );
    if (n !== updates.length) throw new PlanOutdated();
  }
  const deletes = steps.flatMap((s) => (s.kind === 'delete' ? [s.before] : []));
  if (deletes.length) {
    const [{ n }] = await query<{ n: number }>(
      `WITH gone AS (
        DELETE FROM contacts c USING unnest($1::text[], $2::int[]) AS d(id, version)
        WHERE c.id = d.id AND c.version = d.version RETURNING 1)
      SELECT count(*)::int AS n FROM gone`,
      [deletes.map((c) => c.id), deletes.map((c) => c.version)],
    );
    if (n !== deletes.length) throw new PlanOutdated();
  }
  const actor = actorOf(ctx);
  const events = steps.flatMap((s): NewEvent[] => {
    switch (s.kind) {
      case 'create':
        return [{ ...contactCreated.build(s.row), workspaceId: s.row.workspaceId, contactId: s.row.id, actor }];
      case 'update':
        return s.events;
      case 'delete':
        return [
          { ...contactDeleted.build(s.before), workspaceId: s.before.workspaceId, contactId: s.before.id, actor },
        ];
      default:
        return [];
    }
  });
  await recordEvents(query, events);
}
