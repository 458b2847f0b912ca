// `GET|POST /v1/<resource>/export`: the whole filtered list as one file, read in one snapshot
// (schema/export/export.snapshot.ts) and written page by page, so memory stays flat however many
// records there are.
// - On PostgreSQL the file streams as it is read. A client that stops reading holds the
//   transaction open, so one that reads nothing for EXPORT_STALL_MS is cut off.
// - On the embedded database one transaction holds the only connection: every other request waits
//   for it. The file is written to a temporary file first (at the database's pace, not the
//   client's), then sent with its length, and the connection is free again meanwhile.
// Until the first byte is sent a failure is an ordinary error answer; after it, the connection is
// cut, so a client never mistakes a partial file for a whole one (no final chunk arrives).
// An export is held under its credential (auth/credential-watch.ts) until its response is done,
// as subscriptions are: when the key or session ends (revoked, expired, its user deactivated) or
// the key's scope is narrowed, no more records are read, and the answer is `401`/`403` if the
// file has not begun, else the connection is cut as for any failure mid-file.
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Request, Response } from 'express';
import type { CredentialWatch, Ending } from '../../auth/credential-watch.ts';
import { AppError, validationError } from '../../errors.ts';
import type { Context } from '../../schema/context.ts';
import { definitionsLoader } from '../../schema/custom-field/custom-field.loader.ts';
import { readSnapshot } from '../../schema/export/export.snapshot.ts';
import { exportSource, type ExportResource } from '../../schema/export/export.sources.ts';
import { CONTENT_TYPES, EXPORT_FORMATS, exportWriter, type ExportFormat } from './export.format.ts';

export interface ExportOptions {
  /** Write to a temporary file first (the embedded database). */
  spool: boolean;
  /** Where the temporary files go; emptied when the exporter is made. Null: the OS's temporary directory. */
  spoolDir?: string | null;
  /** Longest an export's transaction may stay open (EXPORT_MAX_SECONDS). */
  maxSeconds: number;
  /** Exports of one workspace running at once in this process (EXPORT_CONCURRENCY); more are answered 429. */
  concurrency: number;
  /** How long a client may read nothing before it is cut off. */
  stallMs?: number;
  /** Ends an export whose credential ends or narrows, as it ends subscriptions; none: exports are not held. */
  watch?: Pick<CredentialWatch, 'hold'> | null;
}

export const DEFAULT_EXPORT_OPTIONS = { maxSeconds: 600, concurrency: 2 } as const;
const STALL_MS = 60_000;

/** Parameters of a list that have no meaning for an export: it is the whole list, oldest first. */
const NOT_FOR_EXPORTS = {
  sort: 'does not apply: an export is ordered by created_at, oldest first',
  limit: 'does not apply: an export holds every matching record',
  cursor: 'does not apply: an export holds every matching record',
} as const;

/** The JSON body of a POST (the router lets a POST without one through as `{}`). */
const bodyOf = (req: Request): Record<string, unknown> =>
  req.method === 'POST' && req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};

function formatOf(req: Request): ExportFormat {
  const body = bodyOf(req);
  const given = req.query.format ?? body.format ?? 'csv';
  if (typeof given === 'string' && (EXPORT_FORMATS as readonly string[]).includes(given)) return given as ExportFormat;
  throw validationError({ format: [`must be one of: ${EXPORT_FORMATS.join(', ')}`] });
}

function refuseListParameters(req: Request): void {
  const body = bodyOf(req);
  const details: Record<string, string[]> = {};
  for (const [name, problem] of Object.entries(NOT_FOR_EXPORTS))
    if (req.query[name] !== undefined || body[name] !== undefined) details[name] = [problem];
  if (Object.keys(details).length) throw validationError(details);
}

/** The client went away or stopped reading: its export ends, and that is no fault of the service's. */
class ClientGone extends Error {}

/** Resolves once the stream wants more, rejects when it closes or reads nothing for `stallMs`. */
function drained(stream: Writable, stallMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      stream.off('drain', onDrain);
      stream.off('close', onClose);
      stream.off('error', done);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(new ClientGone('the client closed the connection'));
    const timer = setTimeout(() => done(new ClientGone(`the client read nothing for ${stallMs} ms`)), stallMs);
    stream.on('drain', onDrain);
    stream.on('close', onClose);
    stream.on('error', done);
  });
}

async function write(stream: Writable, text: string, stallMs: number): Promise<void> {
  if (!text) return;
  if (stream.destroyed) throw new ClientGone('the client closed the connection');
  if (!stream.write(text)) await drained(stream, stallMs);
}

const stamp = () => new Date().toISOString().replace(/[:.]/g, '-');

