// Objects whose keys are not fixed — maps from a key the workspace or the caller chooses to a
// value — which a GraphQL object type cannot express. Each is a named scalar that says what it
// holds, instead of a bare JSONObject, and carries the JSON Schema the API reference gives it
// (src/rest/openapi/response.ts), so both documents describe the same shape.
import { GraphQLError, GraphQLScalarType, type ValueNode } from 'graphql';
import { JSONObjectResolver } from 'graphql-scalars';
/** A JSON Schema (2020-12) object, as the API reference embeds it. */
type JsonSchema = { [keyword: string]: unknown };

const kindOf = (v: unknown) =>
  Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'string' ? 'text' : `a ${typeof v}`;

function openShape(name: string, description: string, jsonSchema: JsonSchema) {
  return new GraphQLScalarType<Record<string, unknown>, Record<string, unknown>>({
    name,
    description,
    // Read and written like JSONObject: an object, never an array or a primitive.
    serialize: (v) => JSONObjectResolver.serialize(v) as Record<string, unknown>,
    parseValue: (v) => {
      // Named by kind, not spelled out: graphql-scalars writes the value into its message, and a
      // list of 10^5 objects would come back as 10^5 "[object Object]" (in the message and again in details).
      if (typeof v !== 'object' || v === null || Array.isArray(v))
        throw new GraphQLError(`${name} cannot represent a non-object value: ${kindOf(v)}`);
      return JSONObjectResolver.parseValue(v) as Record<string, unknown>;
    },
    parseLiteral: (node: ValueNode, vars) => JSONObjectResolver.parseLiteral(node, vars) as Record<string, unknown>,
    extensions: { jsonSchema: { description, ...jsonSchema } },
  });
}

/** What a stored custom field value can be: never null, which removes the key instead. */
const customFieldValue: JsonSchema = { type: ['string', 'number', 'boolean'] };

export const CustomFieldValues = openShape(
  'CustomFieldValues',
  "Custom field values by field key (the keys of the workspace's custom field definitions). " +
    "Each value has its definition's type: " +
    'a string for text and select fields, a YYYY-MM-DD string for date fields, a number for number fields, ' +
    'true or false for boolean fields. ' +
    'A field without a value is absent; setting a key to null removes it.',
  { type: 'object', additionalProperties: customFieldValue },
);

export const CustomFieldConditions = openShape(
  'CustomFieldConditions',
  'Conditions on custom fields in a filter: field key → operators, as for the fields of the record ' +
    '(for example { "industry": { "in": ["Retail", "Media"] }, "seats": { "gte": 10 } }). ' +
    "The operators a key takes follow its definition's type: text and select fields take eq, neq, in, nin, " +
    'contains, starts_with, gt, gte, lt, lte and is_null; number and date fields eq, neq, in, nin, gt, gte, ' +
    'lt, lte and is_null; boolean fields eq, neq and is_null.',
  { type: 'object', additionalProperties: { type: 'object' } },
);

export const WebhookHeaders = openShape(
  'WebhookHeaders',
  'Extra HTTP headers sent with every delivery: header name → value (one line of printable ASCII), at most 20.',
  { type: 'object', additionalProperties: { type: 'string' }, maxProperties: 20 },
);

export const WebhookFilters = openShape(
  'WebhookFilters',
  'Which events of the subscribed names are delivered: record field name → wanted value, or a list of values. ' +
    'A scalar field must equal the value or one of the listed values; ' +
    'a list field (such as tags) must hold every listed value. All keys must match; ' +
    'null or an empty object delivers every event of the subscribed names.',
  {
    type: 'object',
    propertyNames: { pattern: '^[a-z_]{1,64}$' },
    additionalProperties: {
      anyOf: [
        { type: ['string', 'number', 'boolean'] },
        { type: 'array', items: { type: ['string', 'number'] }, maxItems: 50 },
      ],
    },
  },
);

export const EventData = openShape(
  'EventData',
  'The data object of an event, as webhook deliveries carry it: ' +
    'the record the event is about (contact, company, deal, task, activity, note or import) ' +
    'and what the event adds, such as changes or previous_status. ' +
    'Its keys depend on the event name; docs/webhooks.md lists them per event.',
  { type: 'object', additionalProperties: true },
);

export const AuditChanges = openShape(
  'AuditChanges',
  'The fields a write changed: field name → `{ before, after }` (null where there was or is no value). ' +
    'A secret (a key, a signing secret, a password) is named with both values null.',
  {
    type: 'object',
    additionalProperties: {
      type: 'object',
      properties: { before: {}, after: {} },
      required: ['before', 'after'],
    },
  },
);

export const ErrorDetails = openShape(
  'ErrorDetails',
  'The fields at fault: field name (a dotted path for nested fields, such as custom_fields.size) → messages; ' +
    'besides them, existing_id (a conflict: the id of the record that holds the value) ' +
    "and current_version (a failed precondition: the record's version now).",
  {
    type: 'object',
    properties: { existing_id: { type: 'string' }, current_version: { type: 'integer' } },
    additionalProperties: { type: 'array', items: { type: 'string' } },
  },
);

export const ImportMapping = openShape(
  'ImportMapping',
  'Which field each column of an imported file fills: column name (for JSON Lines, key) → field ' +
    '(first_name, address.city, custom_fields.<key>); null or an empty string leaves the column out.',
  { type: 'object', additionalProperties: { type: ['string', 'null'], maxLength: 255 }, maxProperties: 1000 },
);

export const OPEN_SHAPES = [
  CustomFieldValues,
  CustomFieldConditions,
  WebhookHeaders,
  WebhookFilters,
  EventData,
  AuditChanges,
  ErrorDetails,
  ImportMapping,
];

/** The JSON Schema of each open shape, by scalar name. */
export const openShapeSchemas = (): Record<string, JsonSchema> =>
  Object.fromEntries(OPEN_SHAPES.map((s) => [s.name, s.extensions.jsonSchema as JsonSchema]));
