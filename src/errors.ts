// One error vocabulary for every surface: a coded AppError is thrown by rules and
// resolvers; REST maps the code to an HTTP status, GraphQL to `extensions.code`.
import { GraphQLError } from 'graphql';
import { isInvalidValue } from './db/errors.ts';
import { isDatabaseUnavailable } from './db/unavailable.ts';

export const ERROR_STATUS = {
  malformed_request: 400,
  validation_error: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unprocessable_entity: 422,
  rate_limited: 429,
  internal_error: 500,
  service_unavailable: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;
export type ErrorDetails = Record<string, string[]>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details?: ErrorDetails;
  /** Seconds to wait before trying again (a refused rate_limited): REST's Retry-After, GraphQL's `extensions.retry_after`. */
  readonly retryAfter?: number;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails, options?: { cause?: unknown; retryAfter?: number }) {
    super(message, options);
    this.name = 'AppError';
    this.code = code;
    this.details = details;
    this.retryAfter = options?.retryAfter;
  }

  get status(): number {
    return ERROR_STATUS[this.code];
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
      ? new AppError('validation_error', 'The request holds a value that cannot be stored or searched for, such as text with a NUL character', undefined, { cause })
      : new AppError('internal_error', 'An unexpected error occurred; quote the request id when reporting it', undefined, { cause });

/** Seconds a client should wait before retrying a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && code in ERROR_STATUS;
}

/** The GraphQL form of an AppError: message plus `extensions { code, status, details?, retry_after? }`. */
export function toGraphQLError(err: AppError): GraphQLError {
  return new GraphQLError(err.message, {
    extensions: {
      code: err.code,
      status: err.status,
      ...(err.details ? { details: err.details } : {}),
      ...(err.retryAfter !== undefined ? { retry_after: err.retryAfter } : {}),
    },
  });
}
