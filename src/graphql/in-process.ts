// Operations another surface runs in-process through yoga's enveloped pipeline, as the yoga sofa
// plugin does: REST (rest/router.ts) runs each route's operation with `getEnveloped` →
// `contextFactory` → `execute`, so every plugin added to yoga runs for REST too. Such a surface
// makes its own answer from the raw result: it translates errors, reports warnings, sizes the
// answer in the answer pool and counts requests itself. So the plugins of the GraphQL transport
// (document limits and admission, storable input, the response budget, warnings, telemetry) are
// wrapped by `graphqlOnly`, and error masking leaves an in-process operation's errors as they are.
import type { Request, Response } from 'express';
import type { GraphQLError } from 'graphql';
import { isAsyncIterable, type Plugin } from 'graphql-yoga';

/** The server context of an operation run in-process for an HTTP request of another surface. */
export type InProcessContext = { req: Request; res: Response; inProcess: true };

/** Whether the operation's context (yoga merges the server context into it) is an in-process one. */
const inProcess = (context: unknown): boolean => (context as Partial<InProcessContext> | undefined)?.inProcess === true;

/**
 * A plugin of the GraphQL transport: it leaves operations run in-process alone. Only its execute
 * hook needs to: such a surface parses and validates its fixed documents once at start, and runs
 * no subscriptions.
 */
export function graphqlOnly<C extends object>(plugin: Plugin<C>): Plugin<C> {
  const { onExecute } = plugin;
  if (!onExecute) return plugin;
  return { ...plugin, onExecute: (payload) => (inProcess(payload.args.contextValue) ? undefined : onExecute(payload)) };
}

/** Errors of in-process operations: masking (which sees no context) passes them through. */
const unmasked = new WeakSet<GraphQLError>();

export const answeredInProcess = (error: unknown): boolean => unmasked.has(error as GraphQLError);

/** Notes the errors of in-process operations; registered before masking, whose hook runs after it. */
export const inProcessErrorsPlugin: Plugin = {
  onExecute: ({ args }) => {
    if (!inProcess(args.contextValue)) return undefined;
    return {
      onExecuteDone: ({ result }) => {
        if (isAsyncIterable(result)) return;
        for (const error of result.errors ?? []) unmasked.add(error);
      },
    };
  },
};
