// Runs a batch: every operation in order, each answered on its own (index, status, id, error).
// - Not atomic: each operation runs in a savepoint; one that fails is rolled back alone and the
//   others stay. Operations commit in chunks of 25, so other requests get the database between them.
// - Atomic: the first failure rolls everything back; the operations that did not fail are answered
//   `424 failed_dependency`.
// - Dry run: the same, in a transaction that is always rolled back, so the answers say exactly what
//   would happen (ids of records a create would make are left out), and nothing is written.
// Each applied operation writes its record's normal events, through the resource's own writes.
import type { z } from 'zod';
import { AppError, httpStatus, internalError, type ErrorDetails } from '../../errors.ts';
import { isDeadlock, isUniqueViolation } from '../../db/errors.ts';
import type { Prisma } from '../../db/generated/client/client.ts';
import type { SqlQuery } from '../../db/sql.ts';
import { withRefusals, type Refusals } from '../../db/transaction.ts';
import { issuesToDetails } from '../common/validation.ts';
import type { Context } from '../context.ts';
import type { ErrorInfo } from '../common/error-info.type.ts';
import type { BatchInput, BatchOp, BatchOperation } from './batch.inputs.ts';

type Tx = Prisma.TransactionClient;

/** How a batch reaches one resource: its inputs and its writes, each run inside the batch's transaction. */
export interface BatchResource<Create, Update> {
  /** For messages: `contact`. */
  noun: string;
  createInput: z.ZodType<Create>;
  updateInput: z.ZodType<Update>;
  /**
   * Reads what the operations name before the transaction opens (users, definitions, companies),
   * so checks inside it find them in the request's loaders: PGlite has one connection, and a read
   * beside an open transaction would wait for it.
   */
  prepare(ctx: Context, data: Record<string, unknown>[]): Promise<void>;
  /** The id of the record whose `key` (an upsert key, or `id`) holds `value`, if any. */
  find(tx: Tx, ctx: Context, key: string, value: string): Promise<string | null>;
  create(tx: Tx, ctx: Context, input: Create): Promise<{ id: string }>;
  update(tx: Tx, ctx: Context, id: string, input: Update): Promise<{ id: string }>;
  remove(tx: Tx, ctx: Context, id: string): Promise<void>;
  /** Unique keys of the resource that a create or update can collide on, other than id. */
  uniqueKeys: readonly string[];
  /** What a refusal of the database means for one operation. */
  refusals: Refusals;
  /**
   * The batch decided in memory and written in a few set-based statements, when the resource can
   * (null: this batch must run one operation at a time).
   */
  plan?(ctx: Context, operations: BatchOperation[]): Promise<BatchPlan | null>;
}

/** What one operation does, or why it cannot. */
export type Outcome = { status: number; id: string; created: boolean } | AppError;

export interface BatchPlan {
  /** One per operation, in order. */
  outcomes: Outcome[];
  /**
   * Writes the operations that succeed, in one transaction on the driver itself (db/sql.ts);
   * throws PlanOutdated (rolling it back) when a record changed since it was read.
   */
  write(query: SqlQuery): Promise<void>;
}

export interface BatchResult {
  index: number;
  op: BatchOp | null;
  status: number;
  id: string | null;
  error: ErrorInfo | null;
}

export interface BatchAnswer {
  results: BatchResult[];
  applied: number;
  failed: number;
  created: number;
  dry_run: boolean;
}

/** Operations per transaction of a batch that is neither atomic nor a dry run. */
const CHUNK = 25;

/** A plan's write found a record changed since the plan read it: rolled back, the batch runs one by one. */
export class PlanOutdated extends Error {}

/** Rolls a dry run's transaction back once every operation has run. */
class DryRunDone extends Error {}

const errorInfo = (err: AppError): ErrorInfo => ({
  code: err.code,
  message: err.message,
  ...(err.details ? { details: err.details } : {}),
});

export function invalid(details: ErrorDetails, message = 'The operation has invalid fields'): AppError {
  return new AppError('validation_error', message, details);
}

/** The operation's data, checked against what its kind needs, or the operation's own 400. */
export function dataOf<T>(schema: z.ZodType<T>, op: BatchOperation): T {
  const parsed = schema.safeParse(op.data ?? {});
  if (!parsed.success) throw invalid(issuesToDetails(parsed.error.issues, 'data.'));
  return parsed.data;
}

function requireId(op: BatchOperation): string {
  if (!op.id) throw invalid({ id: [`is required for ${op.op}`] });
  return op.id;
}

/** A unique value the data sets that another record of the workspace already holds: a 409 naming it. */
async function assertFree<C, U>(
  tx: Tx,
  ctx: Context,
  resource: BatchResource<C, U>,
  data: Record<string, unknown>,
  self: string | null,
): Promise<void> {
  for (const key of resource.uniqueKeys) {
    const value = data[key];
    if (typeof value !== 'string') continue;
    const holder = await resource.find(tx, ctx, key, value);
    if (holder && holder !== self)
      throw new AppError('conflict', `A ${resource.noun} with this ${key} already exists`, {
        [key]: ['is already taken'],
        existing_id: holder,
      } as ErrorDetails);
  }
}

