// Names the GraphQL input types take for parts of zod schemas (src/schema/common/zod-input.ts).
// Free of imports, so the zod schemas can name their parts without importing the builder.
import type { z } from 'zod';

export const inputNames = new WeakMap<z.core.$ZodType, { name: string; description: string }>();
export const scalarNames = new WeakMap<z.core.$ZodType, string>();
/** Parts a resolver checks later, row by row: their GraphQL type, with nothing required. */
export const looseRows = new WeakMap<z.core.$ZodType, { name: string; description: string; schema: z.ZodType }>();

/** Gives a nested object schema its own input type name, shared wherever the schema is used. */
export function inputNamed<S extends z.ZodType>(schema: S, name: string, description: string): S {
  inputNames.set(schema, { name, description });
  return schema;
}

/** Maps an object of free keys (a record) to a named custom scalar (src/schema/common/open-shapes.ts). */
export function scalarNamed<S extends z.ZodType>(schema: S, name: string): S {
  scalarNames.set(schema, name);
  return schema;
}

/**
 * A part the resolver checks item by item with `schema` (each bulk row fails on its own): in
 * GraphQL it is `name`, the same fields with none required, so one bad row cannot fail the request.
 */
export function checkedPerRow<S extends z.ZodType>(part: S, name: string, description: string, schema: z.ZodObject): S {
  looseRows.set(part, { name, description, schema: schema.partial() });
  return part;
}
