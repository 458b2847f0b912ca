// Queries and mutations over /graphql run as functions graphql-jit compiled from their documents,
// as REST's fixed operations do (rest/router.ts), instead of graphql-js interpreting the document
// on every request.
//
// - A document is compiled the second time it runs: clients send the same few documents again and
//   again, and a document sent once costs no compile. Yoga's parse cache hands out the same parsed
//   document for the same text, which keys what is kept here.
// - Compiling costs: 20-200 ms of CPU and 0.1-0.4 MB of generated code per document. So the last
//   MAX_COMPILED documents used stay compiled, and compiling may take at most a budget of CPU
//   time per minute (GRAPHQL_COMPILE_BUDGET_MS): past it, documents run interpreted until the
//   budget refills. A stream of new documents, each sent twice, cannot make compiling the
//   process's work or fill its memory.
// - graphql-jit writes each variable's coercion out as code level by level, which for an input
//   type that holds itself never ends (recursive-inputs.ts): documents with such variables (the
//   filters) keep the interpreter.
// - graphql-jit hands each resolver a new path object, where graphql-js shares the parent's. Pothos's
//   Prisma plugin finds the relations a parent's query already loaded by the identity of the
//   ancestor's path: without the same objects it loads every nested level again (statement counts
//   in test/queries.count.test.ts). canonicalPath gives each response path one object per
//   operation; the resolver wrapper of the /graphql schema applies it (response-budget.ts).
// - graphql-jit reads a custom scalar's literal without the variables inside it
//   (`custom_fields: { tier: $tier }` becomes `{ tier: undefined }`): such documents, and
//   subscriptions, keep the interpreter.
// - graphql-jit refuses a non-null variable with a default value that the request leaves out
//   (`$s: Boolean! = false` answers "was not provided"), where graphql-js uses the default; and it
//   takes a null for a nullable variable with a default in a non-null place (`@include(if: $s)`
//   with `$s: Boolean = true`), which graphql-js refuses: such documents keep the interpreter too.
import { LRUCache } from 'lru-cache';
import {
  type DocumentNode,
  type ExecutionArgs,
  type ExecutionResult,
  GraphQLError,
  type Source,
  getNamedType,
  type GraphQLSchema,
  isNonNullType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  visit,
  visitWithTypeInfo,
  BREAK,
  type ASTNode,
  typeFromAST,
  type GraphQLInputType,
} from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../metrics.ts';
import { isRecursive } from './recursive-inputs.ts';

type Run = (args: ExecutionArgs) => unknown;

/** Documents kept compiled at once, the last used. */
export const MAX_COMPILED = 100;
/** CPU time compiling may take per minute unless GRAPHQL_COMPILE_BUDGET_MS says otherwise: about 2 % of a core. */
export const DEFAULT_COMPILE_BUDGET_MS = 1_000;
const BUDGET_WINDOW_MS = 60_000;

/** Per operation (document and name): runs seen before compiling, or null for one graphql-jit cannot run. */
const runs = new WeakMap<DocumentNode, Map<string, number | null>>();

/** Contexts of operations running compiled: their resolvers get canonical paths. */
const compiledContexts = new WeakSet<object>();

export const runsCompiled = (context: unknown): boolean =>
  typeof context === 'object' && context !== null && compiledContexts.has(context);

type Path = { readonly prev: Path | undefined; readonly key: string | number; readonly typename?: string };

/** Per operation: each path's children by key, the root's under `undefined`. */
const pathTables = new WeakMap<object, Map<Path | undefined, Map<string | number, Path>>>();

/** The one path object of this operation for the response path `path` names. */
export function canonicalPath(context: object, path: Path): Path {
  let table = pathTables.get(context);
  if (!table) pathTables.set(context, (table = new Map()));
  return intern(table, path);
}

function intern(table: Map<Path | undefined, Map<string | number, Path>>, path: Path): Path {
  const prev = path.prev === undefined ? undefined : intern(table, path.prev);
  let children = table.get(prev);
  if (!children) table.set(prev, (children = new Map()));
  let found = children.get(path.key);
  if (!found) children.set(path.key, (found = prev === path.prev ? path : { ...path, prev }));
  return found;
}

function operationOf(document: DocumentNode, name: string | null | undefined): OperationDefinitionNode | undefined {
  const operations = document.definitions.filter((d) => d.kind === Kind.OPERATION_DEFINITION);
  return name ? operations.find((o) => o.name?.value === name) : operations.length === 1 ? operations[0] : undefined;
}

const holdsVariable = (node: ASTNode): boolean => {
  let found = false;
  visit(node, {
    Variable() {
      found = true;
      return BREAK;
    },
  });
  return found;
};

/** Whether a custom scalar's literal (a JSON object or list) holds a variable somewhere inside. */
export function hasVariableInScalarLiteral(schema: GraphQLSchema, document: DocumentNode): boolean {
  const typeInfo = new TypeInfo(schema);
  let found = false;
  const enter = (node: ASTNode) => {
    const type = typeInfo.getInputType();
    if (type && isScalarType(getNamedType(type)) && holdsVariable(node)) {
      found = true;
      return BREAK;
    }
    return undefined;
  };
  visit(document, visitWithTypeInfo(typeInfo, { ObjectValue: enter, ListValue: enter }));
  return found;
}

