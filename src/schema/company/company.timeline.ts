// A company's timeline: the events of the company, of the contacts linked to it, of its deals and
// of its own notes, activities and tasks, read from the event log that also feeds webhooks. One
// statement per page, each branch on an index: events by (entity_type, entity_id) for the company
// and its deals, notes and activities (found by their company_id) and tasks (by related_to), events
// by contact_id for its contacts (found by contacts.company_id).
import { assertAllowed, readableRecordKinds } from '../../auth/scopes.ts';
import { Prisma, type Event } from '../../db/generated/client/client.ts';
import { builder } from '../builder.ts';
import { eventActorField } from '../common/actor.type.ts';
import { pageType } from '../common/page.ts';
import { keysetPage, type SortSpec } from '../common/pagination.ts';
import { sqlKeyset } from '../common/pagination.sql.ts';
import { sortArg } from '../common/sort.ts';
import { summarize } from '../contact/timeline.ts';
import { findCompany } from './company.queries.ts';

type Row = Pick<Event, 'id' | 'seq' | 'type' | 'data' | 'actor' | 'createdAt'>;

interface Data {
  changes?: string[];
  merged_company?: { name?: string };
  contact?: { first_name?: string; last_name?: string | null };
}

const contactName = (d: Data) => [d.contact?.first_name, d.contact?.last_name].filter(Boolean).join(' ');

const SUMMARIES: Record<string, (d: Data) => string> = {
  'company.created': () => 'Company created',
  'company.updated': (d) => `Updated ${(d.changes ?? []).join(', ')}`,
  'company.merged': (d) => `Merged with ${d.merged_company?.name ?? 'another company'}`,
  'company.deleted': () => 'Company deleted',
  'contact.created': (d) => `Contact ${contactName(d)} created`,
  'contact.updated': (d) => `Contact ${contactName(d)} updated: ${(d.changes ?? []).join(', ')}`,
  'contact.deleted': (d) => `Contact ${contactName(d)} deleted`,
};

const summary = (e: Row) => SUMMARIES[e.type]?.(e.data as Data) ?? summarize(e);

export const CompanyTimelineEntry = builder.objectRef<Row>('CompanyTimelineEntry').implement({
  description:
    'Something that happened to a company, one of its contacts or one of its deals, ' +
    'read from the event log that also feeds webhooks.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries of the event carry' }),
    type: t.exposeString('type', {
      description:
        'The event name, e.g. company.updated ' +
        '(a string: GraphQL enum values cannot hold dots; docs/webhooks.md lists them)',
    }),
    occurred_at: t.expose('createdAt', { type: 'DateTime', description: 'When the event happened' }),
    summary: t.string({
      nullable: true,
      description:
        'One line for people, e.g. Updated industry; null when the key may not read the record the event is about',
      resolve: summary,
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

const CompanyTimelinePage = pageType('CompanyTimelinePage', CompanyTimelineEntry);
// Events of one transaction share a timestamp; the log's sequence keeps their real order.
const TIMELINE_SORT: SortSpec = { default: '-occurred_at', fields: { occurred_at: { field: 'seq', type: 'bigint' } } };
const keyset = sqlKeyset({ seq: Prisma.sql`seq` });

builder.queryField('companyTimeline', (t) =>
  t.field({
    type: CompanyTimelinePage,
    description:
      'What happened to a company, its contacts, deals, notes, activities and tasks, newest first: entries ' +
      'about contacts, deals, tasks and activities only for keys that may read those. ' +
      'A contact counts while it is linked.',
    args: {
      companyId: t.arg.id({ required: true }),
      limit: t.arg.int(),
      cursor: t.arg.string(),
      sort: sortArg(t, 'TimelineSort', TIMELINE_SORT),
    },
    resolve: async (_root, args, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'read');
      const company = await findCompany(ctx.prisma, ctx, String(args.companyId));
      const kinds = readableRecordKinds(ctx.caller);
      // The events of the company and its records; entries the key may not read are left out,
      // so pages and totals stay whole.
      const events = Prisma.sql`(
        SELECT e.id, e.seq, e.type, e.data, e.actor, e.created_at AS "createdAt", e.entity_type
        FROM events e
        WHERE e.workspace_id = ${ctx.caller.workspaceId} AND e.id IN (
          SELECT id FROM events WHERE entity_type = 'company' AND entity_id = ${company.id}
          UNION
          SELECT ev.id FROM contacts c JOIN events ev ON ev.contact_id = c.id WHERE c.company_id = ${company.id}
          UNION
          SELECT ev.id FROM deals d JOIN events ev ON ev.entity_type = 'deal' AND ev.entity_id = d.id
          WHERE d.company_id = ${company.id}
          UNION
          SELECT ev.id FROM notes n JOIN events ev ON ev.entity_type = 'note' AND ev.entity_id = n.id
          WHERE n.company_id = ${company.id}
          UNION
          SELECT ev.id FROM activities a JOIN events ev ON ev.entity_type = 'activity' AND ev.entity_id = a.id
          WHERE a.company_id = ${company.id}
          UNION
          SELECT ev.id FROM tasks k JOIN events ev ON ev.entity_type = 'task' AND ev.entity_id = k.id
          WHERE k.workspace_id = ${ctx.caller.workspaceId} AND k.related_to_type = 'company'
            AND k.related_to_id = ${company.id}
        )
      ) t`;
      // The company's own notes are company data, readable by every key that may call this field.
      const companyNote = Prisma.sql`(entity_type = 'note' AND data->'note'->>'company_id' IS NOT NULL)`;
      const readable = kinds.length
        ? Prisma.sql`(entity_type IN (${Prisma.join(kinds)}) OR ${companyNote})`
        : companyNote;
      return keysetPage(keyset, args, TIMELINE_SORT, {
        list: `company_timeline:${company.id}`,
        where: readable,
        fetch: ({ where, orderBy, take }) =>
          ctx.prisma.$queryRaw<Row[]>`
            SELECT id, seq, type, data, actor, "createdAt" FROM ${events}
            WHERE ${where} ORDER BY ${orderBy} LIMIT ${take}`,
        count: async (where) => {
          const [{ n }] = await ctx.prisma.$queryRaw<{ n: number }[]>`
            SELECT count(*)::int AS n FROM ${events} WHERE ${where}`;
          return n;
        },
      });
    },
  }),
);
