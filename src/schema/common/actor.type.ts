// Who caused a change, as events and a deal's stage history store it (src/events/outbox.ts).
import type { Actor } from '../../events/outbox.ts';
import { builder, type BuilderTypes } from '../builder.ts';
import { ActorType as ActorKind } from './enums.ts';

export const ActorType = builder.objectRef<Actor>('Actor').implement({
  description: 'Who caused a change: an API key, a dashboard user, or the service itself.',
  fields: (t) => ({
    type: t.expose('type', { type: ActorKind }),
    id: t.exposeID('id', {
      description: 'The API key id, the user id, or the name of the service part (e.g. task-scheduler)',
    }),
    name: t.exposeString('name', {
      description: "The key's name, the user's name, or a label for the service part, as it was at the time",
    }),
  }),
});

/** A stored actor (JSON column), or null when none was stored. */
export const storedActor = (json: unknown): Actor | null => (json && typeof json === 'object' ? (json as Actor) : null);

/** The `actor` field of an event's type (timeline entries, the event log): who caused it. */
export const eventActorField = <T extends { actor: unknown }>(
  t: PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, T>,
) =>
  t.field({
    type: ActorType,
    nullable: true,
    description: 'Who caused it; null when no actor was recorded',
    resolve: (e) => storedActor(e.actor),
  });
