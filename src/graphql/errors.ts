// GraphQL's error translator: the API's error vocabulary (src/errors.ts) as GraphQL errors with
// `extensions { code, status, details?, retry_after? }`, over HTTP, SSE and WebSocket alike. Yoga
// masks every execution error with maskError; a request refused before yoga ran (authentication,
// body) is answered by sendGraphqlError in the same shape.
import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import { AppError, internalError } from '../errors.ts';
import { errorAnswer } from '../http/failure.ts';
import { httpStatus } from '../errors.ts';

/** The `extensions` of an AppError, or of an error made here with a code of the vocabulary. */
export function extensionsOf(err: Pick<AppError, 'code' | 'details' | 'retryAfter'>): Record<string, unknown> {
  return {
    code: err.code,
    status: httpStatus(err.code),
    ...(err.details ? { details: err.details } : {}),
    ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
  };
}

/** The GraphQL form of an AppError, at the place in the document of the error it stands for (`at`). */
export function toGraphQLError(err: AppError, at?: GraphQLError): GraphQLError {
  // Source and positions locate errors of compiled operations, which have no nodes (compiled-execution.ts).
  const { nodes, source, positions, path } = at ?? {};
  return new GraphQLError(err.message, { nodes, source, positions, path, extensions: extensionsOf(err) });
}

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

/**
 * A document or variables error (syntax, unknown field, wrong variable type) is the client's: a
 * coded validation error, with `details` naming where inside a variable its value does not fit.
 */
export function withCode(error: GraphQLError, extensions: Record<string, unknown> = {}): GraphQLError {
  if (typeof error.extensions?.code === 'string') return error;
  const details = variableDetails(error.message);
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...error.extensions, ...extensions, ...extensionsOf({ code: 'validation_error', details }) },
  });
}

/** What a client is told of an execution error: its AppError, a document error coded, else an internal error. */
export function maskError(error: unknown): Error {
  if (error instanceof GraphQLError) {
    const original = error.originalError;
    if (original instanceof AppError) return toGraphQLError(original, error);
    if (!original || original instanceof GraphQLError) return withCode(error);
  }
  return toGraphQLError(internalError(error instanceof GraphQLError ? error.originalError : error));
}

/** Answers a request refused before yoga ran, in GraphQL's error shape with the code's status. */
export function sendGraphqlError(res: Response, err: AppError): void {
  res.status(httpStatus(err.code)).json({ errors: [{ message: err.message, extensions: extensionsOf(err) }] });
}

/** Express error middleware answering in GraphQL's error shape (see http/failure.ts). */
export const graphqlErrors = (onInternalError: (err: unknown, req: Request) => void) =>
  errorAnswer(sendGraphqlError, onInternalError);
