// What an export reads for each resource: the permission it needs, the list's own filter (the same
// `where` the list resolver builds, so an export holds exactly the records the list pages through),
// and each record in the shape `GET /v1/<resource>/:id` answers, as events carry it.
//
// Pages are found by Prisma (the filter language compiles to Prisma's `where`) selecting only ids,
// which is cheap; the records of a page are read as one JSON value by plain SQL, because Prisma
// mapping a thousand full rows costs several times what reading them does (docs/performance.md).
import type { Resource } from '../../auth/resources.ts';
import { allows, assertAllowed } from '../../auth/scopes.ts';
import { Prisma } from '../../db/generated/client/client.ts';
import { activityRecord } from '../../records/activity.ts';
import { companyRecord } from '../../records/company.ts';
import { contactRecord } from '../../records/contact.ts';
import { dealRecord } from '../../records/deal.ts';
import { loadTaskViews, taskRecord } from '../../records/task.ts';
import { activityWhere } from '../activity/activity.queries.ts';
import { companyWhere } from '../company/company.queries.ts';
import { contactWhere } from '../contact/contact.queries.ts';
import { dealWhere } from '../deal/deal.queries.ts';
import { TASK_WHERE } from '../common/where/resources.ts';
import { whereArg } from '../common/where/where.ts';
import { parseInput } from '../common/validation.ts';
import { taskFilter } from '../task/task.inputs.ts';
import { taskWhereSql } from '../task/task.list.ts';
import type { Context } from '../context.ts';

export const EXPORT_RESOURCES = ['contacts', 'companies', 'deals', 'tasks', 'activities'] as const;
export type ExportResource = (typeof EXPORT_RESOURCES)[number];

/** A record's place in the export's order: oldest first, ties by id. */
export interface Position {
  id: string;
  createdAt: Date;
}

export type Tx = Prisma.TransactionClient;
export type ExportRecord = Record<string, unknown>;

export interface ExportSource<W = unknown> {
  resource: Resource & ExportResource;
  /** The record's fields, in its order: the CSV header (export.test checks them against real records). */
  fields: readonly string[];
  /** Whether records hold custom fields (written as one column per defined field in CSV). */
  customFields: boolean;
  /** The list's filter for the caller, from the list's own variables (`filter`, `where`); refuses bad input. */
  select(ctx: Context, filter: unknown, where: unknown): Promise<W>;
  /** The next `take` positions after `after`, in order. */
  positions(tx: Tx, where: W, after: Position | null, take: number): Promise<Position[]>;
  /** The records of these ids, in the same order, as the caller may read them. */
  records(tx: Tx, ids: string[], ctx: Context): Promise<ExportRecord[]>;
}

const ORDER = [{ createdAt: 'asc' }, { id: 'asc' }] as const;
const after = (p: Position | null) =>
  p ? [{ OR: [{ createdAt: { gt: p.createdAt } }, { createdAt: p.createdAt, id: { gt: p.id } }] }] : [];

/** Positions by Prisma: the filter language's full `where`, relations and custom fields included. */
function prismaPositions(model: 'contact' | 'company' | 'deal' | 'activity') {
  return (tx: Tx, where: unknown, from: Position | null, take: number): Promise<Position[]> =>
    (tx[model] as unknown as { findMany(args: unknown): Promise<Position[]> }).findMany({
      where: { AND: [where, ...after(from)] },
      select: { id: true, createdAt: true },
      orderBy: ORDER,
      take,
    });
}

/**
 * `column AS "prismaField"` for each column, so a row read as JSON is shaped as Prisma would
 * return it (dates aside) and the record functions of src/records serve it unchanged.
 */
const camel = (column: string) => column.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
const aliased = (table: string, columns: string[]) =>
  columns
    .map((c) => {
      const [column, field = camel(c)] = c.split(':');
      return `${table}.${column} AS "${field}"`;
    })
    .join(', ');

