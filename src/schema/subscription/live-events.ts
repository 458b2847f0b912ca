// What a live subscriber may see: the committed events of its key's workspace, except the
// timeline-only ones, each only if the key may read the kind of record the event is about.
import { filter, pipe } from 'graphql-yoga';
import { eventNeeds, firstUnreadable } from '../../auth/scopes.ts';
import { TIMELINE_ONLY_EVENTS } from '../../events/outbox.ts';
import type { PublishedEvent } from '../../events/bus.ts';
import { builder } from '../builder.ts';
import type { Context } from '../context.ts';

const timelineOnly = new Set<string>(TIMELINE_ONLY_EVENTS);

function readable(ctx: Context, e: PublishedEvent): boolean {
  if (timelineOnly.has(e.event)) return false;
  return firstUnreadable(ctx.caller, eventNeeds(e.event, e.data)) === undefined;
}

/** The caller's live events that pass `keep`; events the key may not read are skipped silently. */
export function liveEvents(ctx: Context, keep: (e: PublishedEvent) => boolean): AsyncIterable<PublishedEvent> {
  return pipe(
    ctx.bus.subscribe(ctx.caller.workspaceId),
    filter((e: PublishedEvent) => readable(ctx, e) && keep(e)),
  );
}

/** A nested record of an event's data (`data.deal`, `data.contact`), if present. */
export function recordIn(e: PublishedEvent, key: string): Record<string, unknown> | null {
  const v = e.data[key];
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
}

/** The `sequence` field of live events: the same number webhook deliveries carry. */
export const SEQUENCE_FIELD =
  "The event's place among the events of its record: 1, 2, 3… per record in commit order, " +
  'as webhook deliveries carry it. ' +
  'Keep the highest seen per record; an event with a lower one is older.';

export const LiveEventType = builder.objectRef<PublishedEvent>('LiveEvent').implement({
  description: 'A committed domain event, as webhooks deliver it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Event id; the same as webhook deliveries carry' }),
    event: t.exposeString('event', {
      description:
        'The event name, e.g. contact.created ' +
        '(a string: GraphQL enum values cannot hold dots; docs/webhooks.md lists the names)',
    }),
    timestamp: t.expose('timestamp', { type: 'DateTime', description: 'When the event happened' }),
    sequence: t.exposeInt('sequence', { nullable: false, description: SEQUENCE_FIELD }),
    data: t.field({
      type: 'EventData',
      nullable: true,
      description: "The event's data, e.g. { contact }; null when the key may not read what it holds",
      resolve: (e) => e.data,
    }),
  }),
});
