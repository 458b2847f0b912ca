// Response shapes for the API reference, read from the selection sets of the REST operations
// (src/rest/operations/*.graphql) with the types of the GraphQL schema: a route answers exactly
// what its operation selects. A selection made of one fragment (`{ ...ContactFields }`) becomes a
// shared component named after it (`Contact`).
import {
  isEnumType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { openShapeSchemas } from '../../schema/common/open-shapes.ts';
import type { JsonSchema } from './request.ts';

/** JSON Schema of each scalar; a new scalar stops the start until it is given one here. */
const SCALARS: Record<string, JsonSchema> = {
  String: { type: 'string' },
  ID: { type: 'string' },
  Int: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  // Objects with free keys, each described by its scalar (src/schema/common/open-shapes.ts).
  ...openShapeSchemas(),
};

function orNull(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0) return schema; // any JSON value, null included
  if (typeof schema.type === 'string') {
    const nullable: JsonSchema = { ...schema, type: [schema.type, 'null'] };
    if (Array.isArray(schema.enum)) nullable.enum = [...schema.enum, null];
    return nullable;
  }
  return { anyOf: [schema, { type: 'null' }] };
}

export class ResponseSchemas {
  /** Component schemas made from fragments, by component name. */
  readonly components: Record<string, JsonSchema> = {};
  private readonly componentFragment = new Map<string, string>();

  constructor(private readonly fragments: Map<string, FragmentDefinitionNode>) {}

  /**
   * The schema of what an operation's field answers. The field's own nullability is left out: an
   * operation that answers null has failed, and REST answers its error instead. `partial` when the
   * client may pick the fields (`?fields=`), so only `id` is sure to be there.
   */
  answer(type: GraphQLOutputType, set: SelectionSetNode | undefined, partial: boolean): JsonSchema {
    const inner = isNonNullType(type) ? type.ofType : type;
    if (isObjectType(inner) && set) return this.selection(inner, set, partial);
    return this.nonNull(inner, set);
  }

  private selection(type: GraphQLObjectType, set: SelectionSetNode, partial = false): JsonSchema {
    const [only] = set.selections;
    if (set.selections.length === 1 && only.kind === Kind.FRAGMENT_SPREAD && !partial) {
      return { $ref: `#/components/schemas/${this.component(only.name.value, type)}` };
    }
    const properties: Record<string, JsonSchema> = {};
    for (const node of this.fieldsOf(set)) {
      const key = (node.alias ?? node.name).value;
      if (node.name.value === '__typename') {
        properties[key] = { type: 'string' };
        continue;
      }
      const field = type.getFields()[node.name.value];
      if (!field) throw new Error(`${type.name} has no field ${node.name.value}`);
      // The field's own description is the more specific one; an open shape's scalar gives its own otherwise.
      properties[key] = {
        ...this.output(field.type, node.selectionSet),
        ...(field.description ? { description: field.description } : {}),
      };
    }
    const keys = Object.keys(properties);
    return { type: 'object', properties, required: partial ? keys.filter((k) => k === 'id') : keys };
  }

  private component(fragment: string, type: GraphQLObjectType): string {
    const name = fragment.replace(/Fields$/, '') || fragment;
    const taken = this.componentFragment.get(name);
    if (taken && taken !== fragment)
      throw new Error(`Fragments ${taken} and ${fragment} would both be component ${name}`);
    if (!taken) {
      this.componentFragment.set(name, fragment);
      const schema = this.selection(type, this.fragment(fragment).selectionSet, false);
      this.components[name] = { ...(type.description ? { description: type.description } : {}), ...schema };
    }
    return name;
  }

  private fragment(name: string): FragmentDefinitionNode {
    const fragment = this.fragments.get(name);
    if (!fragment) throw new Error(`Unknown fragment ${name}`);
    return fragment;
  }

  /** The fields of a selection set, fragments spread. */
  private *fieldsOf(set: SelectionSetNode): Generator<FieldNode> {
    for (const s of set.selections) {
      if (s.kind === Kind.FIELD) yield s;
      else if (s.kind === Kind.FRAGMENT_SPREAD) yield* this.fieldsOf(this.fragment(s.name.value).selectionSet);
      else yield* this.fieldsOf(s.selectionSet);
    }
  }

  private output(type: GraphQLOutputType, set: SelectionSetNode | undefined): JsonSchema {
    return isNonNullType(type) ? this.nonNull(type.ofType, set) : orNull(this.nonNull(type, set));
  }

  /** A value of `type` that is there; the caller adds null where the type allows it. */
  private nonNull(type: GraphQLOutputType, set: SelectionSetNode | undefined): JsonSchema {
    if (isListType(type)) return { type: 'array', items: this.output(type.ofType, set) };
    if (isObjectType(type) && set) return this.selection(type, set);
    if (isEnumType(type)) return { type: 'string', enum: type.getValues().map((v) => v.name) };
    if (isScalarType(type) && SCALARS[type.name]) return { ...SCALARS[type.name] };
    throw new Error(`No response schema for GraphQL type ${type.toString()}`);
  }
}
