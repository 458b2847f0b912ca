// Runs import jobs in the background, on every process that runs the webhook worker. A worker
// takes a job with a lease it keeps renewing; a worker that dies leaves the lease to run out, and
// the next one to take the job resumes it. Rows go in batches through the resources' batch writes
// (the same checks, events and audit entries as POST /v1/<resource>/batch), and each batch commits
// in one transaction with the job's progress — the offset just past its last row, the counts,
// its failed rows — so a resumed job starts exactly after the last committed row: no row twice,
// none lost. The commit also checks the lease is still this worker's and the offset unchanged, so
// a worker that lost its lease (paused past it) cannot write a batch another worker has written.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { assertAllowed, type Resource } from '../auth/scopes.ts';
import type { CredentialChanges } from '../auth/credential-notices.ts';
import type { Database, Db } from '../db/client.ts';
import type { Import } from '../db/generated/client/client.ts';
import type { SqlClient, SqlQuery } from '../db/sql.ts';
import { AppError } from '../errors.ts';
import type { EventBus } from '../events/bus.ts';
import { importCompleted } from '../events/catalogue/import.events.ts';
import { recordEvents } from '../events/outbox.ts';
import { withOrigin, type RequestOrigin } from '../events/origin.ts';
import type { Context } from '../schema/context.ts';
import type { BatchOperation } from '../schema/batch/batch.inputs.ts';
import { runBatch, type BatchResource, type BatchResult } from '../schema/batch/batch.run.ts';
import { companyBatch } from '../schema/company/company.batch.ts';
import { contactBatch } from '../schema/contact/contact.batch.ts';
import { definitionsLoader } from '../schema/custom-field/custom-field.loader.ts';
import { dealBatch } from '../schema/deal/deal.batch.ts';
import { IMPORT_ROW_MAX_BYTES } from '../schema/import/import.create.ts';
import type { WebhookServices } from '../webhooks/services.ts';
import type { ImportResource } from '../records/import.ts';
import { importActor, importCaller } from './import-caller.ts';
import { readFile } from './import-file.ts';
import { importFields } from './import-fields.ts';
import { readRows, type ImportRow, type RowReader } from './read-rows.ts';
import { splitRecords, type RawRecord } from './split-records.ts';

const RESOURCES: Record<ImportResource, BatchResource<unknown, unknown>> = {
  contacts: contactBatch as BatchResource<unknown, unknown>,
  companies: companyBatch as BatchResource<unknown, unknown>,
  deals: dealBatch as BatchResource<unknown, unknown>,
};

/**
 * Rows per batch: contacts are written set-based, 1,000 at a time like the batch API; companies
 * and deals one by one, so their batches are smaller and hold the database (on PGlite, its one
 * connection) for less time.
 */
const BATCH_ROWS: Record<ImportResource, number> = { contacts: 1000, companies: 200, deals: 200 };

/**
 * Batches of one job written at once: on PostgreSQL one is written while the next is read and
 * prepared, using both the database's and the process's time; PGlite's one connection writes one at a time.
 */
const batchesInFlight = (kind: Database['kind']) => (kind === 'pglite' ? 1 : 2);

export interface ImportRunnerOptions {
  prisma: Db;
  sql: SqlClient;
  logger: Logger;
  bus: EventBus;
  webhooks: WebhookServices;
  credentials: CredentialChanges;
  /** Pause when there is no job to take. */
  pollMs: number;
  /** How long a job stays a worker's without renewal; a dead worker's job waits this long. */
  leaseMs: number;
  /** The database is this process's alone (PGlite): a job left running was this process's, and resumes at once. */
  exclusive: boolean;
  /** Batches of one job written at once (1 on PGlite, whose one connection writes one at a time). */
  batchesInFlight: number;
}

/** Tries of one job that end in an unexpected error before it is ended as failed. */
const MAX_FAILURES = 5;

/** This worker's lease on the job ended (it was paused past it): another worker has the job. */
class LeaseLost extends Error {}

