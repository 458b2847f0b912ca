// GraphQL requests holding text the service does not store (control characters, an unpaired
// surrogate: see storable.ts) in a variable or a string literal of the document, or a number
// literal a double cannot hold as written (`1e-400` would be read as 0), are refused before any
// resolver runs, on every transport yoga serves (HTTP, SSE and WebSocket), with the validation
// error REST gives. Numbers in variables are checked where their JSON is read (strict-json.ts).
import { BREAK, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { getUnsafeNumberReason } from 'lossless-json';
import { isStorable, UNSTORABLE_MESSAGE, unstorablePath } from '../schema/common/storable.ts';
import { validationError, type ErrorDetails } from '../errors.ts';
import { toGraphQLError } from './errors.ts';

/** The refusal of the first string or number literal of the document that would not be taken as written. */
function badLiteral(document: DocumentNode): ErrorDetails | null {
  let found: ErrorDetails | null = null;
  const number = (node: { value: string }) => {
    if (!getUnsafeNumberReason(node.value)) return undefined;
    found = { query: [`holds the number ${node.value.slice(0, 40)}, which cannot be held exactly`] };
    return BREAK;
  };
  visit(document, {
    StringValue(node) {
      if (isStorable(node.value)) return undefined;
      found = { query: [UNSTORABLE_MESSAGE] };
      return BREAK;
    },
    IntValue: number,
    FloatValue: number,
  });
  return found;
}

export const storableInputPlugin: Plugin = {
  onExecute: ({ args, setResultAndStopExecution }) => {
    const path = unstorablePath(args.variableValues ?? {});
    const details = path ? { [path]: [UNSTORABLE_MESSAGE] } : badLiteral(args.document);
    if (details) setResultAndStopExecution({ errors: [toGraphQLError(validationError(details))] });
  },
};
