// subscription { events(types: [...]) }: every event the key may read, optionally by name.
import { validationError } from '../../errors.ts';
import { ACCEPTED_EVENTS } from '../../events/outbox.ts';
import { builder } from '../builder.ts';
import { LiveEventType, liveEvents, resumedEvents } from './live-events.ts';

const accepted = new Set<string>(ACCEPTED_EVENTS);

builder.subscriptionField('events', (t) =>
  t.field({
    type: LiveEventType,
    description:
      "Live events of the key's workspace; with after, first those after that event from the log (within its " +
      'retention). Webhooks are the durable way to receive every event.',
    args: {
      types: t.arg.stringList({ required: false, description: 'Event names to receive; all when omitted' }),
      after: t.arg.id({
        required: false,
        description:
          'The id of the last event received before a disconnect: the events after it are sent first, from ' +
          'the log (within its retention), then the live ones, each once',
      }),
    },
    subscribe: (_root, args, ctx) => {
      const types = args.types ?? null;
      if (types?.length === 0) throw validationError({ types: ['must name at least one event, or be left out'] });
      if (args.after === '') throw validationError({ after: ['must be an event id, or be left out'] });
      const unknown = (types ?? []).filter((name) => !accepted.has(name));
      if (unknown.length) throw validationError({ types: unknown.map((name) => `unknown event "${name}"`) });
      const wanted = types && new Set(types);
      const keep = (e: { event: string }) => !wanted || wanted.has(e.event);
      return args.after != null ? resumedEvents(ctx, String(args.after), keep) : liveEvents(ctx, keep);
    },
    resolve: (e) => e,
  }),
);
