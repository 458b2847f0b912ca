// GraphQL input types generated from the zod schemas the resolvers validate with, so an input
// has one definition: zod holds the rules, and the GraphQL type (like the OpenAPI request schema,
// src/rest/openapi/request.ts) is read off it. The conversion goes through the schema's JSON
// Schema (`io: 'input'`: what a client sends, before trimming and defaults):
//   string → String, integer → Int, number → Float, boolean → Boolean,
//   an enum → the enum registered for its values (src/schema/common/enums.ts),
//   an array → a list, an object → an input type (named when shared, see `inputNamed`),
//   an object of free keys → the named scalar registered for it (`scalarNamed`),
//   a property the schema requires → non-null; `null` allowed or optional → nullable.
// Rules GraphQL cannot state (lengths, patterns, ranges) stay in zod and are checked by the
// resolver; the field's description names them where a client needs them.
import { z } from 'zod';
import { builder } from '../builder.ts';
import { enumNamed } from './enums.ts';
import { inputNames, looseRows, scalarNames } from './graphql-names.ts';

/** The keywords of zod's JSON Schema the conversion reads; the others (and `x-graphql`) are left unknown. */
interface JsonSchema {
  type?: string | string[];
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  enum?: unknown[];
  format?: string;
  [keyword: string]: unknown;
}

const MARK = 'x-graphql';

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  // zod's type allows `true`/`false` and tuples where a schema goes; zod writes neither for input objects.
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
    cycles: 'throw',
    override: ({ zodSchema, jsonSchema }) => {
      const row = looseRows.get(zodSchema);
      if (row) {
        const { $schema: _, ...loose } = jsonSchemaOf(row.schema);
        Object.assign(jsonSchema, loose, { [MARK]: { input: row.name, description: row.description } });
      }
      const input = inputNames.get(zodSchema);
      if (input) jsonSchema[MARK] = { input: input.name, description: input.description };
      const scalar = scalarNames.get(zodSchema);
      if (scalar) jsonSchema[MARK] = { scalar };
    },
  }) as JsonSchema;
}

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const built = new Map<string, unknown>();

/** A type reference as Pothos takes it: a name, a ref, or a one-element list of one. */
// biome-ignore lint/suspicious/noExplicitAny: built at start from zod, so no static type; resolvers parse with zod.
type TypeRef = any;

interface Converted {
  type: TypeRef;
  nullable: boolean;
  description?: string;
}

/** The variant of a union a GraphQL input can carry: a list accepts a single value too (list coercion). */
function pickVariant(variants: JsonSchema[]): JsonSchema {
  const rank = (s: JsonSchema) =>
    s.type === 'array'
      ? 0
      : s.type === 'object'
        ? 1
        : s.type === 'number' || s.type === 'integer'
          ? 2
          : s.type === 'boolean'
            ? 3
            : 4;
  return [...variants].sort((a, b) => rank(a) - rank(b))[0];
}

/** The rules of a value GraphQL's types cannot state, in words, for the field's description. */
function rulesOf(json: JsonSchema): string | undefined {
  const rules: string[] = [];
  const range = (min: unknown, max: unknown, unit: string) => {
    if (typeof min === 'number' && typeof max === 'number') rules.push(`${min} to ${max}${unit}`);
    else if (typeof max === 'number') rules.push(`At most ${max}${unit}`);
    else if (typeof min === 'number' && min > 0) rules.push(`At least ${min}${unit}`);
  };
  range(json.minLength, json.maxLength, ' characters');
  range(json.minItems, json.maxItems, ' items');
  range(json.minimum, json.maximum, '');
  if (json.format === 'email') rules.push('An email address');
  return rules.length ? rules.join('; ') + '.' : undefined;
}

