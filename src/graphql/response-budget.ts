// The backstop behind the cost analysis: what an operation over /graphql (HTTP or WebSocket) puts in
// its answer is counted while it runs, in bytes of JSON (exactly for texts: escapes and UTF-8
// included, see json-bytes.ts; keys and punctuation about), and an answer that grows past the
// budget is cut: what is left of the operation resolves to nothing (no further resolver or SQL
// runs), and the client gets one coded error and no data. It catches what the cost can only
// estimate: lists without a `limit` that hold more than their estimate (a deal with thousands of
// stage moves), texts whose JSON is larger than their length, and JSON values (custom fields,
// event payloads) far larger than usual.
//
// The same count grows the operation's reservation in the answer pool (answer-pool.ts) when the
// answer turns out larger than estimated; with no room left it is cut with a retryable 503. An
// operation whose client has gone (its socket closed, its HTTP request aborted) is abandoned: its
// remaining fields resolve to nothing.
//
// It works on yoga's own copy of the schema, each field's resolver wrapped; REST runs its fixed
// operations on the original schema and counts its answers once resolved (rest/router.ts). Each
// operation, and each event of a subscription, has its own count.
import { MapperKind, mapSchema } from '@graphql-tools/utils';
import {
  defaultFieldResolver,
  getNamedType,
  GraphQLError,
  isLeafType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { canonicalPath, runsCompiled } from './compiled-execution.ts';
import { extensionsOf } from './errors.ts';
import { REFUSED } from './limits.ts';
import { ANSWER_RETRY_AFTER_SECONDS, type Reservation } from '../http/answer-pool.ts';
import { jsonBytes, jsonStringBytes } from '../http/json-bytes.ts';

/** The error that cuts an answer; kept apart so the result can be replaced by it alone. */
class ResponseTooLarge extends GraphQLError {
  constructor(maxBytes: number) {
    super(`The answer would be larger than ${maxBytes} bytes; ask for smaller pages, fewer fields or fewer aliases`, {
      extensions: { ...extensionsOf({ code: 'validation_error' }), http: REFUSED },
    });
  }
}

/** The error that cuts an answer the answer pool has no room for. */
export class AnswerPoolFull extends GraphQLError {
  constructor(
    message = `The server is busy with large answers; retry in ${ANSWER_RETRY_AFTER_SECONDS} s, ` +
      'or ask for smaller pages',
  ) {
    super(message, {
      extensions: {
        ...extensionsOf({ code: 'service_unavailable', retryAfter: ANSWER_RETRY_AFTER_SECONDS }),
        http: { status: 503, headers: { 'Retry-After': String(ANSWER_RETRY_AFTER_SECONDS) } },
      },
    });
  }
}

interface Count {
  bytes: number;
  /** Set once the answer is over the budget, or its client has gone: nothing more resolves. */
  cut: boolean;
  /** The operation's share of the answer pool, grown as the answer is counted. */
  reservation?: Reservation;
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

/** Counts this operation's answer against its reservation in the answer pool. */
export function holdReservation(context: object, reservation: Reservation): void {
  countOf(context, undefined, false)!.reservation = reservation;
}

/** The bytes an operation holds in the answer pool (0 when it holds none). */
export const reservedBytesOf = (context: object): number => counts.get(context)?.reservation?.bytes ?? 0;

/** Whether an operation was stopped (its client gone, or its answer over the budget). */
export const stopped = (context: object): boolean => counts.get(context)?.cut ?? false;

/** Stops an operation whose client has gone: its remaining fields resolve to nothing. */
export function abandon(context: object): void {
  countOf(context, undefined, false)!.cut = true;
}

/**
 * Bytes of a value in the JSON answer: texts and JSON values exactly,
 * objects and lists by their punctuation (their fields count themselves).
 */
function sizeOf(value: unknown, leaf: boolean): number {
  if (typeof value === 'string') return jsonStringBytes(value);
  if (leaf) return jsonBytes(value);
  if (Array.isArray(value)) return 2 + value.length;
  return value === null || value === undefined ? 4 : 2;
}

/** Room the pool is asked for at a time beyond what the answer has counted, so it is not asked at every field. */
const GROWTH_STEP = 256 * 1024;

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
          if (!leaf && runsCompiled(context))
            (info as { path: unknown }).path = canonicalPath(context as object, info.path);
          const count = countOf(context, info.rootValue, info.operation.operation === 'subscription');
          if (!count) return resolve(source, args, context, info);
          if (count.cut) return null;
          const charge = (value: unknown) => {
            count.bytes += overhead + sizeOf(value, leaf);
            if (count.bytes > maxBytes) {
              count.cut = true;
              throw new ResponseTooLarge(maxBytes);
            }
            const held = count.reservation;
            if (held && count.bytes > held.bytes && !held.growTo(Math.min(maxBytes, count.bytes + GROWTH_STEP))) {
              count.cut = true;
              throw new AnswerPoolFull();
            }
            return value;
          };
          const value = resolve(source, args, context, info);
          return isPromise(value) ? value.then(charge) : charge(value);
        },
      };
    },
  });
}

type Result = { errors?: readonly GraphQLError[]; data?: unknown };

const cuts = (e: unknown): boolean => e instanceof ResponseTooLarge || e instanceof AnswerPoolFull;

/** An answer that was cut is the error alone: partial data of a cut answer would be misleading. */
function cutAnswer(result: Result): Result | undefined {
  const cut = result.errors?.find((e) => cuts(e) || cuts(e.originalError));
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
