// Subscriptions are streams that outlive the request that opened them, over WebSocket and over
// SSE (yoga answers `Accept: text/event-stream` on /graphql) alike. Every stream is held under its
// credential (see credential-watch.ts) and counted against a cap per credential; when the
// credential ends, or the stream fails, its client gets one last result with a coded error and
// the stream completes (an SSE `next` event with the error, then `complete`, then the response ends).
import { GraphQLError, type ExecutionResult } from 'graphql';
import { isAsyncIterable, Repeater, type Plugin } from 'graphql-yoga';
import type { CredentialWatch } from '../auth/credential-watch.ts';
import { AppError, internalError } from '../errors.ts';
import { toGraphQLError } from './errors.ts';
import type { Context } from '../schema/context.ts';

/** Most subscriptions one key (or one dashboard session) may have open on one instance, over every transport. */
export const MAX_SUBSCRIPTIONS_PER_CREDENTIAL = 100;

function asGraphQLError(err: unknown): GraphQLError {
  const original = err instanceof GraphQLError && err.originalError ? err.originalError : err;
  if (original instanceof AppError) return toGraphQLError(original);
  if (original instanceof GraphQLError) return original;
  return toGraphQLError(internalError(original));
}

/** The stream, ended by its credential's end or its own failure with a last error result instead of an abort. */
function heldStream(
  source: AsyncIterable<ExecutionResult>,
  hold: (end: (err: AppError) => void) => () => void,
): Repeater<ExecutionResult> {
  return new Repeater<ExecutionResult>(async (push, stop) => {
    const it = source[Symbol.asyncIterator]();
    const release = hold((err) => {
      void push({ errors: [toGraphQLError(err)] });
      stop();
    });
    void stop.then(() => {
      release();
      void it.return?.();
    });
    try {
      for (;;) {
        const next = await Promise.race([it.next(), stop]);
        if (!next || next.done) break;
        await push(next.value);
      }
    } catch (err) {
      await push({ errors: [asGraphQLError(err)] });
    }
    stop();
  });
}

export function liveStreamsPlugin(watch: CredentialWatch): Plugin<Context> {
  return {
    onSubscribe({ args, setResultAndStopExecution }) {
      const { caller } = args.contextValue as Context;
      if (watch.count('stream', caller) >= MAX_SUBSCRIPTIONS_PER_CREDENTIAL) {
        const refusal = new AppError(
          'rate_limited',
          `At most ${MAX_SUBSCRIPTIONS_PER_CREDENTIAL} subscriptions may be open at once with one key or sign-in; ` +
            'end one first',
        );
        setResultAndStopExecution({ errors: [toGraphQLError(refusal)] });
        return;
      }
      return {
        onSubscribeResult({ result, setResult }) {
          if (isAsyncIterable(result)) setResult(heldStream(result, (end) => watch.hold('stream', caller, end)));
        },
      };
    },
  };
}
