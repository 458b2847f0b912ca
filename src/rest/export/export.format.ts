// An export's records as CSV or JSON Lines. JSON Lines holds each record exactly as
// `GET /v1/<resource>/:id` answers it. CSV flattens it for spreadsheets:
// - a part of a nested object is a column of its own (`address.city`, `reminder.remind_at`);
// - each defined custom field is a column (`custom_fields.<key>`), in the order they were defined;
// - lists of text (tags) are joined with "; ", anything else structured is written as JSON;
// - text that a spreadsheet would run as a formula (starting with =, +, -, @, tab or carriage
//   return) is prefixed with an apostrophe, as OWASP advises against CSV injection.
// Fields are quoted as RFC 4180 says (only those holding a comma, quote or line break, quotes
// doubled), which is all a CSV writer does: a library's general writer cost five times the CPU
// here (docs/performance.md), and the tests read every file back with csv-parse.
import type { ExportRecord } from '../../schema/export/export.sources.ts';

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  csv: 'text/csv; charset=utf-8',
  jsonl: 'application/x-ndjson; charset=utf-8',
};

/** The parts of nested objects, each written as a column of its own. */
const NESTED: Record<string, readonly string[]> = {
  address: ['street', 'city', 'state', 'zip', 'country'],
  related_to: ['type', 'id', 'name'],
  reminder: ['type', 'before_minutes', 'remind_at', 'sent_at'],
};

const FORMULA = /^[=+\-@\t\r]/;
/**
 * U+2028 and U+2029 are valid in JSON strings, but many line readers (Python's splitlines, some
 * editors) break lines at them: written as escapes, one record stays one line.
 */
const LINE_BREAKS = /[\u2028\u2029]/g;
const escaped = (c: string) => `\\u${c.charCodeAt(0).toString(16)}`;
const NEEDS_QUOTES = /[",\r\n]/;

const field = (text: string) => (NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
/** One CSV line of `cells`, quoted as RFC 4180 says. */
export const csvRow = (cells: string[]) => cells.map(field).join(',') + '\r\n';

function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return FORMULA.test(value) ? `'${value}` : value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return cell(value.join('; '));
  return cell(JSON.stringify(value));
}

interface Column {
  name: string;
  read: (record: ExportRecord) => unknown;
}

function columnsOf(fields: readonly string[], customKeys: readonly string[]): Column[] {
  return fields.flatMap((field): Column[] => {
    if (field === 'custom_fields')
      return customKeys.map((key) => ({
        name: `custom_fields.${key}`,
        read: (r) => (r.custom_fields as Record<string, unknown> | null)?.[key],
      }));
    const parts = NESTED[field];
    if (parts)
      return parts.map((part) => ({
        name: `${field}.${part}`,
        read: (r) => (r[field] as Record<string, unknown> | null)?.[part],
      }));
    return [{ name: field, read: (r) => r[field] }];
  });
}

export interface ExportWriter {
  /** The first bytes of the file (the CSV header), written even when no record matches. */
  head(): string;
  /** One page of records as text. */
  page(records: ExportRecord[]): string;
}

/** `fields`: the record's fields to write, in order (id first); `customKeys`: the defined custom fields. */
export function exportWriter(format: ExportFormat, fields: readonly string[], customKeys: readonly string[]) {
  if (format === 'jsonl') {
    const picked = new Set(fields);
    return {
      head: () => '',
      page: (records: ExportRecord[]) => {
        let out = '';
        for (const r of records) {
          const line = picked.size === Object.keys(r).length ? r : pick(r, fields);
          out += JSON.stringify(line).replace(LINE_BREAKS, escaped) + '\n';
        }
        return out;
      },
    } satisfies ExportWriter;
  }
  const columns = columnsOf(fields, customKeys);
  return {
    head: () => csvRow(columns.map((c) => c.name)),
    page: (records: ExportRecord[]) => {
      let out = '';
      for (const r of records) out += csvRow(columns.map((c) => cell(c.read(r))));
      return out;
    },
  } satisfies ExportWriter;
}

function pick(record: ExportRecord, fields: readonly string[]): ExportRecord {
  const out: ExportRecord = {};
  for (const f of fields) out[f] = record[f];
  return out;
}