/** The job must stop: its key was revoked, its user deactivated, or it lost the permission. */
class JobStopped extends Error {
  constructor(readonly error: AppError) {
    super(error.message);
  }
}

export class ImportRunner {
  private stopping = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly opts: ImportRunnerOptions) {}

  start(): void {
    this.loop = this.run().catch((err: unknown) => this.opts.logger.error({ err }, 'import runner stopped'));
  }

  /** Takes a queued job now instead of at the next poll. */
  nudge(): void {
    this.wake?.();
  }

  /** Stops after the batch under way; the job's lease is given up, so a worker resumes it at once. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  private async run(): Promise<void> {
    if (this.opts.exclusive)
      await this.opts.sql.query(`UPDATE imports SET lease_until = NULL, lease_token = NULL WHERE status = 'running'`);
    while (!this.stopping) {
      let job: Import | null = null;
      let failed = false;
      try {
        job = await this.claim();
        if (job) await this.runJob(job);
      } catch (err) {
        failed = true;
        if (job) await this.interrupted(job, err);
        else this.opts.logger.error({ err }, 'import runner could not take a job');
      }
      // Nothing to do, or an error: a pause before the next try, never a loop at full speed.
      if ((!job || failed) && !this.stopping)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, this.opts.pollMs);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      this.wake = null;
    }
  }

  /** Consecutive unexpected failures per job, in this process. */
  private failures = new Map<string, number>();

  /**
   * A job that failed for no reason of its rows (the database went away, a fault): given up for a
   * later try, and after MAX_FAILURES tries in a row ended as failed, so one bad job cannot hold
   * the runner for ever.
   */
  private async interrupted(job: Import, err: unknown): Promise<void> {
    const count = (this.failures.get(job.id) ?? 0) + 1;
    this.failures.set(job.id, count);
    this.opts.logger.error({ err, importId: job.id, failures: count }, 'import job interrupted');
    if (count >= MAX_FAILURES) {
      this.failures.delete(job.id);
      const stopped = new AppError(
        'internal_error',
        `The import stopped after ${count} failed tries at the same place; the rows before it are imported`,
      );
      if (
        await this.finish(job, stopped).then(
          () => true,
          () => false,
        )
      )
        return;
    }
    await this.release(job).catch(() => {});
  }

  /** The oldest job no live worker holds, leased to this one; uploads abandoned a day ago are dropped. */
  private async claim(): Promise<Import | null> {
    const { sql, prisma, leaseMs } = this.opts;
    await sql.query(`DELETE FROM imports WHERE status = 'receiving' AND created_at < now() - interval '1 day'`);
    const token = randomUUID();
    const [claimed] = await sql.query<{ id: string }>(
      `UPDATE imports SET status = 'running', lease_token = $1, lease_until = now() + $2 * interval '1 millisecond',
        started_at = coalesce(started_at, now()), updated_at = now()
      WHERE id = (SELECT id FROM imports WHERE status IN ('queued', 'running')
          AND (lease_until IS NULL OR lease_until < now())
        ORDER BY created_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id`,
      [token, leaseMs],
    );
    return claimed ? prisma.import.findUnique({ where: { id: claimed.id } }) : null;
  }

  private async release(job: Import): Promise<void> {
    await this.opts.sql.query(
      `UPDATE imports SET lease_until = NULL, lease_token = NULL, updated_at = now()
      WHERE id = $1 AND lease_token = $2`,
      [job.id, job.leaseToken],
    );
  }

  private async runJob(job: Import): Promise<void> {
    const { logger, leaseMs, sql } = this.opts;
    logger.info({ importId: job.id, resource: job.resource, fromRow: job.rowsRead + 1 }, 'import job running');
    // The lease is renewed while the job runs, however long one batch takes.
    const renew = setInterval(
      () =>
        void sql
          .query(
            `UPDATE imports SET lease_until = now() + $3 * interval '1 millisecond' WHERE id = $1 AND lease_token = $2`,
            [job.id, job.leaseToken, leaseMs],
          )
          .catch(() => {}),
      Math.max(1_000, leaseMs / 3),
    );
    try {
      await withOrigin(job.origin as unknown as RequestOrigin, () => this.readAll(job));
    } catch (err) {
      if (err instanceof LeaseLost) logger.warn({ importId: job.id }, 'import job taken over by another worker');
      else if (err instanceof JobStopped) await this.finish(job, err.error);
      else throw err;
    } finally {
      clearInterval(renew);
    }
  }

  /** The context the job writes with: its caller as it is now (null when it may no longer write). */
  private async contextOf(job: Import): Promise<Context> {
    const caller = await importCaller(this.opts.prisma, job);
    try {
      assertAllowed(caller, job.resource as Resource, 'write');
    } catch (err) {
      throw new JobStopped(err as AppError);
    }
    const { prisma, sql, bus, webhooks, credentials } = this.opts;
    const origin = job.origin as unknown as RequestOrigin;
    return { prisma, sql, bus, webhooks, credentials, caller, requestId: origin.requestId ?? job.id, warnings: [] };
  }

  private async readAll(job: Import): Promise<void> {
    const resource = job.resource as ImportResource;
    const ctx = await this.contextOf(job).catch(stopWith);
    const defs = await definitionsLoader(ctx).load(ctx.caller.accountId);
    const reader: RowReader = {
      format: job.format as 'csv' | 'jsonl',
      columns: (job.columns as string[] | null) ?? [],
      mapping: job.mapping as Record<string, string> | null,
      fields: importFields(resource, defs),
      maxBytes: IMPORT_ROW_MAX_BYTES,
    };
    const records = splitRecords(readFile(this.opts.sql, job.id, Number(job.bytesDone)), {
      csv: job.format === 'csv',
      offset: Number(job.bytesDone),
      line: job.linesDone + 1,
      maxBytes: IMPORT_ROW_MAX_BYTES,
    });
    let progress: Progress = { bytesDone: Number(job.bytesDone), linesDone: job.linesDone, row: job.rowsRead + 1 };
    const clock = { at: performance.now() };
    // Batches in flight: each writes while the next is read, and commits after the one before it.
    const inFlight = new Set<InFlight>();
    let previous: Promise<void> = Promise.resolve();
    let failure: unknown = null;
    const settle = async () => {
      await Promise.race([...inFlight].map((f) => f.settled));
    };
    const launch = async (batch: RawRecord[]) => {
      // PGlite runs in this thread, and its statements resolve without any I/O: without a turn
      // of the event loop between batches, requests that arrive during an import would not even
      // be read until it ends.
      await new Promise((resolve) => setImmediate(resolve));
      if (this.stopping) throw new Stopping();
      // Each batch writes as the caller is now: a revoked key or a lost permission stops the job.
      const ctx = await this.contextOf(job).catch(stopWith);
      const rows = readRows(reader, batch, progress.row);
      const keys = uniqueKeys(rows);
      // Two batches in flight never write the same record (or take the same unique value), so
      // neither waits for a lock the other holds while it waits for the other to commit first.
      while (inFlight.size >= this.opts.batchesInFlight || [...inFlight].some((f) => overlaps(f.keys, keys)))
        await settle();
      if (failure) throw failure;
      const after = previous;
      const from = progress;
      progress = nextProgress(from, rows);
      const written = this.writeBatch(ctx, job, rows, from, progress, after, clock);
      const entry: InFlight = {
        keys,
        settled: written.then(
          () => {},
          () => {},
        ),
      };
      inFlight.add(entry);
      previous = written;
      written.then(
        () => inFlight.delete(entry),
        (err: unknown) => {
          inFlight.delete(entry);
          failure ??= err;
        },
      );
    };
    try {
      let batch: RawRecord[] = [];
      for await (const record of records) {
        if (failure) break;
        batch.push(record);
        if (batch.length >= BATCH_ROWS[resource]) {
          await launch(batch);
          batch = [];
        }
      }
      if (batch.length && !failure) await launch(batch);
    } catch (err) {
      failure ??= err;
    }
    while (inFlight.size) await settle();
    if (failure instanceof Stopping) return this.release(job);
    if (failure) throw failure;
    await this.finish(job, null);
  }

  /**
   * Writes one batch, committing it with the job's progress from `from` to `to` once `after` (the
   * batch before it) has committed: a batch that fails, or whose predecessor failed, is rolled back.
   */
  private async writeBatch(
    ctx: Context,
    job: Import,
    rows: ImportRow[],
    from: Progress,
    to: Progress,
    after: Promise<void>,
    clock: { at: number },
  ): Promise<void> {
    const valid = rows.filter((r) => r.data);
    // A contact an import creates came in by import (the spec's source), unless its row says otherwise.
    const sourced = (data: Record<string, unknown>) =>
      job.resource === 'contacts' && data.source === undefined ? { ...data, source: 'import' } : data;
    const operations: BatchOperation[] = valid.map((r) =>
      job.mode === 'upsert'
        ? { op: 'upsert', upsert_by: job.upsertBy!, data: r.data! }
        : { op: 'create', data: sourced(r.data!) },
    );
    const commit = async (query: SqlQuery, results: readonly BatchResult[]) => {
      await after;
      results.forEach((result, i) => (valid[i].error = result.error ? describe(result) : null));
      const failed = rows.filter((r) => r.error);
      const created = results.filter((r) => !r.error && r.status === 201).length;
      const now = performance.now();
      const seconds = (now - clock.at) / 1000;
      const updated = await query(
        `UPDATE imports SET bytes_done = $3, lines_done = $4, rows_read = rows_read + $5,
          rows_written = rows_written + $6, rows_failed = rows_failed + $7, rows_created = rows_created + $8,
          run_seconds = run_seconds + $9, updated_at = now()
        WHERE id = $1 AND lease_token = $2 AND bytes_done = $10 RETURNING id`,
        [
          job.id,
          job.leaseToken,
          to.bytesDone,
          to.linesDone,
          rows.length,
          rows.length - failed.length,
          failed.length,
          created,
          seconds,
          from.bytesDone,
        ],
      );
      if (!updated.length) throw new LeaseLost();
      clock.at = now;
      if (failed.length)
        await query(
          `INSERT INTO import_failed_rows (import_id, row, line, cells, error)
          SELECT $1, r.row, r.line, r.cells, r.error
          FROM jsonb_to_recordset($2::jsonb) AS r("row" int, line int, cells jsonb, error text)`,
          [job.id, JSON.stringify(failed.map(({ row, line, cells, error }) => ({ row, line, cells, error })))],
        );
    };
    if (operations.length)
      await runBatch(ctx, RESOURCES[job.resource as ImportResource], batchInput(operations), commit);
    else await this.opts.sql.transaction((query) => commit(query, []));
  }

  /** The job is over: completed, or failed with `error`; its import.completed event is written with it. */
  private async finish(job: Import, error: AppError | null): Promise<void> {
    const { sql, prisma, logger } = this.opts;
    const now = await prisma.import.findUniqueOrThrow({ where: { id: job.id } });
    const over: Import = {
      ...now,
      status: error ? 'failed' : 'completed',
      error: error ? { code: error.code, message: error.message } : null,
      finishedAt: new Date(),
      leaseToken: null,
      leaseUntil: null,
    };
    const actor = await importActor(prisma, job);
    const done = await sql.transaction(async (query) => {
      const [row] = await query<{ id: string }>(
        `UPDATE imports SET status = $3, error = $4::jsonb, finished_at = $5, lease_token = NULL,
          lease_until = NULL, updated_at = now()
        WHERE id = $1 AND lease_token = $2 RETURNING id`,
        [job.id, job.leaseToken, over.status, over.error ? JSON.stringify(over.error) : null, over.finishedAt],
      );
      if (!row) return false;
      // The file is no longer needed: its rows are imported or listed as failed.
      await query('DELETE FROM import_chunks WHERE import_id = $1', [job.id]);
      await recordEvents(query, [{ ...importCompleted.build(over), workspaceId: job.workspaceId, actor }]);
      return true;
    });
    if (done)
      logger.info(
        { importId: job.id, status: over.status, rowsRead: over.rowsRead, rowsFailed: over.rowsFailed },
        'import job over',
      );
  }
}