/** The records of `rows` in the order of `ids` (a read by id returns them in any order); ids gone are left out. */
function inOrder<R extends { id: string }>(ids: string[], rows: R[], record: (row: R) => ExportRecord) {
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => {
    const row = byId.get(id);
    return row ? [record(row)] : [];
  });
}

/** Reads the rows of `ids` as one JSON value and revives what JSON cannot carry; in the ids' order. */
function jsonRecords<R>(
  query: string,
  revive: (row: Record<string, unknown>) => R,
  record: (row: R) => ExportRecord,
): (tx: Tx, ids: string[]) => Promise<ExportRecord[]> {
  const sql = `SELECT coalesce(json_agg(r), '[]')::text AS rows FROM (${query}) r`;
  return async (tx, ids) => {
    const [{ rows }] = await tx.$queryRawUnsafe<{ rows: string }[]>(sql, ids);
    return inOrder(ids, JSON.parse(rows) as { id: string }[], (row) => record(revive(row)));
  };
}

const date = (v: unknown) => (v === null || v === undefined ? null : new Date(v as string));
const dated =
  <R>(...fields: string[]) =>
  (row: Record<string, unknown>): R => {
    for (const f of fields) row[f] = date(row[f]);
    return row as R;
  };

const CONTACT_COLUMNS = [
  'id',
  'first_name',
  'last_name',
  'email',
  'phone',
  'company',
  'company_id',
  'job_title',
  'status',
  'source',
  'tags',
  'assigned_to:assignedToId',
  'engagement_score',
  'custom_fields',
  'address',
  'external_id',
  'version',
  'created_at',
  'updated_at',
];
const COMPANY_COLUMNS = [
  'id',
  'name',
  'domain',
  'industry',
  'size',
  'phone',
  'address',
  'tags',
  'owner_id',
  'custom_fields',
  'external_id',
  'version',
  'created_at',
  'updated_at',
];
const DEAL_COLUMNS = [
  'id',
  'title',
  'currency',
  'pipeline_id',
  'stage_id',
  'probability',
  'owner_id',
  'contact_id',
  'company_id',
  'expected_close_date',
  'status',
  'won_reason',
  'lost_reason',
  'competitor',
  'tags',
  'custom_fields',
  'closed_at',
  'external_id',
  'version',
  'created_at',
  'updated_at',
];

const ids = 'id = ANY($1::text[])';

/** A record's fields where its record function names them as its columns, in the same order. */
const fieldsOf = (columns: string[]) => columns.map((c) => c.split(':')[0]);

const contacts: ExportSource = {
  resource: 'contacts',
  fields: fieldsOf(CONTACT_COLUMNS),
  customFields: true,
  select: (ctx, filter, where) => contactWhere(ctx, filter, where),
  positions: prismaPositions('contact'),
  records: jsonRecords(
    `SELECT ${aliased('c', CONTACT_COLUMNS)} FROM contacts c WHERE c.${ids}`,
    dated('createdAt', 'updatedAt'),
    contactRecord,
  ),
};

const companies: ExportSource = {
  resource: 'companies',
  fields: fieldsOf(COMPANY_COLUMNS),
  customFields: true,
  select: (ctx, filter, where) => companyWhere(ctx, filter, where),
  positions: prismaPositions('company'),
  records: jsonRecords(
    `SELECT ${aliased('c', COMPANY_COLUMNS)} FROM companies c WHERE c.${ids}`,
    dated('createdAt', 'updatedAt'),
    companyRecord,
  ),
};

