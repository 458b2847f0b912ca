// The HTTP status of each error code, for both surfaces that answer over HTTP: REST's envelope
// (rest/errors.ts) and GraphQL's `extensions.status` (graphql/errors.ts). An exhaustive switch, so a
// new code fails to compile until it is given a status here.
import { unmapped, type ErrorCode } from '../errors.ts';

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
    case 'payload_too_large':
      return 413;
    case 'unsupported_media_type':
      return 415;
    case 'unprocessable_entity':
      return 422;
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