/** Where a job stands: the offset and line past the last row read, the next row's number. */
interface Progress {
  bytesDone: number;
  linesDone: number;
  row: number;
}

function nextProgress(from: Progress, rows: ImportRow[]): Progress {
  return {
    bytesDone: rows[rows.length - 1].end,
    linesDone: from.linesDone + rows.reduce((n, r) => n + r.lines, 0),
    row: from.row + rows.length,
  };
}

interface InFlight {
  /** The unique values (emails, domains, external ids) its rows write. */
  keys: Set<string>;
  /** Resolves when it committed or failed. */
  settled: Promise<void>;
}

/** Fields whose values are unique in a workspace, as the batch writes normalise them. */
const UNIQUE_FIELDS = ['email', 'domain', 'external_id'] as const;

function uniqueKeys(rows: ImportRow[]): Set<string> {
  const keys = new Set<string>();
  for (const r of rows)
    for (const field of UNIQUE_FIELDS) {
      const value = r.data?.[field];
      if (typeof value === 'string')
        keys.add(
          `${field}:${value
            .trim()
            .toLowerCase()
            .replace(/^www\./, '')}`,
        );
    }
  return keys;
}

function overlaps(a: Set<string>, b: Set<string>): boolean {
  const [small, large] = a.size < b.size ? [a, b] : [b, a];
  for (const k of small) if (large.has(k)) return true;
  return false;
}

