// The audit log as an API (GET /v1/audit-log, query auditLog): every write of the workspace, oldest
// first, with who made it, through which surface, request and address, and the fields it changed.
// Full-access callers only: it names every key and user and what each of them did.
import type { AuditEntry, Prisma } from '../../db/generated/client/client.ts';
import { AppError } from '../../errors.ts';
import { VIAS } from '../../events/origin.ts';
import type { Actor } from '../../events/outbox.ts';
import { builder } from '../builder.ts';
import { ActorType } from '../common/actor.type.ts';
import { pageType } from '../common/page.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { sortArg } from '../common/sort.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { auditLogFilter } from './audit-log.inputs.ts';

const AuditVia = builder.enumType('AuditVia', {
  description: 'The surface a write came through.',
  values: Object.fromEntries(VIAS.map((v) => [v, { value: v }])) as Record<(typeof VIAS)[number], { value: string }>,
});

export const AuditEntryType = builder.objectRef<AuditEntry>('AuditEntry').implement({
  description: 'One write of the audit log.',
  fields: (t) => ({
    id: t.exposeID('id'),
    occurred_at: t.expose('occurredAt', { type: 'DateTime', description: 'When the write committed its change' }),
    actor: t.field({
      type: ActorType,
      description: 'Who made it: an API key, a dashboard user, or the system (the admin CLI, a scheduler)',
      resolve: (e) => e.actor as unknown as Actor,
    }),
    via: t.field({ type: AuditVia, resolve: (e) => e.via as (typeof VIAS)[number] }),
    request_id: t.exposeString('requestId', {
      nullable: true,
      description: 'The request (X-Request-Id) that made it; null for the CLI and the system',
    }),
    ip: t.exposeString('ip', { nullable: true, description: "The client's address; null for the CLI and the system" }),
    resource: t.exposeString('resource', { description: 'The kind of record written: contact, api_key…' }),
    record_id: t.exposeID('recordId'),
    action: t.exposeString('action', { description: 'created, updated, deleted, merged, revoked…' }),
    changes: t.field({
      type: 'AuditChanges',
      description: 'Each field the write changed, before and after; a secret is named, its value never kept',
      resolve: (e) => e.changes as object,
    }),
    event_id: t.exposeID('eventId', {
      nullable: true,
      description:
        'The event written with the change (GET /v1/events); null for writes that record no event (keys, ' +
        'webhooks, custom fields, users, settings)',
    }),
  }),
});

const AuditLogPage = pageType('AuditLogPage', AuditEntryType);
const AuditLogFilter = zodInput('AuditLogFilter', auditLogFilter, 'Conditions every listed write meets.');

/** Oldest first, in the order the writes were recorded. */
const AUDIT_LOG_SORT: SortSpec = { default: 'occurred_at', fields: { occurred_at: { field: 'seq', type: 'bigint' } } };

builder.queryField('auditLog', (t) =>
  t.field({
    type: AuditLogPage,
    description:
      'Every write of the workspace (REST, GraphQL, dashboard, admin CLI), oldest first, with who made it, from ' +
      'which request and address, and the fields it changed. Full-access keys and dashboard users only.',
    args: {
      filter: t.arg({ type: AuditLogFilter }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 25).' }),
      cursor: t.arg.string({ description: 'next_cursor of the previous page.' }),
      sort: sortArg(t, 'AuditLogSort', AUDIT_LOG_SORT),
    },
    resolve: async (_root, args, ctx) => {
      if (ctx.caller.scope !== 'full')
        throw new AppError('forbidden', 'Only a full-access key or a dashboard user may read the audit log');
      const f = parseInput(auditLogFilter, args.filter ?? {});
      const where: Prisma.AuditEntryWhereInput = {
        workspaceId: ctx.caller.workspaceId,
        ...(f.actor_id ? { actor: { path: ['id'], equals: f.actor_id } } : {}),
        ...(f.resource ? { resource: f.resource } : {}),
        ...(f.record_id ? { recordId: f.record_id } : {}),
        ...(f.since || f.until
          ? { occurredAt: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lt: f.until } : {}) } }
          : {}),
      };
      return findPage(args, AUDIT_LOG_SORT, {
        list: 'audit_log',
        where: where as Record<string, unknown>,
        fetch: (q) => ctx.prisma.auditEntry.findMany(q as Prisma.AuditEntryFindManyArgs),
        count: (w) => ctx.prisma.auditEntry.count({ where: w }),
      });
    },
  }),
);