const deals: ExportSource = {
  resource: 'deals',
  fields: [
    'id',
    'title',
    'value',
    'currency',
    'pipeline_id',
    'stage_id',
    'stage_name',
    'probability',
    'owner_id',
    'contact_id',
    'company_id',
    'expected_close_date',
    'status',
    'won_reason',
    'lost_reason',
    'competitor',
    'tags',
    'custom_fields',
    'closed_at',
    'external_id',
    'version',
    'created_at',
    'updated_at',
  ],
  customFields: true,
  select: (ctx, filter, where) => dealWhere(ctx, filter, where),
  positions: prismaPositions('deal'),
  records: jsonRecords(
    // The value as text, so no digit of a numeric is lost on the way through JSON.
    `SELECT ${aliased('d', DEAL_COLUMNS)}, d.value::text AS "value", json_build_object('name', s.name) AS "stage"
     FROM deals d JOIN stages s ON s.id = d.stage_id WHERE d.${ids}`,
    (row) => {
      const deal = dated<Record<string, unknown>>('createdAt', 'updatedAt', 'closedAt', 'expectedCloseDate')(row);
      deal.value = deal.value === null ? null : new Prisma.Decimal(deal.value as string);
      return deal as unknown as Parameters<typeof dealRecord>[0];
    },
    dealRecord,
  ),
};

const activities: ExportSource = {
  resource: 'activities',
  fields: [
    'id',
    'type',
    'subject',
    'description',
    'contact_id',
    'deal_id',
    'company_id',
    'user_id',
    'duration',
    'outcome',
    'occurred_at',
    'attendees',
    'external_id',
    'version',
    'created_at',
  ],
  customFields: false,
  select: (ctx, filter, where) => activityWhere(ctx, filter, where),
  positions: prismaPositions('activity'),
  // Activities are fewer and narrower: Prisma reads them.
  records: async (tx, ids) => {
    return inOrder(ids, await tx.activity.findMany({ where: { id: { in: ids } } }), activityRecord);
  },
};

/** Tasks are listed in SQL (task.list.ts): their filter is SQL, and so is the keyset. */
const tasks: ExportSource<Prisma.Sql> = {
  resource: 'tasks',
  fields: [
    'id',
    'title',
    'description',
    'status',
    'priority',
    'type',
    'assignee_id',
    'assignee_name',
    'due_date',
    'related_to',
    'reminder',
    'completion_note',
    'completed_at',
    'created_by',
    'external_id',
    'version',
    'created_at',
    'updated_at',
  ],
  customFields: false,
  select: async (ctx, filter, where) =>
    taskWhereSql(ctx.caller.workspaceId, parseInput(taskFilter, filter ?? {}), await whereArg(ctx, TASK_WHERE, where)),
  positions: (tx, where, from, take) => tx.$queryRaw<Position[]>`
    SELECT id, created_at AS "createdAt" FROM tasks
    WHERE ${where} ${from ? Prisma.sql`AND (created_at, id) > (${from.createdAt}, ${from.id})` : Prisma.empty}
    ORDER BY created_at, id LIMIT ${take}`,
  records: async (tx, ids, ctx) => {
    const views = await loadTaskViews(tx, await tx.task.findMany({ where: { id: { in: ids } } }));
    // The related record's name is its data (a contact's or company's name, a deal's title): as on
    // the list, it is left empty for a key that may not read that kind of record (read-access.ts).
    const readable = {
      contact: allows(ctx.caller, 'contacts', 'read'),
      company: allows(ctx.caller, 'companies', 'read'),
      deal: allows(ctx.caller, 'deals', 'read'),
    };
    return inOrder(ids, views, (view) => {
      const record = taskRecord(view);
      const related = record.related_to;
      if (related && !readable[related.type as keyof typeof readable]) record.related_to = { ...related, name: null };
      return record;
    });
  },
};

export const EXPORT_SOURCES: Record<ExportResource, ExportSource> = {
  contacts,
  companies,
  deals,
  tasks: tasks as ExportSource,
  activities,
};

/** The source of a resource, once the caller may read it. */
export function exportSource(ctx: Context, resource: ExportResource): ExportSource {
  assertAllowed(ctx.caller, resource, 'read');
  return EXPORT_SOURCES[resource];
}
