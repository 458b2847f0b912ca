// The filter language every list speaks (`where` in GraphQL, `POST /v1/<resource>/query` in REST):
// what each resource lets a filter name. A resource lists its fields, each with a kind that fixes
// the operators it takes, and its relations one hop away. Custom fields are named by key and take
// the operators of their defined type.

/** What a field holds, which decides its operators and how values are read. */
export type FieldKind = 'text' | 'id' | 'enum' | 'int' | 'decimal' | 'datetime' | 'date' | 'boolean' | 'tags';

export const OPERATORS = [
  'eq',
  'neq',
  'in',
  'nin',
  'contains',
  'starts_with',
  'gt',
  'gte',
  'lt',
  'lte',
  'is_null',
] as const;
export type Operator = (typeof OPERATORS)[number];

const ORDERED: Operator[] = ['eq', 'neq', 'in', 'nin', 'gt', 'gte', 'lt', 'lte', 'is_null'];

/** The operators each kind takes. Tags: `contains` a tag, `in` (any of), `nin` (none of), `is_null` (no tags). */
export const KIND_OPERATORS: Record<FieldKind, readonly Operator[]> = {
  text: OPERATORS,
  id: ['eq', 'neq', 'in', 'nin', 'is_null'],
  enum: ['eq', 'neq', 'in', 'nin', 'is_null'],
  int: ORDERED,
  decimal: ORDERED,
  datetime: ORDERED,
  date: ORDERED,
  boolean: ['eq', 'neq', 'is_null'],
  tags: ['contains', 'in', 'nin', 'is_null'],
};

export interface FieldSpec {
  kind: FieldKind;
  /** Prisma field name. */
  field: string;
  /** Column name, for lists selected in SQL. */
  column?: string;
  /** For kind enum: the allowed values. */
  values?: readonly string[];
  /** For kind enum: the GraphQL enum's name. */
  enumName?: string;
  /** Stored lower case (emails, domains): values are lowered, and text matching is exact-case and indexable. */
  folded?: boolean;
  /** The column can hold null (or, for text, be missing). */
  nullable?: boolean;
}

export interface RelationSpec {
  /** The resource one hop away. */
  target: () => ResourceWhere;
  /** Prisma relation field. */
  field: string;
  /** One record (`is`) or many (`some`: at least one related record matches). */
  many: boolean;
}

export interface ResourceWhere {
  /** Plural API name: `contacts`. */
  name: string;
  /** GraphQL name stem: `Contact` → ContactWhere. */
  typeName: string;
  fields: Record<string, FieldSpec>;
  relations: Record<string, RelationSpec>;
  /** Other spellings of a relation in dotted paths: a contact's `company.domain` is its company_record. */
  pathAliases?: Record<string, string>;
  /** The resource carries custom_fields. */
  customFields: boolean;
}

/**
 * Limits of one filter, documented in docs/filtering.md. A filter over them is a 400 naming the
 * limit: they keep a filter's SQL small enough to plan and run in bounded time.
 */
export const WHERE_LIMITS = {
  /** and / or / not inside one another, and a relation's filter counts as one more. */
  depth: 5,
  /**
   * The filter's cost: each operator, and each and / or / not, counts one; each value of a custom
   * field's in / nin one (each is a test of its own); a relation ten (each is a join or a subquery).
   */
  conditions: 100,
  /** Values of one `in` / `nin`. */
  listValues: 1000,
  /** Characters of one text value. */
  textLength: 1000,
} as const;

/** What a relation's filter costs against WHERE_LIMITS.conditions. */
export const RELATION_COST = 10;

/** `name` is an own key of `record` (not `constructor`, `__proto__` or another inherited name). */
export const owns = <T>(record: Record<string, T> | undefined, name: string): record is Record<string, T> =>
  record !== undefined && Object.hasOwn(record, name);
