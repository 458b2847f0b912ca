// The cost of a GraphQL operation: an upper bound on the objects its answer can hold, plus the
// KiB of its long texts, so a document that is short to write but asks for a huge answer (lists of
// lists of lists) is refused before anything runs. Computed by graphql-query-complexity with one
// estimator:
// - a field that returns an object costs 1 plus its selection; other scalars cost nothing, except
//   texts that can be long, which cost their largest size in KiB (FIELD_WEIGHTS), so aliases of a
//   page of notes of 100,000 characters each are refused too;
// - a list of objects costs its selection (plus 1 per item) times the number of items it can
//   return: the `limit` argument when given, else the page-size maximum (100), or for lists that
//   take no `limit` the bound in LIST_SIZES; a page (`contacts(limit) { nodes { ... } total }`)
//   multiplies its `nodes` by `limit`;
// - nested lists multiply: `deals(limit: 100) { contacts { contact { deals(limit: 100) { id } } } }`
//   costs about 100 × 25 × 100.
// Introspection counts the same way, its lists sized by this schema (introspectionSizes); as the
// most of each is multiplied by the most of the next, the standard introspection query (GraphiQL's,
// codegen's) would look far larger than its answer is, so introspection alone may cost as much as
// that query does (introspectionAllowance), and no deeper variation of it more.
// Variables count with their values (`deals(limit: $n)`), so the cost is computed when an operation
// is about to run, not while the document is validated (yoga caches validation per document).
import {
  getIntrospectionQuery,
  getNamedType,
  getOperationAST,
  getVariableValues,
  parse,
  getNullableType,
  GraphQLError,
  isInputObjectType,
  isEnumType,
  isInterfaceType,
  isListType,
  isObjectType,
  isUnionType,
  type ASTNode,
  type DocumentNode,
  visit,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { getComplexity, type ComplexityEstimator } from 'graphql-query-complexity';
import { MAX_LIMIT } from '../schema/common/pagination.ts';
import { MAX_STAGES } from '../schema/pipeline/pipeline.inputs.ts';
import { BULK_MAX } from '../schema/contact/contact.inputs.ts';
import { BATCH_MAX } from '../schema/batch/batch.inputs.ts';
import { ACCEPTED_EVENTS } from '../events/names.ts';
import { MOST_ATTEMPTS_KEPT } from '../webhooks/attempt-log.ts';
import { MAX_MONTHS } from '../schema/insight/insight.limits.ts';
import { MAX_SUBSCRIPTIONS } from '../schema/webhook/webhook.inputs.ts';
import { IMPORT_RESOURCES } from '../records/import.ts';

/**
 * How many items the lists of objects that take no `limit` can hold. Where a rule caps the list, its
 * cap; the contacts and stage moves of one deal have no cap and are counted as 25 each: a deal with
 * more still answers (the response budget, not the cost, bounds what it can make the answer hold).
 */
export const LIST_SIZES: Record<string, number> = {
  'Pipeline.stages': MAX_STAGES,
  'BulkContactResult.contacts': BULK_MAX,
  'BulkContactResult.errors': BULK_MAX,
  'BatchResult.results': BATCH_MAX,
  'Mutation.testWebhook': ACCEPTED_EVENTS.length,
  'Deal.contacts': 25,
  'Deal.stage_history': 25,
  'WebhookDelivery.attempt_history': MOST_ATTEMPTS_KEPT,
  /** API_KEYS_SHOWN (src/schema/api-key/api-key.queries.ts). */
  'Query.apiKeys': 200,
  /** MAX_CUSTOM_FIELDS (src/schema/custom-field/custom-field.write.ts). */
  'Query.customFields': 100,
  'Query.importFields': IMPORT_RESOURCES.length,
  'Query.pipelineValueByStage': MAX_STAGES,
  'Query.dealOutcomesByMonth': MAX_MONTHS,
  'Query.webhookDeliveryStats': MAX_SUBSCRIPTIONS,
  /** One per currency of a stage's open deals: no cap, counted as 10 (the response budget bounds the answer). */
  'StageValue.amounts': 10,
};

/** Texts that can be longer than about 1 KiB: their most characters (the input rules' caps) / 1024. */
export const FIELD_WEIGHTS: Record<string, number> = {
  'Note.content': 98,
  'Activity.description': 10,
  'Task.description': 10,
  'Task.completion_note': 10,
  'StageHistory.note': 10,
  'Webhook.description': 10,
};

/**
 * The lists of introspection, sized by the schema: its types, and the most fields, arguments, values... of one of them.
 */
function introspectionSizes(schema: GraphQLSchema): Record<string, number> {
  const types = Object.values(schema.getTypeMap());
  const most = (counts: number[]) => Math.max(1, ...counts);
  const fields = types.flatMap((t) => (isObjectType(t) || isInterfaceType(t) ? Object.values(t.getFields()) : []));
  const directives = schema.getDirectives();
  return {
    '__Schema.types': types.length,
    '__Schema.directives': directives.length,
    '__Type.fields': most(
      types.map((t) => (isObjectType(t) || isInterfaceType(t) ? Object.keys(t.getFields()).length : 0)),
    ),
    '__Type.inputFields': most(types.map((t) => (isInputObjectType(t) ? Object.keys(t.getFields()).length : 0))),
    '__Type.enumValues': most(types.map((t) => (isEnumType(t) ? t.getValues().length : 0))),
    '__Type.interfaces': most(types.map((t) => (isObjectType(t) || isInterfaceType(t) ? t.getInterfaces().length : 0))),
    '__Type.possibleTypes': most(
      types.map((t) => (isUnionType(t) || isInterfaceType(t) ? schema.getPossibleTypes(t).length : 0)),
    ),
    '__Field.args': most(fields.map((f) => f.args.length)),
    '__Directive.args': most(directives.map((d) => d.args.length)),
  };
}

const sizesOf = new WeakMap<GraphQLSchema, Record<string, number>>();

const isPageType = (type: unknown): boolean =>
  isObjectType(type) && type.name.endsWith('Page') && 'nodes' in type.getFields();

function estimatorFor(schema: GraphQLSchema): ComplexityEstimator {
  let sizes = sizesOf.get(schema);
  if (!sizes) sizesOf.set(schema, (sizes = { ...LIST_SIZES, ...introspectionSizes(schema) }));
  const bounds = sizes;
  return ({ type: parent, field, args, childComplexity }) => {
    const named = getNamedType(field.type);
    if (!isObjectType(named) && !isInterfaceType(named) && !isUnionType(named))
      return FIELD_WEIGHTS[`${parent.name}.${field.name}`] ?? 0;
    // A page's nodes: one object each, multiplied by the `limit` of the field that returned the page.
    if (isPageType(parent) && field.name === 'nodes') return 1 + childComplexity;
    const limit =
      typeof args.limit === 'number' && Number.isFinite(args.limit) && args.limit >= 1
        ? Math.ceil(args.limit)
        : MAX_LIMIT;
    if (isPageType(named)) return 1 + limit * childComplexity;
    if (!isListType(getNullableType(field.type))) return 1 + childComplexity;
    return (bounds[`${parent.name}.${field.name}`] ?? limit) * (1 + childComplexity);
  };
}

/**
 * Fields visited while expanding fragments, past which a document
 * is refused as too large (fragment spreads repeat work).
 */
const MAX_EXPANDED_FIELDS = 10_000;

export type CostResult = { cost: number } | { error: GraphQLError } | { invalidVariables: true };

/** Variables coerced by graphql-js stop at 50 errors, as execution's do. */
const MAX_VARIABLE_ERRORS = 50;

/**
 * Why the variables do not fit the operation's declared types (undefined when they do), as
 * execution would say it but in graphql-js's words: it writes at most 10 items of a list into a
 * message, where the executor's inspect writes them all (a 1 MiB list came back as a 1 MiB message).
 */
export function variableErrors(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName?: string | null,
  options: { maxErrors?: number; hideSuggestions?: boolean } = {},
): readonly GraphQLError[] | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation?.variableDefinitions?.length) return undefined;
  return getVariableValues(schema, operation.variableDefinitions, variables ?? {}, {
    maxErrors: MAX_VARIABLE_ERRORS,
    ...options,
  }).errors;
}

