import type { GraphQLError } from 'graphql';
import { AppError, internalError, isErrorCode, type ErrorDetails } from '../errors.ts';

/** The AppError behind a GraphQL execution error; variable errors are validation errors. */
export function toAppError(err: GraphQLError): AppError {
  const original = err.originalError;
  if (original instanceof AppError) return original;
  const code = err.extensions?.code;
  if (isErrorCode(code)) return new AppError(code, err.message, err.extensions.details as ErrorDetails | undefined);
  if (!original) return new AppError('validation_error', err.message);
  return internalError(original);
}
