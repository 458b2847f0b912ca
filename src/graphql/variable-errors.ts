// GraphQL errors about a document or its variables, in the API's error vocabulary: a coded
// validation error, with `details` naming where inside a variable its value does not fit.
import { GraphQLError } from 'graphql';

/**
 * Where a variable's value does not fit its type, as `details`: the path inside the variable
 * (`scope` of `Variable "$input" got invalid value "root" at "input.scope"; ...`), or the variable.
 */
export function variableDetails(message: string): Record<string, string[]> | undefined {
  const m = /^Variable "\$(\w+)" got invalid value .*?(?: at "([^"]+)")?; (.*)$/s.exec(message);
  if (!m) return undefined;
  const [, variable, at, problem] = m;
  const missing = /^Field "(\w+)" of required type "[^"]+" was not provided\.$/.exec(problem);
  const path = [at ? at.split('.').slice(1).join('.') : '', missing?.[1] ?? ''].filter(Boolean).join('.') || variable;
  return { [path]: [missing ? 'is required' : problem] };
}

/** A document or variables error (syntax, unknown field, wrong variable type) is the client's: a coded validation error. */
export function withCode(error: GraphQLError, extensions: Record<string, unknown> = {}): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  const details = variableDetails(error.message);
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, ...extensions, code: 'validation_error', status: 400, ...(details ? { details } : {}) },
  });
}
