/**
 * A start that cannot go on for a reason the operator can fix (port in use, data directory or
 * database unusable): the entry points print its message as one line and exit 1, no stack trace.
 */
export class StartupError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StartupError';
  }
}
