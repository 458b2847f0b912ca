// One error shape for the session routes (error envelope) and GraphQL (errors[].extensions).

export type FieldErrors = Record<string, string[]>;

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details?: FieldErrors,
  ) {
    super(message);
  }
}

interface Envelope {
  error?: { code?: string; message?: string; details?: FieldErrors };
  errors?: { message?: string; extensions?: { code?: string; status?: number; details?: FieldErrors } }[];
}

/** Reads whichever error shape the body has; falls back to the HTTP status. */
export function errorFrom(status: number, body: unknown): ApiError {
  const b = (body ?? {}) as Envelope;
  if (b.error?.message) return new ApiError(b.error.message, status, b.error.code ?? 'error', b.error.details);
  const first = b.errors?.[0];
  if (first?.message)
    return new ApiError(
      first.message,
      first.extensions?.status ?? status,
      first.extensions?.code ?? 'error',
      first.extensions?.details,
    );
  return new ApiError(`The server answered ${status}`, status, 'error');
}
