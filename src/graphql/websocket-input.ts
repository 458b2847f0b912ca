// GraphQL-over-WebSocket messages are read as strictly as HTTP bodies. `ws` refuses text frames
// that are not UTF-8 (close 1007) but hands binary frames over as they are, and graphql-ws reads
// messages with JSON.parse: a binary frame's bad bytes would become U+FFFD, a repeated key or a
// number like 1e-400 in the variables would be changed without a word.
import { isUtf8 } from 'node:buffer';
import type { RawData } from 'ws';
import { AppError } from '../errors.ts';
import { toGraphQLError } from './errors.ts';
import { parseStrictJson } from '../http/strict-json.ts';

/** RFC 6455's close code for a message whose data does not match its type (here: not UTF-8). */
export const INVALID_PAYLOAD = 1007;
/** graphql-ws' close code for a message it cannot read. */
export const BAD_REQUEST = 4400;

export type MessageCheck = { text: string } | { close: [number, string] } | { reply: string };

export function checkMessage(data: RawData): MessageCheck {
  const bytes = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
  if (!isUtf8(bytes)) return { close: [INVALID_PAYLOAD, 'Invalid UTF-8 in message'] };
  const text = bytes.toString('utf8');
  try {
    parseStrictJson(text, 'The message');
    return { text };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    // A subscribe message's numbers: that operation fails as a GraphQL request with them would;
    // anything else that cannot be read ends the socket, as graphql-ws ends it for bad JSON.
    const id = err.code === 'validation_error' ? subscribeId(text) : null;
    if (id === null) return { close: [BAD_REQUEST, err.message.slice(0, 120)] };
    return { reply: JSON.stringify({ id, type: 'error', payload: [toGraphQLError(err).toJSON()] }) };
  }
}

function subscribeId(text: string): string | null {
  const message = JSON.parse(text) as { id?: unknown; type?: unknown } | null;
  return message && message.type === 'subscribe' && typeof message.id === 'string' ? message.id : null;
}
