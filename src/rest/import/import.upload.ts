// POST /v1/imports receives its file here: a multipart/form-data body read as it arrives (busboy)
// and stored piece by piece (imports/import-file.ts), never held whole, so a 1 GB file costs the
// process a few MiB. The settings travel as the other parts, in any order; createImport checks
// them once the file is in. What is received belongs to an upload row that no list shows; a
// refused or broken upload is deleted, and one a crash left behind is swept a day later.
import { Transform } from 'node:stream';
import busboy from 'busboy';
import type { Request, RequestHandler } from 'express';
import { allows, assertAllowed, RESOURCES, type Resource } from '../../auth/scopes.ts';
import { IMPORT_RESOURCES } from '../../records/import.ts';
import { AppError, validationError } from '../../errors.ts';
import { currentOrigin } from '../../events/origin.ts';
import { newId } from '../../ids.ts';
import { liftBodyDeadline } from '../../http/body-deadline.ts';
import { ChunkWriter } from '../../imports/import-file.ts';
import type { Context } from '../../schema/context.ts';

/** The settings parts; the file is the part named `file`. */
const SETTINGS = ['resource', 'format', 'mode', 'upsert_by', 'mapping'] as const;
const SETTING_MAX_BYTES = 64 * 1024;

export interface Upload {
  uploadId: string;
  settings: Record<string, unknown>;
  filename: string | null;
}

/** IMPORT_MAX_BYTES unless configured: 1 GiB. */
export const DEFAULT_IMPORT_MAX_BYTES = 1024 ** 3;

const isUpload = (req: Request) => req.method === 'POST' && req.path === '/imports';

/** `middleware`, except for the upload route, whose body is no JSON. */
export const unlessUpload =
  (middleware: RequestHandler): RequestHandler =>
  (req, res, next) =>
    isUpload(req) ? next() : middleware(req, res, next);

/** The file stored as an upload of the caller's, and the settings sent with it. */
/**
 * The file stored as an upload of the caller's, and the settings sent with it. `idleMs`: an
 * upload may take as long as it needs while bytes keep arriving; silent that long, it is cut off.
 */
export async function receiveUpload(req: Request, ctx: Context, maxBytes: number, idleMs: number): Promise<Upload> {
  if (!IMPORT_RESOURCES.some((r) => allows(ctx.caller, r, 'write')))
    throw new AppError('forbidden', `This API key may not write ${IMPORT_RESOURCES.join(', ')}: it may import none`);
  if (!req.is('multipart/form-data'))
    throw new AppError(
      'unsupported_media_type',
      'Send the file as multipart/form-data: a part named file, and the settings (resource, format, mode, ' +
        'upsert_by, mapping) as form fields',
    );
  const uploadId = newId('imp');
  const { caller } = ctx;
  await ctx.prisma.import.create({
    data: {
      id: uploadId,
      workspaceId: caller.workspaceId,
      keyId: caller.keyId,
      userId: caller.keyId ? null : caller.userId,
      origin: { ...currentOrigin() },
      resource: '',
      format: '',
      mode: '',
      status: 'receiving',
    },
  });
  try {
    return await read(req, ctx, uploadId, maxBytes, idleMs);
  } catch (err) {
    await discardUpload(ctx, uploadId);
    throw err;
  }
}

export async function discardUpload(ctx: Context, uploadId: string): Promise<void> {
  await ctx.sql.query(`DELETE FROM imports WHERE id = $1 AND status = 'receiving'`, [uploadId]).catch(() => {});
}

function read(req: Request, ctx: Context, uploadId: string, maxBytes: number, idleMs: number): Promise<Upload> {
  return new Promise<Upload>((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // busboy stops at fileSize bytes: one more, so a file of exactly maxBytes is taken whole.
        limits: { files: 1, fields: SETTINGS.length, fieldSize: SETTING_MAX_BYTES, parts: 10, fileSize: maxBytes + 1 },
      });
    } catch (err) {
      // No boundary, or another header busboy cannot read.
      return reject(new AppError('malformed_request', `The multipart body cannot be read: ${(err as Error).message}`));
    }
    const settings: Record<string, unknown> = {};
    let filename: string | null = null;
    let file: Promise<void> | null = null;
    let failed = false;
    const fail = (err: AppError) => {
      if (failed) return;
      failed = true;
      // The rest of the body is not stored: it is read and dropped, or the connection closes.
      req.unpipe();
      req.resume();
      reject(err);
    };
    parser.on('field', (name, value, info) => {
      if (!(SETTINGS as readonly string[]).includes(name))
        return fail(validationError({ [name]: [`is no setting of an import: ${SETTINGS.join(', ')} and file`] }));
      if (info.valueTruncated) return fail(validationError({ [name]: [`must be at most ${SETTING_MAX_BYTES} bytes`] }));
      if (name === 'resource' && (RESOURCES as readonly string[]).includes(value)) {
        // Refused before the file is read, when the settings come first.
        try {
          assertAllowed(ctx.caller, value as Resource, 'write');
        } catch (err) {
          return fail(err as AppError);
        }
      }
      settings[name] = name === 'mapping' ? parseMapping(value, fail) : value;
    });
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || file) {
        stream.resume();
        return fail(validationError({ [name]: ['is not expected: send the file as the one part named file'] }));
      }
      filename = info.filename ? info.filename.slice(0, 255) : null;
      const writer = new ChunkWriter(ctx.sql, uploadId);
      stream.on('limit', () =>
        fail(new AppError('payload_too_large', `The file is larger than ${maxBytes} bytes, the most an import takes`)),
      );
      file = (async () => {
        for await (const data of stream as AsyncIterable<Buffer>) {
          if (failed) return;
          await writer.write(data);
        }
        await writer.end();
      })();
      file.catch((err: unknown) => {
        stream.resume();
        fail(err instanceof AppError ? err : new AppError('service_unavailable', 'The file could not be stored'));
      });
    });
    parser.on('partsLimit', () => fail(validationError({ file: ['and the settings are the only parts expected'] })));
    parser.on('fieldsLimit', () => fail(validationError({ file: ['and the settings are the only parts expected'] })));
    parser.on('filesLimit', () => fail(validationError({ file: ['must be the one file part'] })));
    parser.on('error', (err: Error) =>
      fail(new AppError('malformed_request', `The multipart body cannot be read: ${err.message}`)),
    );
    parser.on('close', () => {
      if (failed) return;
      if (!file) return fail(validationError({ file: ['is required: the part named file holds the data to import'] }));
      file.then(
        () => {
          if (!failed) resolve({ uploadId, settings, filename });
        },
        () => {},
      );
    });
    req.on('aborted', () => fail(new AppError('malformed_request', 'The upload was cut off before its end')));
    // Bytes must keep coming: a stalled upload holds a connection and a stored part-file for nothing.
    const silence = setTimeout(() => {
      fail(new AppError('malformed_request', `The upload stalled: no bytes for ${idleMs / 1000} s`));
      req.socket.destroy();
    }, idleMs);
    const watch = new Transform({
      transform(chunk, _encoding, done) {
        silence.refresh();
        done(null, chunk);
      },
    });
    parser.once('close', () => clearTimeout(silence));
    req.once('close', () => clearTimeout(silence));
    // From here the body is timed by silence, not by the request's deadline.
    liftBodyDeadline(req);
    req.pipe(watch).pipe(parser);
  });
}

function parseMapping(value: string, fail: (err: AppError) => void): unknown {
  try {
    return JSON.parse(value);
  } catch {
    fail(validationError({ mapping: ['must be a JSON object of column name → field name'] }));
    return undefined;
  }
}
