// Counts and times GraphQL operations (over HTTP and WebSocket alike, both run through yoga),
// and ties execution errors to their request id for the error log.
import { getOperationAST, type DocumentNode, type ExecutionResult, type GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Metrics } from '../metrics.ts';
import type { Context } from '../schema/context.ts';

/**
 * Error masking (yoga's maskError) logs unexpected errors but sees no context. Execution
 * errors pass through this plugin first (it is registered before masking), which notes each
 * one's request id here.
 */
const requestIds = new WeakMap<GraphQLError, string>();

export function requestIdOf(error: unknown): string | undefined {
  return requestIds.get(error as GraphQLError);
}

function remember(result: ExecutionResult, ctx: Context): void {
  for (const error of result.errors ?? []) requestIds.set(error, ctx.requestId);
}

export function telemetryPlugin(metrics: Metrics): Plugin<Context> {
  const labelsOf = (document: DocumentNode, operationName: string | null | undefined) => {
    const op = getOperationAST(document, operationName);
    return { operation: metrics.operationLabel(op?.name?.value ?? operationName), type: op?.operation ?? 'unknown' };
  };
  return {
    onExecute: ({ args }) => {
      const labels = labelsOf(args.document, args.operationName);
      const stopTimer = metrics.graphqlDuration.startTimer(labels);
      return {
        onExecuteDone: ({ result }) => {
          stopTimer();
          // Incremental delivery (@defer/@stream) is not enabled: results are single.
          if (Symbol.asyncIterator in result) return;
          remember(result, args.contextValue);
          metrics.graphqlOperations.inc({ ...labels, result: result.errors?.length ? 'error' : 'ok' });
        },
      };
    },
    // A subscription lasts as long as its client wants: counted when it starts, never timed.
    onSubscribe: ({ args }) => {
      const labels = labelsOf(args.document, args.operationName);
      return {
        onSubscribeResult: ({ result }) => {
          if (!(Symbol.asyncIterator in result)) {
            remember(result, args.contextValue);
            metrics.graphqlOperations.inc({ ...labels, result: 'error' });
            return;
          }
          metrics.graphqlOperations.inc({ ...labels, result: 'ok' });
          return { onNext: ({ result: event }) => remember(event, args.contextValue) };
        },
      };
    },
  };
}
