// Limits on the shape of GraphQL documents (graphql-armor), checked while yoga parses and
// validates, and on their cost (src/graphql/cost.ts), checked with the variables just before an
// operation runs, so an abusive document is refused before any resolver or SQL runs. Page sizes
// are bounded separately by the resolvers (`limit` 1..100). REST routes run their fixed operations
// through yoga's pipeline, but these limits leave them alone (in-process.ts): REST reserves its
// answers itself; test/graphql-limits.test.ts still checks that every REST operation would pass them.
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ASTNode, type ExecutionArgs, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { costLimitOf, operationCost, variableErrors } from './cost.ts';
import { extensionsOf, withCode } from './errors.ts';
import { admit, releasedElsewhere } from './answer-admission.ts';
import type { AnswerPool } from '../http/answer-pool.ts';
import { MAX_JSON_DEPTH, nestedDeeperThan } from '../http/json-depth.ts';
import { MAX_LIMIT } from '../schema/common/pagination.ts';

export interface GraphqlLimits {
  /** Levels of fields below the operation; `{ a { b } }` is 2 (introspection's `__schema` is not counted). */
  maxDepth: number;
  maxAliases: number;
  /** Values an answer may hold at most: 1 per field, lists multiplied by their size (see src/graphql/cost.ts). */
  maxCost: number;
  /** Lexical tokens of the document, counted while parsing: bounds parse time and memory. */
  maxTokens: number;
  maxDirectives: number;
  /**
   * Bytes of JSON one answer may hold (texts exactly as sent); a larger
   * one is cut (response-budget.ts), on REST refused (rest/router.ts).
   */
  maxResponseBytes: number;
}

/**
 * Far above what the REST operations (depth 4, no aliases, cost at most 9,901: a page of 100 notes)
 * and the dashboard's queries (cost at most about 200) need, far below what it takes to make one
 * request expensive: the cost of 20,000 is about 20,000 objects, or 20 MiB of long texts.
 */
export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = {
  maxDepth: 10,
  maxAliases: 15,
  maxCost: 20_000,
  maxTokens: 2000,
  maxDirectives: 50,
  maxResponseBytes: 16 * 1024 * 1024,
};

/**
 * A refused document, in our error vocabulary. Yoga answers it like any parse or validation
 * error, as GraphQL over HTTP says: 400 to `Accept: application/graphql-response+json`, 200
 * with `errors` and no `data` to `application/json`.
 */
function refusal(message: string, nodes?: ASTNode): GraphQLError {
  const extensions = { ...extensionsOf({ code: 'validation_error' }), http: REFUSED };
  return new GraphQLError(message, { nodes, extensions });
}

/**
 * For yoga (not sent): a refusal made when the operation is about to run (cost, variables) gets
 * the status of one made while validating, 400 to application/graphql-response+json and 200 to
 * application/json (`spec`).
 */
export const REFUSED = { status: 400, spec: true };

/** graphql-armor words every refusal as "Syntax Error: ..."; it is not one. */
const limitError = (err: GraphQLError) => refusal(err.message.replace(/^Syntax Error: /, ''));

/** Reported as validation errors (the answer has no `data`) rather than thrown out of validate(). */
const report = {
  propagateOnRejection: false,
  onReject: [(ctx: ValidationContext | null, err: GraphQLError) => ctx?.reportError(limitError(err))],
};

/** The validation rules; exported so tests can hold the REST operations against them. */
export function limitRules(limits: GraphqlLimits): ValidationRule[] {
  // Fragments add no level of their own: depth and cost count fields, however a client groups them.
  const flattenFragments = true;
  return [
    maxDepthRule({ n: limits.maxDepth, flattenFragments, ...report }),
    // graphql-armor lets aliases of __typename through by default; a flood of them is still a flood.
    maxAliasesRule({ n: limits.maxAliases, allowList: [], ...report }),
    maxDirectivesRule({ n: limits.maxDirectives, ...report }),
  ];
}

/** Refuses `__schema` and `__type` (`__typename` stays: clients need it to tell types apart). */
const noIntrospection: ValidationRule = (ctx) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      ctx.reportError(refusal('GraphQL introspection is disabled on this server', node));
    }
  },
});

type BeforeRun = { args: ExecutionArgs; setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void };

/**
 * Refuses, before it runs, an operation whose variables are absurdly deep (graphql-js coerces
 * them recursively), do not fit its declared types, or whose cost with these variables cannot be
 * computed or is over the limit; returns the cost of one that may run.
 */
