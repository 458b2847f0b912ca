// subscription { events(types: [...]) }: every event the key may read, optionally by name.
import { validationError } from '../../errors.ts';
import { ACCEPTED_EVENTS } from '../../events/outbox.ts';
import { builder } from '../builder.ts';
import { LiveEventType, liveEvents } from './live-events.ts';

const accepted = new Set<string>(ACCEPTED_EVENTS);

builder.subscriptionField('events', (t) =>
  t.field({
    type: LiveEventType,
    description:
      "Live events of the key's workspace. Best effort: webhooks are the durable way to receive every event.",
    args: { types: t.arg.stringList({ required: false, description: 'Event names to receive; all when omitted' }) },
    subscribe: (_root, args, ctx) => {
      const types = args.types ?? null;
      const unknown = (types ?? []).filter((name) => !accepted.has(name));
      if (unknown.length) throw validationError({ types: unknown.map((name) => `unknown event "${name}"`) });
      const wanted = types && new Set(types);
      return liveEvents(ctx, (e) => !wanted || wanted.has(e.event));
    },
    resolve: (e) => e,
  }),
);
