// Scalars for objects whose keys are the client's own (custom field keys, header names, record
// fields): GraphQL has no map type, so each is a named scalar whose description says what it
// holds. Values are JSON objects, checked in detail by the zod schema of the field.
import { GraphQLError } from 'graphql';
import { JSONObjectResolver } from 'graphql-scalars';
import { builder } from '../builder.ts';

const kindOf = (v: unknown) => (Array.isArray(v) ? 'a list' : v === null ? 'null' : typeof v === 'string' ? 'text' : `a ${typeof v}`);

function objectScalar(name: 'CustomFieldValues' | 'HttpHeaders' | 'WebhookFilters', description: string) {
  return builder.scalarType(name, {
    description,
    serialize: (v) => JSONObjectResolver.serialize(v) as object,
    parseValue: (v) => {
      // Named by kind, not spelled out: graphql-scalars writes the value into its message, and a
      // list of 10^5 objects would come back as 10^5 "[object Object]" (in the message and again in details).
      if (typeof v !== 'object' || v === null || Array.isArray(v)) throw new GraphQLError(`${name} cannot represent a non-object value: ${kindOf(v)}`);
      return JSONObjectResolver.parseValue(v) as Record<string, unknown>;
    },
    parseLiteral: (ast, variables) => JSONObjectResolver.parseLiteral(ast, variables) as Record<string, unknown>,
  });
}

export const CustomFieldValues = objectScalar(
  'CustomFieldValues',
  'Custom field values by key: a string, number, boolean or null each, of the type its definition (customFields) gives. Keys without a definition are dropped with a warning.',
);
export const HttpHeaders = objectScalar('HttpHeaders', 'HTTP header name → value (one line of printable ASCII), at most 20.');
export const WebhookFilters = objectScalar(
  'WebhookFilters',
  'Record field → a value or a list of values the record must have for an event to be delivered, e.g. { "pipeline_id": "pipe_1" } or { "tags": ["vip"] } (a list field must hold every value).',
);
