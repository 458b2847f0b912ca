// The filter language as typed GraphQL inputs, read off the resources' specs: one operator input
// per kind of field (TextFilter, IntFilter, …, one per enum), and per resource `<Type>Where` with
// and / or / not, its fields, custom_fields and its relations (whose filters, `<Type>FieldsWhere`,
// name fields only: one hop). Code generators get every field and operator typed.
import type { InputFieldBuilder, InputObjectRef } from '@pothos/core';
import { builder, type BuilderTypes } from '../../builder.ts';
import * as enums from '../enums.ts';
import { KIND_OPERATORS, type FieldKind, type FieldSpec, type Operator, type ResourceWhere } from './where.spec.ts';

// biome-ignore lint/suspicious/noExplicitAny: input refs built at start from specs; resolvers check the values.
type AnyInput = InputObjectRef<BuilderTypes, any>;
type Fields = InputFieldBuilder<BuilderTypes, 'InputObject'>;

const SCALAR: Record<Exclude<FieldKind, 'enum'>, string> = {
  text: 'String',
  id: 'String',
  int: 'Int',
  decimal: 'Float',
  datetime: 'String',
  date: 'String',
  boolean: 'Boolean',
  tags: 'String',
};

const KIND_NAMES: Record<Exclude<FieldKind, 'enum'>, [string, string]> = {
  text: ['TextFilter', 'Conditions on a text field; contains and starts_with ignore case.'],
  id: ['IdFilter', 'Conditions on an id field.'],
  int: ['IntFilter', 'Conditions on a whole-number field.'],
  decimal: ['DecimalFilter', 'Conditions on a decimal field.'],
  datetime: ['DateTimeFilter', 'Conditions on an instant: values are ISO 8601 dates or date-times.'],
  date: ['DateFilter', 'Conditions on a calendar date: values are YYYY-MM-DD.'],
  boolean: ['BooleanFilter', 'Conditions on a true/false field.'],
  tags: [
    'TagsFilter',
    'Conditions on a tag list: contains a tag, in (holds any of), nin (holds none of), is_null (holds none).',
  ],
};

const OPERATOR_TEXT: Record<Operator, string> = {
  eq: 'Equals',
  neq: 'Differs from (records without a value included)',
  in: 'Equals one of, at most 1000',
  nin: 'Equals none of, at most 1000 (records without a value included)',
  contains: 'Holds this text, ignoring case',
  starts_with: 'Starts with this text, ignoring case',
  gt: 'Greater than',
  gte: 'Greater than or equal to',
  lt: 'Less than',
  lte: 'Less than or equal to',
  is_null: 'true: has no value; false: has one',
};

const operatorInputs = new Map<string, AnyInput>();

function operatorInput(kind: FieldKind, enumName?: string): AnyInput {
  const [name, description] =
    kind === 'enum' ? [`${enumName}Filter`, `Conditions on a ${enumName} field.`] : KIND_NAMES[kind];
  const existing = operatorInputs.get(name);
  if (existing) return existing;
  const scalar = kind === 'enum' ? (enums as Record<string, unknown>)[enumName!] : SCALAR[kind];
  if (!scalar) throw new Error(`No enum ${enumName} for a filter`);
  const ref = builder.inputType(name, {
    description,
    fields: (t: Fields) =>
      Object.fromEntries(
        KIND_OPERATORS[kind].map((op) => {
          const type = op === 'is_null' ? 'Boolean' : scalar;
          const list = op === 'in' || op === 'nin';
          const tagsText = kind === 'tags' && op === 'contains' ? 'Holds this tag' : OPERATOR_TEXT[op];
          return [op, t.field({ type: (list ? [type] : type) as never, required: false, description: tagsText })];
        }),
      ),
  }) as AnyInput;
  operatorInputs.set(name, ref);
  return ref;
}

const fieldInput = (f: FieldSpec) => operatorInput(f.kind, f.enumName);

const whereInputs = new Map<string, AnyInput>();

function fieldsOf(t: Fields, spec: ResourceWhere) {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(spec.fields)) out[name] = t.field({ type: fieldInput(f), required: false });
  if (spec.customFields)
    out.custom_fields = t.field({
      type: 'CustomFieldConditions',
      required: false,
      description: "Conditions on custom fields by key, with the operators of each one's type",
    });
  return out;
}

/** `<Type>FieldsWhere`: a resource's own fields, for the far end of a relation. */
function fieldsWhere(spec: ResourceWhere): AnyInput {
  const name = `${spec.typeName}FieldsWhere`;
  const existing = whereInputs.get(name);
  if (existing) return existing;
  const ref = builder.inputRef<Record<string, unknown>>(name);
  ref.implement({
    description: `Conditions on a related ${spec.typeName.toLowerCase()}'s own fields; all given must hold.`,
    fields: (t: Fields) => ({
      and: t.field({ type: [ref] as never, required: false, description: 'Every filter holds' }),
      or: t.field({ type: [ref] as never, required: false, description: 'At least one filter holds' }),
      not: t.field({ type: ref as never, required: false, description: 'The filter does not hold' }),
      ...fieldsOf(t, spec),
    }),
  });
  whereInputs.set(name, ref);
  return ref;
}

/** `<Type>Where`: the `where` argument of a resource's lists. */
export function whereInput(spec: ResourceWhere): AnyInput {
  const name = `${spec.typeName}Where`;
  const existing = whereInputs.get(name);
  if (existing) return existing;
  const ref = builder.inputRef<Record<string, unknown>>(name);
  ref.implement({
    description:
      `A filter of ${spec.name}: every condition given must hold. Fields take an object of operators; ` +
      'relations take a filter of the related record (one hop; a list relation matches when any related ' +
      'record does). ' +
      'Limits: 5 levels of nesting, 100 conditions, 1000 values per in / nin.',
    fields: (t: Fields) => ({
      and: t.field({ type: [ref] as never, required: false, description: 'Every filter holds' }),
      or: t.field({ type: [ref] as never, required: false, description: 'At least one filter holds' }),
      not: t.field({ type: ref as never, required: false, description: 'The filter does not hold' }),
      ...fieldsOf(t, spec),
      ...Object.fromEntries(
        Object.entries(spec.relations).map(([rel, r]) => [
          rel,
          t.field({
            type: fieldsWhere(r.target()) as never,
            required: false,
            description: r.many ? `At least one related record matches` : 'The related record matches',
          }),
        ]),
      ),
    }),
  });
  whereInputs.set(name, ref);
  return ref;
}