/** The job stops at the end of the batch under way: the service is shutting down. */
class Stopping extends Error {}

const stopWith = (err: unknown): never => {
  if (err instanceof AppError) throw new JobStopped(err);
  throw err;
};

function batchInput(operations: BatchOperation[]) {
  return { operations, dry_run: false, atomic: false };
}

/** A row's failure in one line: the message, then each field at fault. */
function describe(result: BatchResult): string {
  const error = result.error!;
  const details = (error.details ?? {}) as Record<string, unknown>;
  const parts = Object.entries(details)
    .filter(([key]) => key !== 'existing_id')
    // The batch's operation holds the row's fields under `data`: the row's own names are wanted here.
    .map(([key, problems]) => {
      const field = key.replace(/^data\./, '');
      return `${field}: ${Array.isArray(problems) ? problems.join('; ') : String(problems)}`;
    });
  const existing = typeof details.existing_id === 'string' ? ` (the existing record is ${details.existing_id})` : '';
  const message = error.code === 'validation_error' ? 'Invalid fields' : error.message;
  return `${message}${parts.length ? `: ${parts.join(', ')}` : ''}${existing}`;
}

/**
 * A runner on `db`, with what every process derives from the database alike: its connections,
 * whether the database is this process's alone, and how many batches may be in flight.
 */
export function importRunnerOf(
  db: Pick<Database, 'prisma' | 'sql' | 'kind'>,
  deps: Pick<ImportRunnerOptions, 'logger' | 'bus' | 'webhooks' | 'credentials' | 'pollMs' | 'leaseMs'> &
    Partial<Pick<ImportRunnerOptions, 'exclusive'>>,
): ImportRunner {
  return new ImportRunner({
    prisma: db.prisma,
    sql: db.sql,
    exclusive: db.kind === 'pglite',
    batchesInFlight: batchesInFlight(db.kind),
    ...deps,
  });
}