async function apply<C, U>(
  tx: Tx,
  ctx: Context,
  resource: BatchResource<C, U>,
  op: BatchOperation,
): Promise<{ status: number; id: string; created: boolean }> {
  switch (op.op) {
    case undefined:
      throw invalid({ op: ['is required: create, update, upsert or delete'] });
    case 'create': {
      const input = dataOf(resource.createInput, op);
      await assertFree(tx, ctx, resource, input as Record<string, unknown>, null);
      return { status: 201, id: (await resource.create(tx, ctx, input)).id, created: true };
    }
    case 'update': {
      const id = requireId(op);
      const input = dataOf(resource.updateInput, op);
      if (!(await resource.find(tx, ctx, 'id', id))) throw new AppError('not_found', `${title(resource)} not found`);
      await assertFree(tx, ctx, resource, input as Record<string, unknown>, id);
      return { status: 200, id: (await resource.update(tx, ctx, id, input)).id, created: false };
    }
    case 'upsert': {
      const key = op.upsert_by;
      if (!key) throw invalid({ upsert_by: ['is required for upsert'] });
      const value = (op.data as Record<string, unknown> | undefined)?.[key];
      if (typeof value !== 'string' || value.trim() === '')
        throw invalid({ [`data.${key}`]: ['is required for an upsert by it'] });
      // Matched as stored: the create input normalises the key (emails lower case, domains bare).
      const keyed = dataOf(resource.updateInput, op) as Record<string, unknown>;
      const existing = await resource.find(tx, ctx, key, String(keyed[key]));
      if (existing) {
        await assertFree(tx, ctx, resource, keyed, existing);
        return { status: 200, id: (await resource.update(tx, ctx, existing, keyed as U)).id, created: false };
      }
      const input = dataOf(resource.createInput, op);
      await assertFree(tx, ctx, resource, input as Record<string, unknown>, null);
      return { status: 201, id: (await resource.create(tx, ctx, input)).id, created: true };
    }
    case 'delete': {
      const id = requireId(op);
      if (!(await resource.find(tx, ctx, 'id', id))) throw new AppError('not_found', `${title(resource)} not found`);
      await resource.remove(tx, ctx, id);
      return { status: 200, id, created: false };
    }
  }
}

const title = (r: { noun: string }) => r.noun[0].toUpperCase() + r.noun.slice(1);

/** An operation's failure as its answer; anything not a client's error is the service's fault (a 500). */
function failure(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (isUniqueViolation(err)) return new AppError('conflict', 'A record with these values already exists');
  return internalError(err);
}

/**
 * Statements to run in the transaction that commits a batch's writes, after them, given the
 * answers: the whole batch then commits in that one transaction (imports keep their progress so).
 * Its failure, or the database's, rolls the batch back and is thrown.
 */
export type BatchCommit = (query: SqlQuery, results: readonly BatchResult[]) => Promise<void>;

export async function runBatch<C, U>(
  ctx: Context,
  resource: BatchResource<C, U>,
  input: BatchInput,
  commit?: BatchCommit,
): Promise<BatchAnswer> {
  const { operations, dry_run: dryRun, atomic } = input;
  await resource.prepare(
    ctx,
    operations.map((o) => (o.data ?? {}) as Record<string, unknown>),
  );
  const results: BatchResult[] = operations.map((o, index) => ({
    index,
    op: o.op ?? null,
    status: 0,
    id: null,
    error: null,
  }));
  const planned = resource.plan ? await runPlan(ctx, resource, operations, results, dryRun, atomic, commit) : null;
  if (planned) return planned;
  const run = (from: number, to: number) => async (tx: Tx) => {
    for (let index = from; index < to; index++) {
      const op = operations[index];
      const result = results[index];
      if (!atomic) await tx.$executeRawUnsafe('SAVEPOINT batch_operation');
      try {
        const done = await withRefusals(resource.refusals, () => apply(tx, ctx, resource, op));
        if (!atomic) await tx.$executeRawUnsafe('RELEASE SAVEPOINT batch_operation');
        result.status = done.status;
        result.id = dryRun && done.created ? null : done.id;
      } catch (err) {
        const error = failure(err);
        if (error.code === 'internal_error' || error.code === 'service_unavailable') throw err;
        result.status = 0;
        result.error = errorInfo(error);
        if (atomic) throw new AtomicFailure(index, error);
        await tx.$executeRawUnsafe('ROLLBACK TO SAVEPOINT batch_operation');
      }
    }
    if (dryRun) throw new DryRunDone();
    if (commit) await commit(prismaQuery(tx), results);
  };
  try {
    // All or nothing (and a dry run, rolled back whole) is one transaction. Otherwise operations
    // commit in chunks, so a batch of slow writes does not hold the database (on PGlite, its one
    // connection) from every other request for its whole length.
    const chunk = atomic || dryRun || commit ? operations.length : CHUNK;
    for (let from = 0; from < operations.length; from += chunk) {
      const to = Math.min(from + chunk, operations.length);
      try {
        await ctx.prisma.$transaction(run(from, to), { timeout: 120_000, maxWait: 10_000 });
      } catch (err) {
        if (atomic || dryRun || commit) throw err;
        // The database failed (unreachable, a fault): this chunk was rolled back and the rest is
        // not run. Each says so; the chunks before it stay applied, as their answers say.
        const error = errorInfo(failure(err));
        for (let i = from; i < operations.length; i++) Object.assign(results[i], { id: null, error });
        break;
      }
    }
  } catch (err) {
    if (err instanceof AtomicFailure) {
      forgetRolledBackHolder(results, err.index);
      for (const r of results)
        if (r.index !== err.index) {
          r.id = r.status === 201 ? null : r.id;
          r.error = errorInfo(
            new AppError(
              'failed_dependency',
              r.index < err.index
                ? `Rolled back: operation ${err.index} failed and the batch is atomic`
                : `Not run: operation ${err.index} failed and the batch is atomic`,
            ),
          );
        }
    } else if (!(err instanceof DryRunDone)) throw err;
  }
  for (const r of results) if (r.error) r.status = httpStatus(r.error.code);
  const failed = results.filter((r) => r.error).length;
  return {
    results,
    applied: dryRun ? 0 : results.length - failed,
    failed,
    created: dryRun ? 0 : results.filter((r) => !r.error && r.status === 201).length,
    dry_run: dryRun,
  };
}

