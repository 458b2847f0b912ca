// REST's error translator: what refused or failed a request, as an HTTP status and the error
// envelope `{ success: false, error: { code, message, details? }, meta }`. An execution error of a
// route's operation is first read back as the AppError behind it (toAppError).
import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import {
  AppError,
  internalError,
  isErrorCode,
  UNAVAILABLE_RETRY_AFTER_SECONDS,
  validationError,
  type DetailsWithFacts,
} from '../errors.ts';
import { errorAnswer } from '../http/failure.ts';
import { httpStatus } from '../errors.ts';
import { meta } from './envelope.ts';

/** Answers with the error envelope; a 503 and a refusal that says when to retry carry Retry-After. */
export function sendError(res: Response, err: AppError): void {
  const error: Record<string, unknown> = { code: err.code, message: err.message };
  if (err.details) error.details = err.details;
  if (err.code === 'service_unavailable') res.setHeader('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  if (err.retryAfter !== undefined) res.setHeader('Retry-After', String(err.retryAfter));
  res.status(httpStatus(err.code)).json({ success: false, error, meta: meta(res) });
}

/** Express error middleware answering with the envelope (see http/failure.ts). */
export const restErrors = (onInternalError: (err: unknown, req: Request) => void) =>
  errorAnswer(sendError, onInternalError);

/** What a value of each GraphQL input type a route's variables use must be, in the API's words. */
export const EXPECTED: Record<string, string> = {
  Int: `must be an integer from ${-(2 ** 31)} to ${2 ** 31 - 1}`,
  Float: 'must be a number',
  String: 'must be text',
  ID: 'must be an id',
  Boolean: 'must be true or false',
  // Objects with free keys (src/schema/common/open-shapes.ts).
  CustomFieldValues: 'must be a JSON object',
  WebhookHeaders: 'must be a JSON object',
  WebhookFilters: 'must be a JSON object',
};

export const snakeCase = (name: string) => name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/**
 * A variable GraphQL could not coerce (a REST parameter of the wrong type or out of range) as the
 * API's own validation error naming the parameter: GraphQL's wording ("Variable "$limit" got
 * invalid value ...") names a variable REST clients never see.
 */
function variableError(message: string): AppError | null {
  const m = /^Variable "\$(\w+)" (got invalid value|of required type|of non-null type)/.exec(message);
  if (!m) return null;
  const type = /; (\w+) cannot represent/.exec(message)?.[1];
  const problem =
    m[2] === 'got invalid value' ? ((type && EXPECTED[type]) ?? 'has a value of the wrong type') : 'is required';
  return validationError({ [snakeCase(m[1])]: [problem] });
}

/** The AppError behind a GraphQL execution error; variable errors are validation errors naming the parameter. */
export function toAppError(err: GraphQLError): AppError {
  const original = err.originalError;
  if (original instanceof AppError) return original;
  const code = err.extensions?.code;
  if (isErrorCode(code)) return new AppError(code, err.message, err.extensions.details as DetailsWithFacts | undefined);
  if (!original) {
    const invalid = new AppError('validation_error', 'The request has invalid fields', { _: [err.message] });
    return variableError(err.message) ?? invalid;
  }
  return internalError(original);
}
