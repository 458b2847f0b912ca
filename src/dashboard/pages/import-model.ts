// The import page's rules, apart from the page: a file's format, the header row of a CSV file or
// the keys of a JSON Lines file's first objects as the browser reads them, a first guess of each
// column's field, the mapping sent, and how progress reads.

export type ImportFormat = 'csv' | 'jsonl';

/** JSON Lines by the file's name (.jsonl, .ndjson) or type; anything else is read as CSV. */
export function formatOf(file: { name: string; type: string }): ImportFormat {
  if (/\.(jsonl|ndjson)$/i.test(file.name)) return 'jsonl';
  return /ndjson|jsonl/i.test(file.type) ? 'jsonl' : 'csv';
}

/** The content type the file is sent with. */
export const CONTENT_TYPES: Record<ImportFormat, string> = {
  csv: 'text/csv',
  jsonl: 'application/x-ndjson',
};

/**
 * The keys of the objects on a JSON Lines file's first lines, in the order first seen, and how
 * many of those lines are not a JSON object. `complete` says the text is the whole file; otherwise
 * its last line may be cut short and is left out. Blank lines are skipped, as the import skips them.
 */
export function jsonKeysOf(text: string, complete: boolean, maxLines = 50): { keys: string[]; bad: number } {
  const lines = text.replace(/^\uFEFF/, '').split('\n');
  if (!complete) lines.pop();
  const keys = new Set<string>();
  let bad = 0;
  let read = 0;
  for (const raw of lines) {
    const line = raw.trim();
    if (!line) continue;
    if (read++ >= maxLines) break;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      bad++;
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) bad++;
    else for (const k of Object.keys(value)) keys.add(k);
  }
  return { keys: [...keys], bad };
}

/**
 * The cells of a CSV file's first record: quoted cells (with "" and line breaks), CRLF or LF; a BOM
 * and blank lines before it skipped, as the import skips them.
 */
export function headerOf(file: string): string[] {
  const text = file.replace(/^\uFEFF/, '').replace(/^(\r?\n)+/, '');
  const cells: string[] = [];
  let cell = '';
  let i = 0;
  let quoted = false;
  for (; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') break;
    else cell += c;
  }
  cells.push(cell);
  return cells.length === 1 && cells[0] === '' ? [] : cells;
}

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]+/g, '');

/** The field a column is named like (`E-mail` → `email`, `First name` → `first_name`), or '' to skip it. */
export function guessField(column: string, fields: readonly string[]): string {
  const wanted = squash(column);
  if (!wanted) return '';
  return (
    fields.find((f) => squash(f) === wanted) ??
    fields.find((f) => f.startsWith('custom_fields.') && squash(f.slice('custom_fields.'.length)) === wanted) ??
    ''
  );
}

/** The mapping as the API takes it: every column named, a skipped one as null. */
export function mappingOf(columns: readonly string[], chosen: Record<string, string>): Record<string, string | null> {
  return Object.fromEntries(columns.map((c) => [c, chosen[c] || null]));
}

/** "2 min 5 s", "40 s"; an em dash while unknown. */
export function formatEta(seconds: number | null | undefined): string {
  if (seconds == null) return '—';
  if (seconds < 60) return `${seconds} s`;
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  return h ? `${h} h ${m} min` : `${m} min ${s} s`;
}

/** How far the job has read, 0 to 1, by bytes; a completed job is whole. */
export function fractionDone(job: { status: string; bytes_read: number; bytes_total: number }): number {
  if (job.status === 'completed') return 1;
  return job.bytes_total > 0 ? Math.min(1, job.bytes_read / job.bytes_total) : 0;
}