/** The batch by the resource's plan; null when it must run one operation at a time. */
async function runPlan<C, U>(
  ctx: Context,
  resource: BatchResource<C, U>,
  operations: BatchOperation[],
  results: BatchResult[],
  dryRun: boolean,
  atomic: boolean,
  commit: BatchCommit | undefined,
): Promise<BatchAnswer | null> {
  const plan = await resource.plan!(ctx, operations);
  if (!plan) return null;
  const failedAt = plan.outcomes.findIndex((o) => o instanceof AppError);
  const rolledBack = atomic && failedAt >= 0;
  plan.outcomes.forEach((o, i) => {
    const r = results[i];
    if (o instanceof AppError) {
      r.status = httpStatus(o.code);
      r.error = errorInfo(o);
    } else if (rolledBack) {
      r.status = 424;
      r.error = errorInfo(
        new AppError('failed_dependency', `Not applied: operation ${failedAt} failed and the batch is atomic`),
      );
    } else {
      r.status = o.status;
      r.id = dryRun && o.created ? null : o.id;
    }
  });
  const failed = results.filter((r) => r.error).length;
  if (dryRun || rolledBack) return { results, applied: 0, failed, created: 0, dry_run: dryRun };
  let written = true;
  try {
    await ctx.sql.transaction(async (query) => {
      await plan.write(query);
      if (commit) await commit(query, results);
    });
  } catch (err) {
    // Another writer came between: it changed a record the plan read, took a key the plan found
    // free, or locked rows in the other order (a deadlock PostgreSQL broke by ending this
    // transaction). One by one, each operation is answered for itself.
    if (err instanceof PlanOutdated || isUniqueViolation(err) || isDeadlock(err)) written = false;
    else throw err;
  }
  if (!written) {
    for (const r of results) Object.assign(r, { status: 0, id: null, error: null });
    return null;
  }
  const created = plan.outcomes.filter((o) => !(o instanceof AppError) && o.created).length;
  return { results, applied: results.length - failed, failed, created, dry_run: false };
}

/**
 * A conflict with a record an earlier operation of this atomic batch created names that operation
 * instead of the record: rolled back, the record does not exist.
 */
function forgetRolledBackHolder(results: BatchResult[], failedAt: number): void {
  const error = results[failedAt].error;
  const holder = (error?.details as Record<string, unknown> | undefined)?.existing_id;
  const maker = results.find((r) => r.index < failedAt && r.status === 201 && r.id === holder);
  if (!error || !maker) return;
  const { existing_id: _gone, ...details } = error.details as Record<string, unknown>;
  results[failedAt].error = {
    ...error,
    message: `${error.message}: operation ${maker.index} of this batch took it, and was rolled back`,
    details: details as ErrorInfo['details'],
  };
}

/** Plain SQL in a Prisma transaction, for a BatchCommit. */
function prismaQuery(tx: Tx): SqlQuery {
  return <R>(text: string, params: unknown[] = []) => tx.$queryRawUnsafe<R[]>(text, ...params);
}

class AtomicFailure extends Error {
  constructor(
    readonly index: number,
    readonly error: AppError,
  ) {
    super(error.message);
  }
}
