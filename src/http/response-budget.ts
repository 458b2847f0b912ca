// The backstop behind the cost analysis: what an operation over /graphql (HTTP or WebSocket) puts in
// its answer is counted while it runs, in bytes of JSON (about), and an answer that grows past
// the budget is cut: what is left of the operation resolves to nothing (no further resolver or
// SQL runs), and the client gets one coded error and no data. It catches what the cost can only
// estimate: lists without a `limit` that hold more than their estimate (a deal with thousands of
// stage moves), and JSON values (custom fields, event payloads) far larger than usual.
//
// It works on yoga's own copy of the schema, each field's resolver wrapped; REST runs its fixed
// operations on the original schema and is not counted. Each operation, and each event of a
// subscription, has its own count.
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import { defaultFieldResolver, getNamedType, GraphQLError, isLeafType, type GraphQLFieldResolver, type GraphQLSchema } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { REFUSED } from './graphql-limits.ts';

/** The error that cuts an answer; kept apart so the result can be replaced by it alone. */
class ResponseTooLarge extends GraphQLError {
  constructor(maxBytes: number) {
    super(`The answer would be larger than ${maxBytes} bytes; ask for smaller pages, fewer fields or fewer aliases`, {
      extensions: { code: 'validation_error', status: 400, http: REFUSED },
    });
  }
}

interface Count {
  bytes: number;
  cut: boolean;
}

const counts = new WeakMap<object, Count>();

/** An operation's count: per context, and per event of a subscription (its root value). */
function countOf(context: unknown, root: unknown, subscription: boolean): Count | undefined {
  const key = subscription && root && typeof root === 'object' ? root : context;
  if (!key || typeof key !== 'object') return undefined;
  let count = counts.get(key);
  if (!count) counts.set(key, (count = { bytes: 0, cut: false }));
  return count;
}

/** About the bytes of a value in the JSON answer. */
function sizeOf(value: unknown, leaf: boolean): number {
  if (value === null || value === undefined) return 4;
  if (typeof value === 'string') return value.length + 2;
  if (typeof value === 'number' || typeof value === 'boolean') return 8;
  if (Array.isArray(value)) {
    if (!leaf) return 2 + value.length;
    let total = 2;
    for (const item of value) total += sizeOf(item, true) + 1;
    return total;
  }
  if (value instanceof Date) return 26;
  return leaf ? (JSON.stringify(value)?.length ?? 4) : 2;
}

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as Promise<unknown>)?.then === 'function';

/** A copy of the schema whose resolvers count what they add to the answer and stop at maxBytes. */
export function withResponseBudget(schema: GraphQLSchema, maxBytes: number): GraphQLSchema {
  return mapSchema(schema, {
    [MapperKind.OBJECT_FIELD]: (field, fieldName) => {
      const resolve: GraphQLFieldResolver<unknown, unknown> = field.resolve ?? defaultFieldResolver;
      const leaf = isLeafType(getNamedType(field.type));
      const overhead = fieldName.length + 4;
      return {
        ...field,
        resolve(source, args, context, info) {
          const count = countOf(context, info.rootValue, info.operation.operation === 'subscription');
          if (!count) return resolve(source, args, context, info);
          if (count.cut) return null;
          const charge = (value: unknown) => {
            count.bytes += overhead + sizeOf(value, leaf);
            if (count.bytes <= maxBytes) return value;
            count.cut = true;
            throw new ResponseTooLarge(maxBytes);
          };
          const value = resolve(source, args, context, info);
          return isPromise(value) ? value.then(charge) : charge(value);
        },
      };
    },
  });
}

type Result = { errors?: readonly GraphQLError[]; data?: unknown };

/** An answer that was cut is the error alone: partial data of a cut answer would be misleading. */
function cutAnswer(result: Result): Result | undefined {
  const cut = result.errors?.find((e) => e instanceof ResponseTooLarge || e.originalError instanceof ResponseTooLarge);
  return cut ? { errors: [cut] } : undefined;
}

/** Replaces cut answers (of operations and of each subscription event) by their error. */
export const responseBudgetPlugin: Plugin = {
  onExecute: () => ({
    onExecuteDone: ({ result, setResult }) => {
      if (!result || Symbol.asyncIterator in result) return;
      const cut = cutAnswer(result as Result);
      if (cut) setResult(cut as never);
    },
  }),
  onSubscribe: () => ({
    onSubscribeResult: () => ({
      onNext: ({ result, setResult }) => {
        const cut = cutAnswer(result as Result);
        if (cut) setResult(cut as never);
      },
    }),
  }),
};
