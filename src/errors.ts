// One error vocabulary for every surface: a coded AppError is thrown by rules, resolvers and
// HTTP middleware. A code's HTTP status is one exhaustive switch (httpStatus, below): both surfaces answer
// it, GraphQL in `extensions.status`, and a batch names it per operation. Each surface has
// one translator: REST's writes the error envelope (rest/errors.ts), GraphQL's `extensions`
// (graphql/errors.ts).
import { isInvalidValue } from './db/errors.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';

/** Every code, in the order the API reference and the GraphQL `ErrorCode` enum list them. */
export const ERROR_CODES = [
  'malformed_request',
  'validation_error',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'conflict',
  'precondition_failed',
  'payload_too_large',
  'unsupported_media_type',
  'unprocessable_entity',
  'failed_dependency',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
/** Field name → messages: what a refusal of the request's fields says about each. */
export type ErrorDetails = Record<string, string[]>;
/**
 * What an error's `details` may hold: messages per field, and facts a client acts on, such as the
 * record a conflict is with (`existing_id`) or a record's current version (`current_version`, on a 412).
 */
export type DetailsWithFacts = Record<string, string[] | string | number>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: DetailsWithFacts;
  /**
   * Seconds to wait before trying again (a refused rate_limited):
   * REST's Retry-After, GraphQL's `extensions.retry_after`.
   */
  readonly retryAfter?: number;

  constructor(
    code: ErrorCode,
    message: string,
    details?: DetailsWithFacts,
    options?: { cause?: unknown; retryAfter?: number },
  ) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfter = options?.retryAfter;
  }
}

export const notFound = (what: string) => new AppError('not_found', `${what} not found`);

export function validationError(details: ErrorDetails, message = 'The request has invalid fields'): AppError {
  return new AppError('validation_error', message, details);
}

/**
 * The answer to an unexpected failure: a retryable 503 while the database is unreachable, a 400 when
 * the database refused a value the request carried, else a 500.
 */
export const internalError = (cause?: unknown) =>
  isDatabaseUnavailable(cause)
    ? new AppError('service_unavailable', 'The service is temporarily unavailable; retry shortly', undefined, { cause })
    : isInvalidValue(cause)
      ? new AppError(
          'validation_error',
          'The request holds a value that cannot be stored or searched for, such as text with a NUL character',
          undefined,
          { cause },
        )
      : new AppError(
          'internal_error',
          'An unexpected error occurred; quote the request id when reporting it',
          undefined,
          { cause },
        );

/** Seconds a client should wait before retrying a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && (ERROR_CODES as readonly string[]).includes(code);
}

/** The end of a translator's switch over the codes: it compiles only when every code has a case. */
export function unmapped(code: never): never {
  throw new Error(`Error code ${String(code)} has no translation`);
}

/** The HTTP status of a code. */
export function httpStatus(code: ErrorCode): number {
  switch (code) {
    case 'malformed_request':
    case 'validation_error':
      return 400;
    case 'unauthorized':
      return 401;
    case 'forbidden':
      return 403;
    case 'not_found':
      return 404;
    case 'method_not_allowed':
      return 405;
    case 'conflict':
      return 409;
    case 'precondition_failed':
      return 412;
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable_entity':
      return 422;
    case 'failed_dependency':
      return 424;
    case 'rate_limited':
      return 429;
    case 'internal_error':
      return 500;
    case 'service_unavailable':
      return 503;
    default:
      return unmapped(code);
  }
}
