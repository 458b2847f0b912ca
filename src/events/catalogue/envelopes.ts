// The delivery bodies of every delivered event type, in both formats, as zod schemas and as
// JSON Schemas (2020-12, the dialect of OpenAPI 3.1), derived from the catalogue's definitions.
import { z } from 'zod';
import { EMITTED_EVENTS } from '../names.ts';
import { EVENT_CATALOGUE } from './index.ts';
import type { EventDefinition } from './define.ts';
import {
  ActivityRecordSchema,
  ActorSchema,
  ContactRecordSchema,
  DealRecordSchema,
  dateTime,
  TaskRecordSchema,
} from './records.ts';

export type JsonSchema = { [keyword: string]: unknown };
export type PayloadFormat = 'event' | 'record';

export const SEQUENCE_DESCRIPTION =
  "The event's place among the events of its record: 1, 2, 3… per record, in the order the changes were committed. " +
  'Keep the highest sequence seen per record; a delivery with a lower one is older than what you have. ' +
  '0 on test sends.';

const sequence = z.int().min(0).describe(SEQUENCE_DESCRIPTION);

/** Envelope A (`payload_format: event`). */
export function eventEnvelope(definition: EventDefinition) {
  return z
    .object({
      id: z.string().describe('Event id: the same on every retry and redelivery; use it to drop duplicates'),
      event: z.literal(definition.name),
      sequence,
      timestamp: dateTime.describe('When the change was committed'),
      workspace_id: z.string(),
      data: definition.data,
    })
    .describe(`${definition.name}: ${definition.description}`);
}

/** Envelope B (`payload_format: record`): the record itself as `data`. */
export function recordEnvelope(definition: EventDefinition) {
  return z
    .object({
      event: z.literal(definition.name),
      sequence,
      timestamp: dateTime.describe('When the change was committed'),
      webhook_id: z.string().describe('The subscription'),
      account_id: z.string().describe('The workspace'),
      data: definition.record,
    })
    .describe(`${definition.name} (record format): ${definition.description}`);
}

export interface SchemaOptions {
  /**
   * Refuse properties a schema does not name (`additionalProperties: false`). Off in what is
   * published, since the service may add fields and receivers should accept them; on in the
   * tests, so that a builder answering a field its schema lacks fails.
   */
  strict?: boolean;
}

/** zod to JSON Schema for answers (`io: 'output'`: what the service sends). */
const conversion = ({ strict = false }: SchemaOptions) =>
  ({
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'throw',
    cycles: 'throw',
    override: ({ jsonSchema }: { jsonSchema: JsonSchema }) => {
      // zod adds its own regular expression to date, date-time and email: the format says it.
      if (typeof jsonSchema.format === 'string') delete jsonSchema.pattern;
      // ...and the safe-integer range to every integer, which says nothing here.
      if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER) delete jsonSchema.minimum;
      if (jsonSchema.maximum === Number.MAX_SAFE_INTEGER) delete jsonSchema.maximum;
      if (!strict && jsonSchema.additionalProperties === false) delete jsonSchema.additionalProperties;
    },
  }) as const;

/** The JSON Schema of a zod schema of an answer, self-contained. */
export function answerSchema(schema: z.ZodType, options: SchemaOptions = {}): JsonSchema {
  const json: JsonSchema = z.toJSONSchema(schema, conversion(options));
  delete json.$schema;
  return json;
}

/** The events a subscription can receive: every emitted one, none of the timeline-only ones. */
export const deliveredEvents = (): EventDefinition[] => EMITTED_EVENTS.map((name) => EVENT_CATALOGUE[name]);

/** Per delivered event type, the JSON Schema of its delivery body in both formats. */
export function eventBodySchemas(options: SchemaOptions = {}): Record<string, Record<PayloadFormat, JsonSchema>> {
  return Object.fromEntries(
    deliveredEvents().map((d) => [
      d.name,
      { event: answerSchema(eventEnvelope(d), options), record: answerSchema(recordEnvelope(d), options) },
    ]),
  );
}

/**
 * Standalone schema files, `<event>.<format>.schema.json` (e.g. `deal.won.event.schema.json`),
 * each with its `$schema` and `$id`, for receivers that validate deliveries.
 */
export function eventSchemaFiles(options: SchemaOptions = {}): Record<string, JsonSchema> {
  const files: Record<string, JsonSchema> = {};
  for (const [name, formats] of Object.entries(eventBodySchemas(options))) {
    for (const [format, schema] of Object.entries(formats)) {
      const file = `${name}.${format}.schema.json`;
      files[file] = {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        $id: file,
        title: `${name} (${format} format)`,
        ...schema,
      };
    }
  }
  return files;
}

/** `deal.stage_changed` → `WebhookDealStageChanged`. */
export const componentName = (event: string, format: PayloadFormat) =>
  'Webhook' +
  event
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('') +
  (format === 'record' ? 'Record' : '');

/** Records shared by many events, one component each in the OpenAPI document. */
const SHARED_RECORDS: [z.ZodType, string][] = [
  [ContactRecordSchema, 'WebhookContact'],
  [DealRecordSchema, 'WebhookDeal'],
  [TaskRecordSchema, 'WebhookTask'],
  [ActivityRecordSchema, 'WebhookActivity'],
  [ActorSchema, 'WebhookActor'],
];

/**
 * The delivery bodies as OpenAPI components: one per event type and format (named by
 * componentName), referring to shared record components, all under `#/components/schemas/`.
 */
export function eventComponentSchemas(options: SchemaOptions = {}): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [schema, id] of SHARED_RECORDS) registry.add(schema, { id });
  for (const d of deliveredEvents()) {
    registry.add(eventEnvelope(d), { id: componentName(d.name, 'event') });
    registry.add(recordEnvelope(d), { id: componentName(d.name, 'record') });
  }
  const { schemas } = z.toJSONSchema(registry, { ...conversion(options), uri: (id) => `#/components/schemas/${id}` });
  return Object.fromEntries(
    Object.entries(schemas).map(([id, schema]) => {
      const { $schema: _dialect, $id: _id, ...rest } = schema as JsonSchema;
      return [id, rest];
    }),
  );
}