/** Costs kept per document: a client sends the same few documents over and over. */
const MAX_COSTS_PER_DOCUMENT = 64;

interface KnownCosts {
  /** The variables the cost depends on: those in a `limit` argument or an `@include`/`@skip` condition. */
  variables: string[];
  byValues: Map<string, CostResult>;
}

const knownCosts = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, KnownCosts>>();

/** The variables whose values change what the estimator sees: a list's `limit` and the fields skipped. */
function costVariables(document: DocumentNode): string[] {
  const names = new Set<string>();
  const collect = (node: ASTNode) =>
    visit(node, {
      Variable: (v) => void names.add(v.name.value),
    });
  visit(document, {
    Argument: (arg) => (arg.name.value === 'limit' ? void collect(arg.value) : undefined),
    Directive: (d) => (d.name.value === 'include' || d.name.value === 'skip' ? void collect(d) : undefined),
  });
  return [...names];
}

/** How a variable the request leaves out appears in a cost key (its default applies, where `null` does not). */
const OMITTED = 'omitted';

/**
 * Where this document's cost with these variables is kept: the operation's name and the values
 * of the variables it depends on (numbers, booleans, null, or left out; any other value is not
 * looked up). Left out and `null` are kept apart: a default fills the one and not the other.
 */
function costSlot(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
): { known: KnownCosts; key: string } | null {
  let bySchema = knownCosts.get(schema);
  if (!bySchema) knownCosts.set(schema, (bySchema = new WeakMap()));
  let known = bySchema.get(document);
  if (!known) bySchema.set(document, (known = { variables: costVariables(document), byValues: new Map() }));
  const values = known.variables.map((name) =>
    variables && Object.hasOwn(variables, name) && variables[name] !== undefined ? variables[name] : OMITTED,
  );
  if (!values.every((v) => v === OMITTED || v === null || typeof v === 'number' || typeof v === 'boolean')) return null;
  return { known, key: JSON.stringify([operationName ?? null, ...values]) };
}

