// What a live subscriber may see: the committed events of its key's workspace, except the
// timeline-only ones, each only if the key may read the kind of record the event is about.
import { filter, pipe } from 'graphql-yoga';
import { eventNeeds, firstUnreadable, readableRecordKinds } from '../../auth/scopes.ts';
import { validationError } from '../../errors.ts';
import { TIMELINE_ONLY_EVENTS } from '../../events/outbox.ts';
import type { PublishedEvent } from '../../events/bus.ts';
import { EVENT_ROW_COLUMNS, toPublished, type EventRow } from '../../events/feed.ts';
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

/** Log rows a resumed subscription reads at a time. */
const REPLAY_PAGE = 200;
/**
 * How old an event sent from the log may be and still come by live as well: the feed publishes an
 * event within moments of its commit, and a transaction's events carry its start time, which a
 * long batch puts minutes before its commit.
 */
const STILL_LIVE_MS = 5 * 60_000;

/**
 * The caller's events after the event `afterId` (the last one it received before a disconnect),
 * read from the log, then its live events: what it missed, once each, then what happens. The log
 * is read again once the live stream is attached, so what committed in between is not lost, and
 * a live event already read from the log is not given twice. A 400 when the log no longer holds
 * (past retention) or never held that event for this workspace.
 */
export async function resumedEvents(
  ctx: Context,
  afterId: string,
  keep: (e: PublishedEvent) => boolean,
): Promise<AsyncIterable<PublishedEvent>> {
  // Only an event the key could have received: another one's place in the log is not its to learn.
  const [from] = await ctx.sql.query<{ seq_text: string }>(
    'SELECT seq::text AS seq_text FROM events WHERE id = $1 AND workspace_id = $2 AND entity_type = ANY($3::text[])',
    [afterId, ctx.caller.workspaceId, readableRecordKinds(ctx.caller)],
  );
  if (!from)
    throw validationError({
      after: [
        "is no event of this workspace's log that this key may read (or it is past retention): subscribe without it",
      ],
    });
  let cursor = BigInt(from.seq_text);
  const page = () =>
    ctx.sql.query<EventRow>(
      `SELECT ${EVENT_ROW_COLUMNS} FROM events WHERE workspace_id = $1 AND seq > $2::bigint
      ORDER BY events.seq LIMIT ${REPLAY_PAGE}`,
      [ctx.caller.workspaceId, cursor.toString()],
    );
  // Ids sent from the log that the feed may still publish live (it publishes what committed in the
  // last moments): recent ones only, so a long replay keeps no large set.
  const sent = new Set<string>();
  async function* replay(): AsyncGenerator<PublishedEvent> {
    for (;;) {
      const rows = await page();
      const recent = Date.now() - STILL_LIVE_MS;
      for (const row of rows) {
        cursor = BigInt(row.seq_text);
        if (new Date(row.created_at).getTime() >= recent) sent.add(row.id);
        const e = toPublished(row);
        if (readable(ctx, e) && keep(e)) yield e;
      }
      if (rows.length < REPLAY_PAGE) return;
    }
  }
  async function* resume(): AsyncGenerator<PublishedEvent> {
    yield* replay();
    const live = liveEvents(ctx, keep)[Symbol.asyncIterator]();
    // Asking for the first live event attaches the subscriber to the bus.
    let next = live.next();
    try {
      yield* replay();
      for (;;) {
        const r = await next;
        if (r.done) return;
        if (!sent.delete(r.value.id)) yield r.value;
        next = live.next();
      }
    } finally {
      await live.return?.();
    }
  }
  return { [Symbol.asyncIterator]: resume };
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
