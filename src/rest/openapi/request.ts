// Request schemas for the API reference, converted from the zod schemas the resolvers check input
// with, so the reference cannot drift from the validation. OpenAPI 3.1 schemas are JSON Schema
// 2020-12; `io: 'input'` describes what a client sends (before trimming, date parsing, defaults).
import { z } from 'zod';
import { documentedAs } from '../../schema/common/validation.ts';

export type JsonSchema = { [keyword: string]: unknown };

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  description?: string;
  schema: JsonSchema;
}

export function requestSchema(schema: z.ZodType): JsonSchema {
  const json: JsonSchema = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    // Refinements have no JSON Schema form; the type they refine is described.
    unrepresentable: 'any',
    // A cycle would become `#/$defs/...`, which points nowhere inside an OpenAPI document.
    cycles: 'throw',
    override: ({ zodSchema, jsonSchema }) => {
      const documented = documentedAs.get(zodSchema);
      if (documented) Object.assign(jsonSchema, requestSchema(documented));
    },
  });
  delete json.$schema;
  if ('$defs' in json)
    throw new Error('Request schemas must not need $defs (a zod schema with an `id` in its metadata?)');
  return defaultsInDescriptions(json);
}

/**
 * A property with a `default` is one the server fills in, yet openapi-typescript and other
 * generators read `default` as "always present" and make the client send it. The default is
 * told in the description instead, and the property stays optional.
 */
function defaultsInDescriptions(node: unknown): JsonSchema {
  if (Array.isArray(node)) return node.map(defaultsInDescriptions) as unknown as JsonSchema;
  if (!node || typeof node !== 'object') return node as JsonSchema;
  const { default: value, ...rest } = node as JsonSchema;
  const out: JsonSchema = Object.fromEntries(Object.entries(rest).map(([k, v]) => [k, defaultsInDescriptions(v)]));
  if (value === undefined) return out;
  const told = `Default: \`${typeof value === 'string' ? value : JSON.stringify(value)}\`.`;
  out.description = typeof out.description === 'string' ? `${out.description.replace(/\.?$/, '.')} ${told}` : told;
  return out;
}

/** One query parameter per property of an object schema (list filters, search `q`). */
export function queryParameters(schema: z.ZodType): Parameter[] {
  const json = requestSchema(schema);
  const properties = json.properties as Record<string, JsonSchema> | undefined;
  if (json.type !== 'object' || !properties) throw new Error('Query parameter schemas must be zod objects');
  const required = (json.required as string[] | undefined) ?? [];
  return Object.entries(properties).map(([name, { description, ...schema }]) => ({
    name,
    in: 'query',
    required: required.includes(name),
    ...(typeof description === 'string' ? { description } : {}),
    schema,
  }));
}