/**
 * The cost of the document's operations with these variables. Variables that do not fit their
 * declared types are left to execution, which refuses them before any resolver runs. An operation
 * whose cost cannot be computed is refused, never run unweighed.
 */
export function operationCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown> | null,
  operationName?: string | null,
): CostResult {
  // graphql-query-complexity coerces the variables with no cap on errors: a list variable of 10^5
  // items of the wrong type would build 10^5 GraphQLErrors (each with its stack) and exhaust the
  // heap. Whether they fit is known from the first error; execution names up to 50 of them.
  if (variableErrors(schema, document, variables, operationName, { maxErrors: 1 })) return { invalidVariables: true };
  const slot = costSlot(schema, document, variables, operationName);
  const known = slot?.known.byValues.get(slot.key);
  if (known) return known;
  const result = computeCost(schema, document, variables, operationName);
  if (slot && slot.known.byValues.size < MAX_COSTS_PER_DOCUMENT) slot.known.byValues.set(slot.key, result);
  return result;
}

function computeCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Record<string, unknown> | null | undefined,
  operationName: string | null | undefined,
): CostResult {
  try {
    const cost = getComplexity({
      schema,
      query: document,
      estimators: [estimatorFor(schema)],
      variables: variables ?? {},
      operationName: operationName ?? undefined,
      maxQueryNodes: MAX_EXPANDED_FIELDS,
    });
    return { cost };
  } catch (err) {
    if (err instanceof GraphQLError && /maximum allowed number of nodes/.test(err.message)) {
      return {
        error: new GraphQLError(
          `The document has more than ${MAX_EXPANDED_FIELDS} fields once its fragments are expanded`,
        ),
      };
    }
    // The variables fit their types, yet an argument's value does not (`@include(if: $s)` with
    // `$s: Boolean = true` sent as null): execution would refuse it too, in the same words.
    if (err instanceof GraphQLError) return { error: new GraphQLError(err.message) };
    throw err;
  }
}

const allowances = new WeakMap<GraphQLSchema, number>();

/** What the largest standard introspection query costs on this schema. */
function introspectionAllowance(schema: GraphQLSchema): number {
  let allowance = allowances.get(schema);
  if (allowance === undefined) {
    const query = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const result = operationCost(schema, parse(query));
    allowance = 'cost' in result ? result.cost : 0;
    allowances.set(schema, allowance);
  }
  return allowance;
}

const isIntrospection = (d: DocumentNode) =>
  d.definitions.every(
    (def) =>
      def.kind !== 'OperationDefinition' ||
      (def as OperationDefinitionNode).selectionSet.selections.every(
        (s) => s.kind === 'Field' && s.name.value.startsWith('__'),
      ),
  );

/**
 * The most an operation of this document may cost: maxCost, or for
 * introspection alone what the standard introspection query costs if more.
 */
export function costLimitOf(schema: GraphQLSchema, document: DocumentNode, maxCost: number): number {
  return isIntrospection(document) ? Math.max(maxCost, introspectionAllowance(schema)) : maxCost;
}
