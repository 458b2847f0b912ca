// createImport: turns a received upload into a queued job once its settings make sense for the
// file. The CSV header is read here, so a mapping that names a column the file does not have, or a
// field the resource does not have, is refused at once (400 with details) rather than row by row.
// An upload is used once: refused settings discard it too, and the caller sends the file again.
import { parse } from 'csv-parse/sync';
import { assertAllowed } from '../../auth/scopes.ts';
import { Prisma, type Import } from '../../db/generated/client/client.ts';
import { AppError, validationError, type ErrorDetails } from '../../errors.ts';
import { readFile } from '../../imports/import-file.ts';
import { importFields } from '../../imports/import-fields.ts';
import { splitRecords } from '../../imports/split-records.ts';
import { UPSERT_KEYS, type ImportResource } from '../../records/import.ts';
import type { Context } from '../context.ts';
import { definitionsLoader } from '../custom-field/custom-field.loader.ts';
import { parseInput } from '../common/validation.ts';
import { createImportInput, type CreateImportInput } from './import.inputs.ts';

/** A row (the header included) larger than this is refused; a cell of 10 MB fails its row alone. */
export const IMPORT_ROW_MAX_BYTES = 1024 * 1024;
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Header {
  columns: string[];
  /** Offset of the first data row. */
  end: number;
  /** Lines before it. */
  lines: number;
}

/** The CSV header (null for an empty file), or where JSON Lines start (past a byte order mark). */
async function readHeader(ctx: Context, importId: string, csv: boolean): Promise<Header | null> {
  const [first] = await ctx.sql.query<{ data: Uint8Array }>(
    'SELECT substring(data from 1 for 3) AS data FROM import_chunks WHERE import_id = $1 AND start = 0',
    [importId],
  );
  if (!first) return null;
  const offset = Buffer.from(first.data).equals(BOM) ? BOM.length : 0;
  if (!csv) return { columns: [], end: offset, lines: 0 };
  const records = splitRecords(readFile(ctx.sql, importId, offset), {
    csv,
    offset,
    line: 1,
    maxBytes: IMPORT_ROW_MAX_BYTES,
  });
  const { value: header } = await records.next();
  await records.return(undefined);
  if (!header) return null;
  if (header.tooLarge) throw validationError({ file: ['has a header row larger than 1 MiB'] });
  if (header.unclosedQuote) throw validationError({ file: ['has a header whose quote is never closed'] });
  // A line break of CR alone (old Mac files) is no row end here: the whole file would be one row.
  if (header.bytes.includes(0x0d))
    throw validationError({ file: ['has lines that end with CR alone: save it with LF or CRLF line ends'] });
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(header.bytes);
  } catch {
    throw validationError({ file: ['has a header that is not UTF-8 text: save the file as UTF-8'] });
  }
  let columns: string[];
  try {
    [columns] = parse(text, { relax_column_count: true }) as string[][];
  } catch (err) {
    throw validationError({ file: [`has a header that is not valid CSV: ${(err as Error).message}`] });
  }
  return { columns: columns.map((c) => c.trim()), end: header.end, lines: header.line - 1 + header.lines };
}

/** Column → field: the given mapping checked against the file and the resource, or one made from the header. */
function mappingOf(
  input: CreateImportInput,
  header: Header,
  fields: Map<string, unknown>,
  warnings: string[],
): Record<string, string> | null {
  const details: ErrorDetails = {};
  const csv = input.format === 'csv';
  let mapping: Record<string, string>;
  if (input.mapping) {
    mapping = {};
    for (const [column, field] of Object.entries(input.mapping)) {
      if (csv && !header.columns.includes(column)) details[`mapping.${column}`] = ['is not a column of the file'];
      else if (field && !fields.has(field))
        details[`mapping.${column}`] = [`is not a field of ${input.resource} (nor a defined custom field)`];
      else if (field) mapping[column] = field;
    }
  } else if (!csv) return null;
  else {
    mapping = Object.fromEntries(header.columns.filter((c) => fields.has(c)).map((c) => [c, c]));
    const left = header.columns.filter((c) => !fields.has(c));
    if (left.length) warnings.push(`Columns not named like a field are not imported: ${left.join(', ')}`);
  }
  const byField = new Map<string, string[]>();
  for (const [column, field] of Object.entries(mapping)) byField.set(field, [...(byField.get(field) ?? []), column]);
  for (const [field, columns] of byField)
    if (columns.length > 1) details[`mapping.${columns[1]}`] = [`fills ${field}, as ${columns[0]} does`];
  if (csv)
    for (const column of Object.keys(mapping))
      if (header.columns.indexOf(column) !== header.columns.lastIndexOf(column))
        details[`mapping.${column}`] = ['names a column the header holds twice'];
  if (Object.keys(details).length) throw validationError(details);
  if (csv && Object.keys(mapping).length === 0)
    throw validationError({
      mapping: [`is needed: no column of the file is named like a field of ${input.resource}`],
    });
  if (csv && input.mode === 'upsert' && !Object.values(mapping).includes(input.upsert_by!))
    throw validationError({ mapping: [`must fill ${input.upsert_by}, which the upsert matches records by`] });
  return mapping;
}

function checkMode(input: CreateImportInput): void {
  if (input.mode !== 'upsert') {
    if (input.upsert_by) throw validationError({ upsert_by: ['is for mode upsert only'] });
    return;
  }
  const keys = UPSERT_KEYS[input.resource as ImportResource];
  if (!input.upsert_by) throw validationError({ upsert_by: [`is required with mode upsert: ${keys.join(' or ')}`] });
  if (!keys.includes(input.upsert_by))
    throw validationError({ upsert_by: [`must be ${keys.join(' or ')} for ${input.resource}`] });
}

/** The staged upload as a queued import; the upload is discarded when the settings are refused. */
export async function createImport(ctx: Context, raw: unknown): Promise<Import> {
  const input = parseInput(createImportInput, raw);
  const { caller } = ctx;
  assertAllowed(caller, input.resource, 'write');
  const staged = await ctx.prisma.import.findFirst({
    where: {
      id: input.upload_id,
      workspaceId: caller.workspaceId,
      status: 'receiving',
      ...(caller.keyId ? { keyId: caller.keyId } : { userId: caller.userId, keyId: null }),
    },
  });
  if (!staged)
    throw new AppError('not_found', 'Upload not found: an upload starts one import, of the caller that sent it');
  try {
    checkMode(input);
    const csv = input.format === 'csv';
    const header = await readHeader(ctx, staged.id, csv);
    if (!header) throw validationError({ file: ['is empty'] });
    const defs = await definitionsLoader(ctx).load(caller.accountId);
    const mapping = mappingOf(input, header, importFields(input.resource, defs), ctx.warnings);
    const [{ total }] = await ctx.sql.query<{ total: string }>(
      'SELECT coalesce(sum(octet_length(data)), 0)::text AS total FROM import_chunks WHERE import_id = $1',
      [staged.id],
    );
    return await ctx.prisma.import.update({
      where: { id: staged.id },
      data: {
        status: 'queued',
        resource: input.resource,
        format: input.format,
        mode: input.mode,
        upsertBy: input.upsert_by ?? null,
        mapping: mapping ?? Prisma.DbNull,
        filename: input.filename ?? staged.filename,
        columns: csv ? header.columns : undefined,
        bytesTotal: BigInt(total),
        bytesDone: BigInt(header.end),
        linesDone: header.lines,
        createdAt: new Date(),
      },
    });
  } catch (err) {
    await ctx.prisma.import.delete({ where: { id: staged.id } }).catch(() => {});
    throw err;
  }
}
