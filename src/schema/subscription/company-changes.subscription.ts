// companyChanged: a company's own events, and those of its contacts and deals, so that a page
// showing a company with its contacts and deals can follow every change to what it shows.
import { assertAllowed } from '../../auth/scopes.ts';
import type { PublishedEvent } from '../../events/bus.ts';
import { builder } from '../builder.ts';
import '../company/company.type.ts';
import { liveEvents, recordIn, SEQUENCE_FIELD } from './live-events.ts';

const RECORDS = ['contact', 'deal'];

/**
 * The companies an event is about. A company event: the company, and for a merge the one merged
 * away too. A contact or deal event: the company the record belongs to after the change, the one
 * it left (`previous.company_id`), and for a contact merge the merged-away contact's company.
 */
export function companiesOf(e: PublishedEvent): string[] {
  const [kind] = e.event.split('.');
  if (kind === 'company') return [e.entityId, recordIn(e, 'merged_company')?.id].filter(isId);
  if (!RECORDS.includes(kind)) return [];
  return [
    recordIn(e, kind)?.company_id,
    recordIn(e, 'previous')?.company_id,
    recordIn(e, 'merged_contact')?.company_id,
  ].filter(isId);
}

const isId = (v: unknown): v is string => typeof v === 'string' && v !== '';

const CompanyChangeType = builder.objectRef<PublishedEvent>('CompanyChange').implement({
  description: 'A company.* event as it happens, or a contact.* / deal.* event of one of its contacts or deals.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries carry' }),
    event: t.exposeString('event', {
      description:
        'The event name, e.g. company.updated or contact.created ' +
        '(a string: GraphQL enum values cannot hold dots; docs/webhooks.md lists the names)',
    }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the event happened' }),
    company_id: t.id({
      description:
        'The company the event is about: for a company.* event, that company (the surviving one of a merge); ' +
        'for a contact or deal event, the company it belongs to after the change (the one it left, if none)',
      // The subscription passes only events about at least one company.
      resolve: (e) => companiesOf(e)[0],
    }),
    record_id: t.exposeID('entityId', {
      description: 'The record the event is about: the company, or the contact or deal',
    }),
    sequence: t.exposeInt('sequence', {
      nullable: false,
      description: `${SEQUENCE_FIELD} The record is the one record_id names.`,
    }),
    data: t.field({
      type: 'EventData',
      nullable: true,
      description:
        "The event's data, { company, ... } or { contact, ... } / { deal, ... }, as at the change; " +
        'null when the key may not read what it holds',
      resolve: (e) => e.data,
    }),
    company: t.prismaField({
      type: 'Company',
      nullable: true,
      description: 'The company company_id names, now; null once deleted or merged away',
      resolve: (query, e, _args, ctx) =>
        ctx.prisma.company.findFirst({
          ...query,
          where: { id: companiesOf(e)[0], workspaceId: ctx.caller.workspaceId },
        }),
    }),
  }),
});

builder.subscriptionField('companyChanged', (t) =>
  t.field({
    type: CompanyChangeType,
    description:
      'company.* events, and the contact.* and deal.* events of contacts and deals that belong to a company ' +
      '(or joined or left it), optionally of one company; a merge is also about the company merged away. ' +
      'Needs companies:read; contact and deal events also need contacts:read / deals:read.',
    args: { id: t.arg.id({ required: false }) },
    subscribe: (_root, { id }, ctx) => {
      assertAllowed(ctx.caller, 'companies', 'read');
      return liveEvents(ctx, (e) => {
        const about = companiesOf(e);
        return id ? about.includes(String(id)) : about.length > 0;
      });
    },
    resolve: (e) => e,
  }),
);