/** Whether a variable of the operation has an input type that holds itself (recursive-inputs.ts). */
function hasRecursiveVariable(schema: GraphQLSchema, operation: OperationDefinitionNode): boolean {
  return (operation.variableDefinitions ?? []).some((d) => {
    const type = typeFromAST(schema, d.type as never) as GraphQLInputType | undefined;
    return type !== undefined && isRecursive(type);
  });
}

/**
 * Whether a variable declared nullable with a default fills a non-null argument (`$s: Boolean = true`
 * in `@include(if: $s)`): sent as null, graphql-js refuses it, where graphql-jit read it as false.
 */
function hasDefaultedVariableInNonNullPosition(
  schema: GraphQLSchema,
  document: DocumentNode,
  op: OperationDefinitionNode,
) {
  const defaulted = new Set(
    (op.variableDefinitions ?? [])
      .filter((v) => v.type.kind !== Kind.NON_NULL_TYPE && v.defaultValue !== undefined)
      .map((v) => v.variable.name.value),
  );
  if (defaulted.size === 0) return false;
  const typeInfo = new TypeInfo(schema);
  let found = false;
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      // In a variable's own definition the input type is the one declared, which is nullable here.
      Variable(node) {
        if (!defaulted.has(node.name.value) || !isNonNullType(typeInfo.getInputType())) return;
        found = true;
        return BREAK;
      },
    }),
  );
  return found;
}

/** Whether a variable is declared non-null with a default value (`$s: Boolean! = false`). */
export const hasNonNullVariableWithDefault = (operation: OperationDefinitionNode): boolean =>
  (operation.variableDefinitions ?? []).some((v) => v.type.kind === Kind.NON_NULL_TYPE && v.defaultValue !== undefined);

function compile(schema: GraphQLSchema, document: DocumentNode, name: string | undefined): Run | null {
  const operation = operationOf(document, name);
  if (!operation || operation.operation === 'subscription') return null;
  if (hasRecursiveVariable(schema, operation) || hasVariableInScalarLiteral(schema, document)) return null;
  if (hasNonNullVariableWithDefault(operation) || hasDefaultedVariableInNonNullPosition(schema, document, operation))
    return null;
  const compiled = compileQuery(schema, document, name);
  if (!isCompiledQuery(compiled)) return null;
  const source = document.loc?.source;
  return (args) => {
    compiledContexts.add(args.contextValue as object);
    const result = compiled.query(args.rootValue, args.contextValue, args.variableValues);
    return isPromise(result) ? result.then((r) => located(r, source)) : located(result, source);
  };
}

const isPromise = <T>(v: T | Promise<T>): v is Promise<T> => typeof (v as Promise<T>)?.then === 'function';

/**
 * graphql-jit's errors give their `locations` but not the document's nodes, from which yoga builds the
 * error it sends (and drops the rest): each becomes an error located by the document's source and
 * offsets, as graphql-js's would be by its nodes.
 */
function located(result: ExecutionResult, source: Source | undefined): ExecutionResult {
  if (!result.errors?.length || !source) return result;
  const lineStarts = [0];
  for (let i = source.body.indexOf('\n'); i >= 0; i = source.body.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const errors = result.errors.map((error) =>
    error.nodes || !error.locations?.length
      ? error
      : new GraphQLError(error.message, {
          source,
          positions: error.locations.map(({ line, column }) => (lineStarts[line - 1] ?? 0) + column - 1),
          path: error.path,
          originalError: error.originalError,
          extensions: error.extensions,
        }),
  );
  return { ...result, errors };
}

/** Milliseconds of compiling per window; refilled as time passes, spent by each compile. */
class CompileBudget {
  private left: number;
  private at = Date.now();

  constructor(private readonly perMinute: number) {
    this.left = perMinute;
  }

  available(): boolean {
    const now = Date.now();
    this.left = Math.min(this.perMinute, this.left + ((now - this.at) * this.perMinute) / BUDGET_WINDOW_MS);
    this.at = now;
    return this.left > 0;
  }

  spend(ms: number): void {
    this.left -= ms;
  }
}

/**
 * Runs each operation as its compiled function once it has run `interpretedRuns` times
 * (GRAPHQL_COMPILE_AFTER), within the cache's size and the compile budget (see above).
 */
export function compiledExecutionPlugin(
  opts: { interpretedRuns: number; budgetMsPerMinute: number },
  metrics: Metrics,
): Plugin {
  const { interpretedRuns } = opts;
  const compiled = new LRUCache<DocumentNode, Map<string, Run>>({ max: MAX_COMPILED });
  const budget = new CompileBudget(opts.budgetMsPerMinute);
  return {
    onExecute: ({ args, setExecuteFn }) => {
      const name = args.operationName ?? '';
      const run = compiled.get(args.document)?.get(name);
      if (run) return setExecuteFn(run as never);
      let seen = runs.get(args.document);
      if (!seen) runs.set(args.document, (seen = new Map()));
      const count = seen.get(name) ?? 0;
      if (count === null) return;
      if (count < interpretedRuns) return void seen.set(name, count + 1);
      if (!budget.available()) return void metrics.graphqlCompilations.inc({ outcome: 'postponed' });
      const started = performance.now();
      const made = compile(args.schema, args.document, args.operationName ?? undefined);
      budget.spend(performance.now() - started);
      metrics.graphqlCompilations.inc({ outcome: made ? 'compiled' : 'interpreted' });
      if (!made) return void seen.set(name, null);
      const byName = compiled.get(args.document) ?? new Map<string, Run>();
      compiled.set(args.document, byName.set(name, made));
      setExecuteFn(made as never);
    },
  };
}
