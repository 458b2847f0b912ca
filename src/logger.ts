import { pino, type Logger } from 'pino';

export function createLogger(level: string): Logger {
  return pino({
    level,
    // Keys and secrets must never reach the logs, whatever object is logged.
    redact: { paths: ['req.headers.authorization', '*.authorization', '*.secret', '*.key', 'headers.authorization'], censor: '[redacted]' },
  });
}
