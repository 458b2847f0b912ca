// One definition per event type: the zod schema of its `data`, the builder every write path
// calls, a sample made by that same builder from sample records (test sends), and the record
// envelope B delivers. Real events, test sends and the published schemas cannot drift apart
// because they all come from here.
import type { z } from 'zod';
import type { EventName } from '../names.ts';

export type EntityType = 'contact' | 'company' | 'deal' | 'task' | 'activity' | 'note' | 'import';

declare const fromBuilder: unique symbol;
/** Event data as only a catalogue builder makes it: a write path cannot pass a hand-made object. */
export type EventData = Record<string, unknown> & { readonly [fromBuilder]: true };

/** What a builder answers: the event's name, the record it is about, and its data. */
export interface BuiltEvent {
  type: EventName;
  entityType: EntityType;
  entityId: string;
  data: EventData;
}

export interface EventDefinition<I = unknown> {
  name: EventName;
  /** The kind of record the event is about; `data[entityType]` is that record. */
  entityType: EntityType;
  description: string;
  /** Written for contact timelines only; never delivered or published. */
  timelineOnly: boolean;
  /** Envelope A's `data`. */
  data: z.ZodObject;
  /** Envelope B's `data`: the record itself. */
  record: z.ZodType;
  toRecord(data: Record<string, unknown>): unknown;
  build(input: I): BuiltEvent;
  /** The event built from sample records: what test sends deliver. */
  sample(): BuiltEvent;
}

/** The data's keys, optional ones optional: a builder answers every field its schema names. */
type Fields<S extends z.ZodObject> = { [K in keyof z.output<S>]: unknown };

export function defineEvent<S extends z.ZodObject, I>(spec: {
  name: EventName;
  entityType: EntityType;
  description: string;
  timelineOnly?: boolean;
  data: S;
  build: (input: I) => Fields<S>;
  sampleInput: () => NoInfer<I>;
  /** Envelope B's record when it is not simply `data[entityType]`. */
  record?: { schema: z.ZodType; from: (data: z.output<S>) => unknown };
}): EventDefinition<I> {
  const key = spec.entityType;
  const recordSchema = spec.record?.schema ?? (spec.data.shape[key] as z.ZodType | undefined);
  if (!recordSchema)
    throw new Error(`Event ${spec.name}: its data must hold the ${key} record, or the definition must name its record`);
  const build = (input: I): BuiltEvent => {
    const data = spec.build(input) as EventData;
    return { type: spec.name, entityType: key, entityId: (data[key] as { id: string }).id, data };
  };
  return {
    name: spec.name,
    entityType: key,
    description: spec.description,
    timelineOnly: spec.timelineOnly ?? false,
    data: spec.data,
    record: recordSchema,
    toRecord: (data) => (spec.record ? spec.record.from(data as z.output<S>) : data[key]),
    build,
    sample: () => build(spec.sampleInput()),
  };
}
