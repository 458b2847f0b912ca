// Typed change feeds: dealChanged and contactChanged. `data` is the record as the event
// wrote it; `deal` / `contact` is the record as it is now (null once deleted).
import { assertAllowed } from '../../auth/scopes.ts';
import type { PublishedEvent } from '../../events/bus.ts';
import { builder } from '../builder.ts';
import '../contact/contact.type.ts';
import '../deal/deal.type.ts';
import { liveEvents, recordIn, SEQUENCE_FIELD } from './live-events.ts';

const EVENT_NAME = '(a string: GraphQL enum values cannot hold dots; docs/webhooks.md lists the names)';

const DealChangeType = builder.objectRef<PublishedEvent>('DealChange').implement({
  description: 'A deal.* event as it happens, with the deal as it is now.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries carry' }),
    event: t.exposeString('event', { description: `The event name, e.g. deal.stage_changed ${EVENT_NAME}` }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the event happened' }),
    deal_id: t.exposeID('entityId'),
    sequence: t.exposeInt('sequence', { nullable: false, description: SEQUENCE_FIELD }),
    data: t.field({
      type: 'EventData',
      description: "The event's data, { deal, ... }, as it was at the time of the change",
      resolve: (e) => e.data,
    }),
    deal: t.prismaField({
      type: 'Deal',
      nullable: true,
      description: 'The deal now; null once deleted',
      resolve: (query, e, _args, ctx) =>
        ctx.prisma.deal.findFirst({ ...query, where: { id: e.entityId, workspaceId: ctx.caller.workspaceId } }),
    }),
  }),
});

const ContactChangeType = builder.objectRef<PublishedEvent>('ContactChange').implement({
  description: 'A contact.* event as it happens, with the contact as it is now.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries carry' }),
    event: t.exposeString('event', { description: `The event name, e.g. contact.updated ${EVENT_NAME}` }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the event happened' }),
    contact_id: t.exposeID('entityId'),
    sequence: t.exposeInt('sequence', { nullable: false, description: SEQUENCE_FIELD }),
    data: t.field({
      type: 'EventData',
      description: "The event's data, { contact, ... }, as it was at the time of the change",
      resolve: (e) => e.data,
    }),
    contact: t.prismaField({
      type: 'Contact',
      nullable: true,
      description: 'The contact now; null once deleted or merged away',
      resolve: (query, e, _args, ctx) =>
        ctx.prisma.contact.findFirst({ ...query, where: { id: e.entityId, workspaceId: ctx.caller.workspaceId } }),
    }),
  }),
});

builder.subscriptionField('dealChanged', (t) =>
  t.field({
    type: DealChangeType,
    description: 'deal.* events, optionally of one pipeline. Needs deals:read.',
    args: { pipelineId: t.arg.id({ required: false }) },
    subscribe: (_root, { pipelineId }, ctx) => {
      assertAllowed(ctx.caller, 'deals', 'read');
      return liveEvents(
        ctx,
        (e) => e.event.startsWith('deal.') && (!pipelineId || recordIn(e, 'deal')?.pipeline_id === String(pipelineId)),
      );
    },
    resolve: (e) => e,
  }),
);

/** The contact an event is about; a merge is also about the contact merged away. */
const concerns = (e: PublishedEvent, id: string) => e.entityId === id || recordIn(e, 'merged_contact')?.id === id;

builder.subscriptionField('contactChanged', (t) =>
  t.field({
    type: ContactChangeType,
    description: 'contact.* events, optionally of one contact. Needs contacts:read.',
    args: { id: t.arg.id({ required: false }) },
    subscribe: (_root, { id }, ctx) => {
      assertAllowed(ctx.caller, 'contacts', 'read');
      return liveEvents(ctx, (e) => e.event.startsWith('contact.') && (!id || concerns(e, String(id))));
    },
    resolve: (e) => e,
  }),
);
