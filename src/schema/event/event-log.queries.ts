// The event log as an API (GET /v1/events, query eventLog): every event webhooks may deliver, in
// the order the log holds them, with the same ids, names and data deliveries carry. An integration
// that fell behind pages through what it missed; the timeline-only entries stay on timelines.
import { readableRecordKinds } from '../../auth/scopes.ts';
import type { Event, Prisma } from '../../db/generated/client/client.ts';
import { EMITTED_EVENTS } from '../../events/names.ts';
import { builder } from '../builder.ts';
import { eventActorField } from '../common/actor.type.ts';
import { EventResource } from '../common/enums.ts';
import { pageType } from '../common/page.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { sortArg } from '../common/sort.ts';
import { parseInput } from '../common/validation.ts';
import { zodInput } from '../common/zod-input.ts';
import { EVENT_RESOURCES, eventLogFilter, type EventResource as EventResourceName } from './event-log.inputs.ts';

const SEQUENCE =
  '1, 2, 3… per record in the order its changes committed; a receiver keeps the highest it has seen ' +
  'per record and ignores older ones';

export const LoggedEvent = builder.objectRef<Event>('LoggedEvent').implement({
  description: 'One event of the log, as webhook deliveries carry it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries of the event carry' }),
    type: t.exposeString('type', {
      description: 'The event name, e.g. deal.won (a string: GraphQL enum values cannot hold dots)',
    }),
    resource: t.field({
      type: EventResource,
      description: 'The kind of record the event is about',
      resolve: (e) => e.entityType as EventResourceName,
    }),
    record_id: t.exposeID('entityId', { description: 'The record the event is about' }),
    sequence: t.exposeInt('sequence', { description: SEQUENCE }),
    occurred_at: t.expose('createdAt', { type: 'DateTime', description: 'When the change happened' }),
    data: t.field({
      type: 'EventData',
      nullable: true,
      description: "The event's data, as deliveries carry it; null when the key may not read it",
      resolve: (e) => e.data as object,
    }),
    actor: eventActorField(t),
  }),
});

const EventLogPage = pageType('EventLogPage', LoggedEvent);

const EventLogFilter = zodInput('EventLogFilter', eventLogFilter, 'Conditions every listed event meets.');

/** Oldest first: the order to catch up in. The log's sequence orders events of one transaction. */
const EVENT_LOG_SORT: SortSpec = { default: 'occurred_at', fields: { occurred_at: { field: 'seq', type: 'bigint' } } };

builder.queryField('eventLog', (t) =>
  t.field({
    type: EventLogPage,
    description:
      'The events of the workspace that webhooks may deliver, oldest first. Any key may call it; events about ' +
      'kinds of record the key may not read are left out, with a warning. Ids are those deliveries carry.',
    args: {
      filter: t.arg({ type: EventLogFilter }),
      limit: t.arg.int({ description: 'Page size, 1 to 100 (default 25).' }),
      cursor: t.arg.string({ description: 'next_cursor of the previous page.' }),
      sort: sortArg(t, 'EventLogSort', EVENT_LOG_SORT),
    },
    resolve: async (_root, args, ctx) => {
      const f = parseInput(eventLogFilter, args.filter ?? {});
      // Any key may read the log: events about records it may not read are left out, and a page
      // that leaves some out says so (a filter on such a kind answers an empty page, not a 403).
      const readable = readableRecordKinds(ctx.caller);
      const hidden = EVENT_RESOURCES.filter((k) => !readable.includes(k) && (!f.resource || f.resource === k));
      if (hidden.length)
        ctx.warnings.push(`This API key may not read the records of ${hidden.join(', ')} events: they are left out`);
      const where: Prisma.EventWhereInput = {
        workspaceId: ctx.caller.workspaceId,
        entityType: { in: f.resource ? readable.filter((k) => k === f.resource) : readable },
        type: { in: f.type ?? [...EMITTED_EVENTS] },
        ...(f.record_id ? { entityId: f.record_id } : {}),
        ...(f.since || f.until
          ? { createdAt: { ...(f.since ? { gte: f.since } : {}), ...(f.until ? { lt: f.until } : {}) } }
          : {}),
      };
      return findPage(args, EVENT_LOG_SORT, {
        list: 'event_log',
        where: where as Record<string, unknown>,
        fetch: (q) => ctx.prisma.event.findMany(q as Prisma.EventFindManyArgs),
        count: (w) => ctx.prisma.event.count({ where: w }),
      });
    },
  }),
);