function convert(json: JsonSchema, where: string): Converted {
  const own = typeof json.description === 'string' ? json.description : undefined;
  const rules = rulesOf(json);
  const description = own && rules ? `${own} ${rules}` : (own ?? rules);
  const mark = json[MARK] as { input?: string; description?: string; scalar?: string } | undefined;
  if (mark?.scalar) return { type: mark.scalar, nullable: false, description };
  if (Array.isArray(json.anyOf)) {
    const variants = (json.anyOf as JsonSchema[]).filter((v) => v.type !== 'null');
    const inner = convert(pickVariant(variants), where);
    return {
      ...inner,
      nullable: inner.nullable || variants.length < json.anyOf.length,
      description: description ?? inner.description,
    };
  }
  if (Array.isArray(json.type)) {
    const types = (json.type as string[]).filter((t) => t !== 'null');
    const inner = convert(
      { ...json, type: types.length === 1 ? types[0] : pickVariant(types.map((type) => ({ type }))).type },
      where,
    );
    return { ...inner, nullable: inner.nullable || types.length < json.type.length };
  }
  if (Array.isArray(json.enum)) {
    const values = json.enum as unknown[];
    const name = values.every((v) => typeof v === 'string') ? enumNamed(values as string[]) : undefined;
    if (name) return { type: name, nullable: false, description };
    // Values that are no GraphQL names (event names, media types) stay text, checked by zod.
    if (values.some((v) => typeof v !== 'string' || !GRAPHQL_NAME.test(v as string))) {
      return { type: 'String', nullable: false, description: description ?? `One of: ${values.join(', ')}` };
    }
    throw new Error(`${where}: register an enum for ${values.join(', ')} in src/schema/common/enums.ts`);
  }
  switch (json.type) {
    case 'string':
      return { type: 'String', nullable: false, description };
    case 'integer':
      return { type: 'Int', nullable: false, description };
    case 'number':
      return { type: 'Float', nullable: false, description };
    case 'boolean':
      return { type: 'Boolean', nullable: false, description };
    case 'array': {
      const item = convert(json.items ?? {}, `${where}[]`);
      return { type: [item.type], nullable: false, description: description ?? item.description };
    }
    case 'object': {
      if (!json.properties)
        throw new Error(
          `${where}: an object of free keys needs a named scalar (scalarNamed, src/schema/common/graphql-names.ts)`,
        );
      const name = mark?.input;
      if (!name) throw new Error(`${where}: a nested object needs an input type name (inputNamed)`);
      return { type: objectType(name, { ...json, description: mark.description }), nullable: false, description };
    }
    default:
      throw new Error(`${where}: no GraphQL input type for ${JSON.stringify(json)}`);
  }
}

function objectType(name: string, json: JsonSchema): TypeRef {
  const existing = built.get(name);
  if (existing) return existing;
  const required = new Set<string>(json.required ?? []);
  const properties = json.properties as Record<string, JsonSchema>;
  // Converted now, so a schema GraphQL cannot carry stops the start here, naming the field.
  const fields = Object.entries(properties).map(([key, prop]) => [key, convert(prop, `${name}.${key}`)] as const);
  const ref = builder.inputType(name, {
    description: typeof json.description === 'string' ? json.description : undefined,
    fields: (t) =>
      Object.fromEntries(
        fields.map(([key, f]) => {
          const list = Array.isArray(f.type);
          const nonNull = required.has(key) && !f.nullable;
          return [
            key,
            t.field({
              type: f.type,
              description: f.description,
              required: list ? { list: nonNull, items: true } : nonNull,
              // biome-ignore lint/suspicious/noExplicitAny: Pothos types options by `type`, known at run time only.
            } as any),
          ];
        }),
      ),
  });
  built.set(name, ref);
  return ref;
}

/** The GraphQL input type of a zod object schema: its name, its fields, their descriptions. */
export function zodInput(name: string, schema: z.ZodType, description: string): TypeRef {
  const json = jsonSchemaOf(schema);
  if (json.type !== 'object' || !json.properties) throw new Error(`${name}: input types are made from zod objects`);
  return objectType(name, { ...json, description });
}
