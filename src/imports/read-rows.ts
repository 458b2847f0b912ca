// Turns the file's rows into the data of batch operations, or into the reason a row cannot be
// imported: bytes that are not UTF-8, a NUL character, a CSV row whose cell count differs from the
// header's, a JSON line that is not an object, a row over the size limit. Cells are read with
// csv-parse, many rows in one call; only when that call refuses are the rows read one by one, to
// find which row is at fault.
import { parse } from 'csv-parse/sync';
import { UNSTORABLE_MESSAGE, unstorablePath } from '../schema/common/storable.ts';
import type { RawRecord } from './split-records.ts';
import { cellValue, setField, type importFields } from './import-fields.ts';

export interface ImportRow {
  /** 1 for the first data row. */
  row: number;
  line: number;
  /** Offset just past the row. */
  end: number;
  /** Line breaks the row holds, its own included. */
  lines: number;
  /** The cells as read (the line, for JSON Lines), for the failed-rows file. */
  cells: string[];
  data: Record<string, unknown> | null;
  error: string | null;
}

export interface RowReader {
  format: 'csv' | 'jsonl';
  /** The header's columns (CSV). */
  columns: string[];
  /** Column (or JSON key) → field path, for the columns that are imported; null takes JSON lines as they are. */
  mapping: Record<string, string> | null;
  fields: ReturnType<typeof importFields>;
  maxBytes: number;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const lossy = new TextDecoder('utf-8');
// relax_quotes: a quote inside an unquoted cell (`5'11" tall`) is text, as the row cutter reads it.
const CSV_OPTIONS = { relax_column_count: true, relax_quotes: true, record_delimiter: '\n', bom: false } as const;

/** CSV cells of rows known to end where they do; null for a row csv-parse refuses. */
function parseCells(texts: string[]): (string[] | null)[] {
  try {
    const records = parse(texts.join('\n'), CSV_OPTIONS) as string[][];
    if (records.length === texts.length) return records;
  } catch {
    // One of them is malformed: read each alone below.
  }
  return texts.map((t) => {
    try {
      const [cells] = parse(t, CSV_OPTIONS) as string[][];
      return cells ?? [''];
    } catch {
      return null;
    }
  });
}

/** The field a column fills: the mapping's own entry only (a column named `constructor` is no method). */
const fieldOf = (mapping: Record<string, string> | null, column: string): string | undefined =>
  mapping && Object.hasOwn(mapping, column) ? mapping[column] : undefined;

/** Text for the failed-rows file: no NUL, no lone surrogate, which the database cannot store. */
const storable = (s: string) => s.replace(/[\u0000\p{Cs}]/gu, '\uFFFD');

export function readRows(reader: RowReader, records: RawRecord[], firstRow: number): ImportRow[] {
  const rows: ImportRow[] = records.map((r, i) => ({
    row: firstRow + i,
    line: r.line,
    end: r.end,
    lines: r.lines,
    cells: [],
    data: null,
    error: null,
  }));
  const texts: string[] = [];
  const parsed: number[] = [];
  records.forEach((r, i) => {
    const row = rows[i];
    if (r.tooLarge) {
      row.error = `The row is larger than ${reader.maxBytes / 1024 / 1024} MiB; it was not kept`;
      return;
    }
    let text: string;
    try {
      text = utf8.decode(r.bytes);
    } catch {
      row.cells = [storable(lossy.decode(r.bytes))];
      row.error = 'The row is not valid UTF-8 text; save the file as UTF-8';
      return;
    }
    if (r.unclosedQuote) {
      row.cells = [storable(text)];
      row.error = 'A quoted cell is never closed: the file ends inside it';
      return;
    }
    texts.push(text);
    parsed.push(i);
  });
  if (reader.format === 'jsonl') parsed.forEach((i, n) => jsonRow(reader, rows[i], texts[n]));
  else {
    const cells = parseCells(texts);
    parsed.forEach((i, n) => csvRow(reader, rows[i], texts[n], cells[n]));
  }
  return rows;
}

function csvRow(reader: RowReader, row: ImportRow, text: string, cells: string[] | null): void {
  if (!cells) {
    row.cells = [storable(text)];
    row.error = 'The row is not valid CSV (a quote inside an unquoted cell, or text after a closing quote)';
    return;
  }
  row.cells = cells.map(storable);
  if (cells.length !== reader.columns.length) {
    row.error = `The row has ${cells.length} cells; the header has ${reader.columns.length}`;
    return;
  }
  const data: Record<string, unknown> = {};
  reader.columns.forEach((column, c) => {
    const field = fieldOf(reader.mapping, column);
    const cell = cells[c];
    if (!field || cell === '') return;
    setField(data, field, cellValue(reader.fields.get(field) ?? 'text', cell));
  });
  accept(row, data);
}

/** The row's data, unless a value holds text the database cannot store faithfully. */
function accept(row: ImportRow, data: Record<string, unknown>): void {
  const bad = unstorablePath(data);
  if (bad) row.error = storable(`${bad} ${UNSTORABLE_MESSAGE}`);
  else row.data = data;
}

function jsonRow(reader: RowReader, row: ImportRow, text: string): void {
  row.cells = [storable(text)];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    row.error = storable(`The line is not JSON: ${(err as Error).message}`);
    return;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    row.error = 'The line is not a JSON object';
    return;
  }
  const { mapping } = reader;
  if (!mapping) return accept(row, value as Record<string, unknown>);
  const data: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const field = fieldOf(mapping, key);
    if (field) setField(data, field, v);
  }
  accept(row, data);
}