/** Runs exports, at most `concurrency` of one workspace at once. */
export function exporter(db: Context['prisma'], opts: ExportOptions) {
  /** Exports under way, by workspace: a slow reader holds its own workspace's places, not others'. */
  const running = new Map<string, number>();
  const stallMs = opts.stallMs ?? STALL_MS;
  const spoolDir = opts.spoolDir ?? null;
  if (spoolDir) {
    fs.rmSync(spoolDir, { recursive: true, force: true });
    fs.mkdirSync(spoolDir, { recursive: true, mode: 0o700 });
  }

  return async function sendExport(
    req: Request,
    res: Response,
    ctx: Context,
    resource: ExportResource,
    variables: Record<string, unknown>,
    fields: string[] | null,
  ): Promise<{ rows: number }> {
    const format = formatOf(req);
    refuseListParameters(req);
    const source = exportSource(ctx, resource);
    const wanted = fields ? ['id', ...fields.filter((f) => f !== 'id')] : [...source.fields];
    const unknown = wanted.filter((f) => !source.fields.includes(f));
    if (unknown.length) throw validationError({ fields: [`not in an export: ${unknown.join(', ')}`] });
    const where = await source.select(ctx, variables.filter, variables.where);
    const customKeys =
      source.customFields && wanted.includes('custom_fields')
        ? (await definitionsLoader(ctx).load(ctx.caller.accountId))
            .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
            .map((d) => d.key)
        : [];
    const writer = exportWriter(format, [...new Set(wanted)], customKeys);

    // The export keeps its own time limits (stalled client, EXPORT_MAX_SECONDS): no idle timeout of
    // the connection's may cut it while the database reads (a spooled file sends nothing until read).
    req.socket.setTimeout(0);
    const workspace = ctx.caller.workspaceId;
    const under = running.get(workspace) ?? 0;
    if (under >= opts.concurrency)
      throw new AppError(
        'rate_limited',
        `At most ${opts.concurrency} exports of a workspace run at once; try again when one has finished`,
        undefined,
        { retryAfter: 5 },
      );
    running.set(workspace, under + 1);
    // Held under its credential until the response is done (the file's last bytes may still be
    // queued after the last record was read). Ended: no record is read after, and once the file has
    // begun its connection is cut, so the client sees an incomplete transfer, never a shorter file.
    let ended: Ending | null = null;
    let begun = false;
    const unhold =
      opts.watch?.hold('export', ctx.caller, (why) => {
        ended = why;
        if (begun) res.destroy();
      }) ?? (() => {});
    /** Throws the credential's end, while an error answer can still be sent or to stop the read. */
    const stillHeld = () => {
      if (ended) throw ended;
    };
    let released = false;
    // The place is given back as soon as the snapshot is read, in the same tick, so a client that
    // sends its next export the moment this one ends finds it free; or as soon as the client goes
    // away (the read stops at its next page).
    const release = () => {
      if (released) return;
      released = true;
      const left = (running.get(workspace) ?? 1) - 1;
      if (left > 0) running.set(workspace, left);
      else running.delete(workspace);
    };
    res.once('close', release);
    // The file's headers, set once its first byte is about to go: an error before then is the
    // ordinary JSON error answer.
    const start = () => {
      stillHeld();
      begun = true;
      res.status(200);
      res.setHeader('Content-Type', CONTENT_TYPES[format]);
      res.setHeader('Content-Disposition', `attachment; filename="${resource}-${stamp()}.${format}"`);
      res.setHeader('Cache-Control', 'no-store');
    };
    try {
      const timeoutMs = opts.maxSeconds * 1000;
      if (opts.spool) return await spooled(ctx, source, where, writer, res, timeoutMs, release, start, stillHeld);
      let started = false;
      const rows = await readSnapshot(
        db,
        ctx,
        source,
        where,
        async (records) => {
          stillHeld();
          if (!started) {
            started = true;
            start();
            await write(res, writer.head(), stallMs);
          }
          await write(res, writer.page(records), stallMs);
        },
        { timeoutMs },
      ).catch((err: unknown) => {
        // Once bytes are out an error answer cannot follow them: cut the connection instead.
        if (started) res.destroy();
        if (err instanceof ClientGone || (started && err === ended)) return null;
        throw err;
      });
      if (rows === null) return { rows: 0 };
      if (!started) {
        start();
        res.write(writer.head());
      }
      release();
      res.end();
      return { rows };
    } finally {
      release();
      if (res.closed) unhold();
      else res.once('close', unhold);
    }
  };

  /** Reads the export into a temporary file, then sends the file with its length. */
  async function spooled(
    ctx: Context,
    source: Parameters<typeof readSnapshot>[2],
    where: unknown,
    writer: ReturnType<typeof exportWriter>,
    res: Response,
    timeoutMs: number,
    release: () => void,
    start: () => void,
    stillHeld: () => void,
  ): Promise<{ rows: number }> {
    const dir = await fsp.mkdtemp(path.join(spoolDir ?? os.tmpdir(), 'crm-export-'));
    const file = path.join(dir, 'export');
    try {
      const out = fs.createWriteStream(file, { mode: 0o600 });
      let rows: number;
      try {
        out.write(writer.head());
        // The file takes what it is given as fast as the disk does; a client gone meanwhile ends the read.
        rows = await readSnapshot(
          db,
          ctx,
          source,
          where,
          async (records) => {
            if (res.destroyed) throw new ClientGone('the client closed the connection');
            stillHeld();
            await write(out, writer.page(records), timeoutMs);
          },
          { timeoutMs },
        );
      } catch (err) {
        if (err instanceof ClientGone) return { rows: 0 };
        throw err;
      } finally {
        await new Promise<void>((resolve) => out.end(resolve));
      }
      release();
      const { size } = await fsp.stat(file);
      start();
      res.setHeader('Content-Length', size);
      // A client that reads nothing for this long is cut off (the socket times out idle).
      res.setTimeout(stallMs);
      // A client that leaves while the file is sent ends the export; nothing is left to clean but the file.
      try {
        await pipeline(fs.createReadStream(file), res);
      } catch (err) {
        if ((err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') return { rows: 0 };
        throw err;
      } finally {
        // The connection may carry the client's next request, which this limit is not for.
        res.socket?.setTimeout(0);
      }
      return { rows };
    } finally {
      await fsp.rm(dir, { recursive: true, force: true });
    }
  }
}

export type SendExport = ReturnType<typeof exporter>;
