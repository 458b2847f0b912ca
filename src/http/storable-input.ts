// GraphQL requests whose text cannot be stored (a NUL character or an unpaired surrogate, in a
// variable or a string literal of the document) are refused before any resolver runs, on every
// transport yoga serves (HTTP, SSE and WebSocket), with the validation error REST gives.
import { BREAK, visit, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { isStorable, UNSTORABLE_MESSAGE, unstorablePath } from '../schema/common/storable.ts';
import { toGraphQLError, validationError } from '../errors.ts';

function unstorableLiteral(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    StringValue(node) {
      if (isStorable(node.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

export const storableInputPlugin: Plugin = {
  onExecute: ({ args, setResultAndStopExecution }) => {
    const path = unstorablePath(args.variableValues ?? {}) ?? (unstorableLiteral(args.document) ? 'query' : null);
    if (path) setResultAndStopExecution({ errors: [toGraphQLError(validationError({ [path]: [UNSTORABLE_MESSAGE] }))] });
  },
};
