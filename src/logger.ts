import { pino, type DestinationStream, type Logger } from 'pino';

/**
 * Keys and secrets must never reach the logs, whatever object is logged. The request log
 * writes neither headers nor bodies; these paths catch anything logged carelessly elsewhere
 * (pino's wildcards match one level, hence the repetitions).
 */
const REDACT = [
  'authorization',
  'secret',
  'key',
  '*.authorization',
  '*.secret',
  '*.key',
  '*.*.secret',
  'headers.authorization',
  '*.headers.authorization',
  'connectionParams.authorization',
];

/** JSON lines on stdout, or on `destination` (tests read what was logged from a stream). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT, censor: '[redacted]' } }, destination);
}
