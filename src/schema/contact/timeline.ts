// A contact's timeline is read from the event log that also feeds webhooks.
import { assertAllowed, readableRecordKinds } from '../../auth/scopes.ts';
import type { Event, Prisma } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { eventActorField } from '../common/actor.type.ts';
import { pageType } from '../common/page.ts';
import { findPage, type SortSpec } from '../common/pagination.ts';
import { findContact } from './contact.queries.ts';
import { sortArg } from '../common/sort.ts';

/** The parts of events' data the summaries read (src/events/catalogue/ has each event's whole shape). */
interface Data {
  changes?: string[];
  status?: string;
  previous_status?: string;
  tags?: string[];
  merged_contact?: { email?: string | null };
  deal?: { title?: string; stage_name?: string };
  role?: string | null;
  activity?: { type?: string; subject?: string | null };
  task?: { title?: string };
}

const SUMMARIES: Record<string, (d: Data) => string> = {
  'contact.created': () => 'Contact created',
  'contact.updated': (d) => `Updated ${(d.changes ?? []).join(', ')}`,
  'contact.status_changed': (d) => `Status changed from ${d.previous_status} to ${d.status}`,
  'contact.tag_added': (d) => `Tagged ${(d.tags ?? []).join(', ')}`,
  'contact.tag_removed': (d) => `Untagged ${(d.tags ?? []).join(', ')}`,
  'contact.merged': (d) => `Merged with ${d.merged_contact?.email ?? 'another contact'}`,
  'contact.deleted': () => 'Contact deleted',
  'note.created': () => 'Note added',
  'deal.created': (d) => `Deal "${d.deal?.title}" created`,
  'deal.updated': (d) => `Deal "${d.deal?.title}" updated: ${(d.changes ?? []).join(', ')}`,
  'deal.deleted': (d) => `Deal "${d.deal?.title}" deleted`,
  'deal.contact_added': (d) => `Associated with deal "${d.deal?.title}"${d.role ? ` as ${d.role}` : ''}`,
  'deal.contact_removed': (d) => `Removed from deal "${d.deal?.title}"`,
  'deal.stage_changed': (d) => `Deal "${d.deal?.title}" moved to ${d.deal?.stage_name}`,
  'deal.won': (d) => `Deal "${d.deal?.title}" won`,
  'deal.lost': (d) => `Deal "${d.deal?.title}" lost`,
  'activity.logged': (d) =>
    `${d.activity?.type ?? 'Activity'} logged${d.activity?.subject ? `: ${d.activity.subject}` : ''}`,
  'task.completed': (d) => `Task "${d.task?.title}" completed`,
};

export function summarize(event: Pick<Event, 'type' | 'data'>): string {
  const f = SUMMARIES[event.type];
  return f ? f(event.data as Data) : event.type;
}

export const TimelineEntry = builder.objectRef<Event>('TimelineEntry').implement({
  description: 'Something that happened to a contact, read from the event log that also feeds webhooks.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries of the event carry' }),
    type: t.exposeString('type', {
      description:
        'The event name, e.g. contact.status_changed ' +
        '(a string: GraphQL enum values cannot hold dots; docs/webhooks.md lists them)',
    }),
    occurred_at: t.expose('createdAt', { type: 'DateTime', description: 'When the event happened' }),
    // Both hold the record the event is about: null where the key may not read it (read-access.ts).
    summary: t.string({
      nullable: true,
      description:
        'One line for people, e.g. Status changed from lead to customer; ' +
        'null when the key may not read the record the event is about',
      resolve: summarize,
    }),
    data: t.field({
      type: 'EventData',
      nullable: true,
      description: "The event's data; null when the key may not read the record the event is about",
      resolve: (e) => e.data as object,
    }),
    actor: eventActorField(t),
  }),
});

const TimelinePage = pageType('TimelinePage', TimelineEntry);
// Events of one transaction share a timestamp; the log's sequence keeps their real order.
const TIMELINE_SORT: SortSpec = { default: '-occurred_at', fields: { occurred_at: { field: 'seq', type: 'bigint' } } };

builder.queryField('contactTimeline', (t) =>
  t.field({
    type: TimelinePage,
    description:
      'What happened to a contact, newest first: ' +
      'entries about deals, tasks and activities only for keys that may read those.',
    args: {
      contactId: t.arg.id({ required: true }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
      sort: sortArg(t, 'TimelineSort', TIMELINE_SORT),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      const contact = await findContact(ctx.prisma, ctx, String(args.contactId));
      return findPage(args, TIMELINE_SORT, {
        list: `contact_timeline:${contact.id}`,
        // Entries about records the key may not read are left out, so pages and totals stay whole.
        where: {
          contactId: contact.id,
          workspaceId: ctx.caller.workspaceId,
          entityType: { in: readableRecordKinds(ctx.caller) },
        },
        fetch: (q) => ctx.prisma.event.findMany(q as Prisma.EventFindManyArgs),
        count: (where) => ctx.prisma.event.count({ where }),
      });
    },
  }),
);
