// The contract the GraphQL schema gives by construction, checked over every type rather than a
// few examples: what is non-null, typed, enumerated and described. Answers are checked against
// it in test/answers.contract.test.ts.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isObjectType,
  isScalarType,
  type GraphQLField,
  type GraphQLObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { OPEN_SHAPES } from '../src/schema/common/open-shapes.ts';
import { schema } from '../src/schema/index.ts';
import { guardedFields } from '../src/schema/read-access.ts';

const ROOTS = new Set(['Query', 'Mutation', 'Subscription']);
const BUILT_IN = new Set(['String', 'ID', 'Int', 'Float', 'Boolean']);

const namedTypes = Object.values(schema.getTypeMap()).filter((t) => !t.name.startsWith('__'));
const objectTypes = namedTypes.filter((t): t is GraphQLObjectType => isObjectType(t));
/** Every output field of the schema, root fields included, as `Type.field`. */
const outputFields: [string, GraphQLField<unknown, unknown>, GraphQLObjectType][] = objectTypes.flatMap((type) =>
  Object.values(type.getFields()).map(
    (f) => [`${type.name}.${f.name}`, f, type] as [string, GraphQLField<unknown, unknown>, GraphQLObjectType],
  ),
);

describe('the GraphQL schema', () => {
  it('answers no field as bare JSON: known shapes are object types, free-key maps named scalars', () => {
    const loose = outputFields
      .filter(([, f]) => ['JSON', 'JSONObject'].includes(getNamedType(f.type).name))
      .map(([name]) => name);
    expect(loose).toEqual([]);
    // Every named scalar says what it holds.
    for (const scalar of namedTypes.filter(
      (t) => isScalarType(t) && !BUILT_IN.has(t.name) && t.name !== 'JSONObject' && t.name !== 'JSON',
    )) {
      expect(scalar.description, scalar.name).toMatch(/\w{4,}/);
    }
  });

  it('describes every type and every root field', () => {
    // Input types are described where they are defined (their own contract).
    const undescribed = namedTypes
      .filter((t) => !ROOTS.has(t.name) && !isInputObjectType(t) && !t.description)
      .map((t) => t.name);
    expect(undescribed).toEqual([]);
    const roots = outputFields.filter(([, , type]) => ROOTS.has(type.name));
    expect(roots.length).toBeGreaterThan(60);
    expect(roots.filter(([, f]) => !f.description).map(([name]) => name)).toEqual([]);
  });

  it('answers every id as ID!', () => {
    const ids = outputFields.filter(([, f, type]) => f.name === 'id' && !ROOTS.has(type.name));
    expect(ids.length).toBeGreaterThan(15);
    // A batch operation's record: none when the operation failed, or when a dry run's create would make it.
    const absentWhenFailed = new Set(['BatchOperationResult.id']);
    const expected = (name: string) => (absentWhenFailed.has(name) ? 'ID' : 'ID!');
    expect(ids.filter(([name, f]) => f.type.toString() !== expected(name)).map(([n, f]) => `${n}: ${f.type}`)).toEqual(
      [],
    );
  });

  it('answers lists without null items, and root fields always (a failure is an error)', () => {
    const listsWithNullItems = outputFields.filter(([, f]) => {
      const type = getNullableType(f.type);
      return isListType(type) && !isNonNullType(type.ofType);
    });
    expect(listsWithNullItems.map(([name]) => name)).toEqual([]);
    // Subscription events always carry a value too.
    const nullableRoots = outputFields.filter(([, f, type]) => ROOTS.has(type.name) && !isNonNullType(f.type));
    expect(nullableRoots.map(([name]) => name)).toEqual([]);
  });

  it('answers closed sets as enums; event names, which hold dots, are strings and say so', () => {
    const CLOSED = [
      'status',
      'source',
      'priority',
      'outcome',
      'scope',
      'environment',
      'http_method',
      'content_type',
      'payload_format',
      'code',
      'type',
    ];
    const eventNames = new Set(['TimelineEntry.type', 'CompanyTimelineEntry.type', 'LoggedEvent.type']);
    // An HTTP status code, a number by nature.
    const numbers = new Set(['BatchOperationResult.status']);
    const strings = outputFields.filter(
      ([name, f, type]) =>
        !ROOTS.has(type.name) &&
        CLOSED.includes(f.name) &&
        !eventNames.has(name) &&
        !numbers.has(name) &&
        !isEnumType(getNamedType(f.type)),
    );
    expect(strings.map(([name]) => name)).toEqual([]);
    for (const [name, f] of outputFields.filter(([n, f]) => eventNames.has(n) || f.name === 'event')) {
      expect(getNamedType(f.type).name, name).toBe('String');
      expect(f.description, name).toMatch(/enum values cannot hold dots/);
    }
  });

  it('leaves nullable the fields the read rule may blank; every other nullable field says when it is null', () => {
    // A field holding another resource's data must be nullable (the service does not start otherwise).
    const guarded = guardedFields(schema).filter((g) => !g.root);
    expect(guarded.length).toBeGreaterThan(10);
    for (const g of guarded) {
      const field = (schema.getType(g.type) as GraphQLObjectType).getFields()[g.field];
      expect(isNonNullType(field.type), `${g.type}.${g.field}`).toBe(false);
    }
    // Every other nullable field says when it is null: its description, its value's type's, or its parent type's.
    const guardedNames = new Set(guarded.map((g) => `${g.type}.${g.field}`));
    const says = (f: GraphQLField<unknown, unknown>, type: GraphQLObjectType) =>
      `${f.description ?? ''} ${getNamedType(f.type).description ?? ''} ${type.description ?? ''}`;
    const unexplained = outputFields.filter(
      ([name, f, type]) =>
        !ROOTS.has(type.name) && !isNonNullType(f.type) && !guardedNames.has(name) && !/null/i.test(says(f, type)),
    );
    expect(unexplained.map(([name]) => name)).toEqual([]);
  });

  it('gives every open shape a JSON Schema object for the API reference', () => {
    for (const scalar of OPEN_SHAPES) {
      expect(schema.getType(scalar.name)?.description, scalar.name).toBe(scalar.description);
      expect(scalar.extensions.jsonSchema, scalar.name).toMatchObject({
        type: 'object',
        description: scalar.description,
      });
    }
  });
});