const refuseExpensive =
  (maxCost: number, hideSuggestions: boolean) =>
  ({ args, setResultAndStopExecution }: BeforeRun): number | undefined => {
    if (nestedDeeperThan(args.variableValues))
      return void setResultAndStopExecution({
        errors: [refusal(`Variables are nested more than ${MAX_JSON_DEPTH} levels deep`)],
      });
    const variables = args.variableValues as Record<string, unknown> | undefined;
    const cost = operationCost(args.schema, args.document, variables, args.operationName);
    if ('error' in cost) return void setResultAndStopExecution({ errors: [refusal(cost.error.message)] });
    if ('invalidVariables' in cost) {
      const errors = variableErrors(args.schema, args.document, variables, args.operationName, { hideSuggestions });
      // As execution would answer them: coded, with details, and the status of a variables error.
      return void setResultAndStopExecution({
        errors: errors?.length
          ? errors.map((e) => withCode(e, { http: { status: 400 } }))
          : [refusal('The variables do not fit the operation')],
      });
    }
    const limit = costLimitOf(args.schema, args.document, maxCost);
    if (cost.cost > limit) {
      return void setResultAndStopExecution({
        errors: [
          refusal(
            `Query cost limit of ${limit} exceeded, found ${cost.cost}: ` +
              'lists multiply the cost of what they select by their limit ' +
              `(${MAX_LIMIT} when none is given); ask for smaller pages or fewer nested lists`,
          ),
        ],
      });
    }
    return cost.cost;
  };

/**
 * The cost check, then for a query or mutation a reservation in the answer pool (answer-admission.ts):
 * it waits for room, or is refused with 503 service_unavailable and Retry-After.
 */
const checkAndAdmit = (limits: GraphqlLimits, pool: AnswerPool | undefined, hideSuggestions: boolean) => {
  const check = refuseExpensive(limits.maxCost, hideSuggestions);
  return (run: BeforeRun) => {
    const cost = check(run);
    if (cost === undefined || !pool) return;
    const context = run.args.contextValue as object;
    return admit(pool, context, cost, limits.maxResponseBytes).then((admitted) => {
      if ('refusal' in admitted) return run.setResultAndStopExecution({ errors: [admitted.refusal] });
      if (releasedElsewhere(context)) return;
      return { onExecuteDone: () => admitted.reservation.release() };
    });
  };
};

/**
 * graphql-js words a suggestion as ` Did you mean "x"?`,
 * ` Did you mean "x" or "y"?`, ` Did you mean the enum value "x"?`...
 */
const SUGGESTION = /\s*Did you mean [^?]*\?/g;

function withoutSuggestion<E extends Error>(error: E): E | GraphQLError {
  if (!(error instanceof GraphQLError) || !error.message.match(SUGGESTION)) return error;
  return new GraphQLError(error.message.replace(SUGGESTION, ''), {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

/**
 * Without introspection the schema is not public, and the suggestions in error messages
 * (`Cannot query field "emial" on type "Contact". Did you mean "email"?`) would spell it out field
 * by field. graphql-js leaves them out when told to (hideSuggestions); any that come another way
 * (a rule of ours, execution) are cut from the message.
 */
const noSuggestions: Plugin = {
  onValidate: ({ validateFn, setValidationFn }) => {
    // graphql-js 16 takes (schema, document, rules, options, typeInfo), whatever envelop names them.
    type Validate = (...args: unknown[]) => ReturnType<typeof validateFn>;
    const validate = validateFn as unknown as Validate;
    setValidationFn(((
      schema: unknown,
      document: unknown,
      rules: unknown,
      options: object | undefined,
      typeInfo: unknown,
    ) =>
      validate(
        schema,
        document,
        rules,
        { ...options, hideSuggestions: true },
        typeInfo,
      )) as unknown as typeof validateFn);
    return ({ valid, result, setResult }) => {
      if (!valid) setResult(result.map(withoutSuggestion));
    };
  },
  onExecute: () => ({
    onExecuteDone: ({ result, setResult }) => {
      if (!result || Symbol.asyncIterator in result || !result.errors?.length) return;
      setResult({ ...result, errors: result.errors.map(withoutSuggestion) });
    },
  }),
};

/** The yoga plugins; graphql-ws operations get them too, through yoga.getEnveloped (websocket.ts). */
export function graphqlLimitPlugins(
  limits: GraphqlLimits,
  opts: { introspection: boolean; pool?: AnswerPool },
): Plugin[] {
  const rules = opts.introspection ? limitRules(limits) : [...limitRules(limits), noIntrospection];
  return [
    ...(opts.introspection ? [] : [noSuggestions]),
    // The parser counts tokens as it goes and stops at the limit; there is no validation context yet, so it throws.
    maxTokensPlugin({
      n: limits.maxTokens,
      onReject: [
        (_ctx, err) => {
          throw limitError(err);
        },
      ],
    }),
    { onValidate: ({ addValidationRule }) => rules.forEach((rule) => addValidationRule(rule)) },
    {
      onExecute: checkAndAdmit(limits, opts.pool, !opts.introspection),
      onSubscribe: (run) => void refuseExpensive(limits.maxCost, !opts.introspection)(run),
    },
  ];
}
