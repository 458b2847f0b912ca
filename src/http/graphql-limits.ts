// Limits on the shape of GraphQL documents (graphql-armor), checked while yoga parses and
// validates, so an abusive document is refused before any resolver or SQL runs. Page sizes are
// bounded separately by the resolvers (`limit` 1..100). REST routes execute their precompiled
// operations without yoga, so these limits never apply to them; test/graphql-limits.test.ts
// still checks that every REST operation would pass them.
import { costLimitRule } from '@escape.tech/graphql-armor-cost-limit';
import { maxAliasesRule } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthRule } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesRule } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { GraphQLError, type ASTNode, type ValidationContext, type ValidationRule } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { MAX_JSON_DEPTH, nestedDeeperThan } from './json-depth.ts';

export interface GraphqlLimits {
  /** Levels of fields below the operation; `{ a { b } }` is 2 (introspection's `__schema` is not counted). */
  maxDepth: number;
  maxAliases: number;
  /** graphql-armor's cost: 1 per scalar, 2 per object, each level weighing 1.5 times more. */
  maxCost: number;
  /** Lexical tokens of the document, counted while parsing: bounds parse time and memory. */
  maxTokens: number;
  maxDirectives: number;
}

/**
 * Far above what the REST operations (depth 4, cost under 100, no aliases) and ordinary client
 * queries need, far below what it takes to make one request expensive.
 */
export const DEFAULT_GRAPHQL_LIMITS: GraphqlLimits = { maxDepth: 10, maxAliases: 15, maxCost: 5000, maxTokens: 2000, maxDirectives: 50 };

/**
 * A refused document, in our error vocabulary. Yoga answers it like any parse or validation
 * error, as GraphQL over HTTP says: 400 to `Accept: application/graphql-response+json`, 200
 * with `errors` and no `data` to `application/json`.
 */
function refusal(message: string, nodes?: ASTNode): GraphQLError {
  return new GraphQLError(message, { nodes, extensions: { code: 'validation_error', status: 400 } });
}

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
    costLimitRule({ maxCost: limits.maxCost, flattenFragments, ...report }),
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

function refuseDeepVariables({ args, setResultAndStopExecution }: { args: { variableValues?: unknown }; setResultAndStopExecution: (result: { errors: GraphQLError[] }) => void }) {
  if (nestedDeeperThan(args.variableValues)) setResultAndStopExecution({ errors: [refusal(`Variables are nested more than ${MAX_JSON_DEPTH} levels deep`)] });
}

/** The yoga plugins; graphql-ws operations get them too, through yoga.getEnveloped (websocket.ts). */
export function graphqlLimitPlugins(limits: GraphqlLimits, opts: { introspection: boolean }): Plugin[] {
  const rules = opts.introspection ? limitRules(limits) : [...limitRules(limits), noIntrospection];
  return [
    // The parser counts tokens as it goes and stops at the limit; there is no validation context yet, so it throws.
    maxTokensPlugin({ n: limits.maxTokens, onReject: [(_ctx, err) => { throw limitError(err); }] }),
    { onValidate: ({ addValidationRule }) => rules.forEach((rule) => addValidationRule(rule)) },
    // Variables are coerced recursively by graphql-js: absurdly deep ones are refused before that.
    { onExecute: refuseDeepVariables, onSubscribe: refuseDeepVariables },
  ];
}
