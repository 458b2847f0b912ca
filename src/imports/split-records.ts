// Cuts an uploaded file into its rows before any cell is read: at a line break outside quotes for
// CSV, at every line break for JSON Lines. A malformed row then fails alone, at its own boundaries:
// the rows after it are read as they were written. A row larger than the limit is not held in
// memory: its bytes are counted and dropped up to its end, and it comes out as `tooLarge`.
// Offsets are exact, so a job can stop after any row and resume at the next one.

export interface RawRecord {
  /** The row's bytes without its line break; empty when it was too large to keep. */
  bytes: Buffer;
  /** Offset of the first byte after the row and its line break. */
  end: number;
  /** The file line the row starts on (1-based). */
  line: number;
  /** Line breaks the row holds, its own included (a quoted cell may hold more). */
  lines: number;
  tooLarge: boolean;
  /** The file ended inside a quoted cell. */
  unclosedQuote: boolean;
}

const NL = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const COMMA = 0x2c;

function countLines(buf: Buffer, from: number, to: number): number {
  let n = 0;
  for (let i = buf.indexOf(NL, from); i !== -1 && i < to; i = buf.indexOf(NL, i + 1)) n++;
  return n;
}

/**
 * The rows of `chunks`, a file read from byte `offset` (a row's first byte) whose line there is
 * `line`. Blank lines are skipped.
 */
export async function* splitRecords(
  chunks: AsyncIterable<Buffer>,
  opts: { csv: boolean; offset: number; line: number; maxBytes: number },
): AsyncGenerator<RawRecord> {
  let parts: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  let inQuote = false;
  let newlines = 0;
  let offset = opts.offset;
  let line = opts.line;

  // The byte before the next one read: a line break at the start of a row.
  let lastByte = NL;
  const keep = (piece: Buffer) => {
    if (piece.length) lastByte = piece[piece.length - 1];
    newlines += countLines(piece, 0, piece.length);
    size += piece.length;
    if (tooLarge) return;
    if (size > opts.maxBytes) {
      tooLarge = true;
      parts = [];
    } else parts.push(piece);
  };
  const finish = (through: number, unclosedQuote: boolean): RawRecord | null => {
    // `through` counts the row's line break, which its bytes leave out.
    const whole = tooLarge ? Buffer.alloc(0) : parts.length === 1 ? parts[0] : Buffer.concat(parts);
    let bytes = whole;
    if (!tooLarge && bytes.length && bytes[bytes.length - 1] === NL) bytes = bytes.subarray(0, -1);
    if (!tooLarge && bytes.length && bytes[bytes.length - 1] === CR) bytes = bytes.subarray(0, -1);
    const record: RawRecord = {
      bytes,
      end: offset + through,
      line,
      lines: newlines,
      tooLarge,
      unclosedQuote,
    };
    offset += through;
    line += newlines;
    parts = [];
    size = 0;
    newlines = 0;
    const blank = !tooLarge && !unclosedQuote && bytes.length === 0;
    tooLarge = false;
    return blank ? null : record;
  };

  for await (const chunk of chunks) {
    let pos = 0;
    // The next quote at or after pos, found once per chunk stretch rather than once per row.
    let quoteAt = opts.csv ? chunk.indexOf(QUOTE) : -1;
    while (pos < chunk.length) {
      if (inQuote) {
        const close = chunk.indexOf(QUOTE, pos);
        if (close === -1) {
          keep(chunk.subarray(pos));
          pos = chunk.length;
          break;
        }
        keep(chunk.subarray(pos, close + 1));
        pos = close + 1;
        inQuote = false;
        quoteAt = chunk.indexOf(QUOTE, pos);
        continue;
      }
      const nl = chunk.indexOf(NL, pos);
      if (quoteAt !== -1 && quoteAt < pos) quoteAt = chunk.indexOf(QUOTE, pos);
      if (quoteAt !== -1 && (nl === -1 || quoteAt < nl)) {
        // A quote opens a quoted cell at the cell's start, and goes on with one right after its
        // closing quote (a doubled quote, `""`); inside an unquoted cell (`5'11" tall`) it is text.
        const before = quoteAt > pos ? chunk[quoteAt - 1] : lastByte;
        keep(chunk.subarray(pos, quoteAt + 1));
        pos = quoteAt + 1;
        inQuote = before === COMMA || before === NL || before === QUOTE;
        if (!inQuote) quoteAt = chunk.indexOf(QUOTE, pos);
        continue;
      }
      if (nl === -1) {
        keep(chunk.subarray(pos));
        break;
      }
      const piece = chunk.subarray(pos, nl + 1);
      keep(piece);
      pos = nl + 1;
      const record = finish(size, false);
      if (record) yield record;
    }
  }
  if (size > 0) {
    // The last row without a final line break, or a quote never closed.
    const record = finish(size, inQuote);
    if (record) yield record;
  }
}
