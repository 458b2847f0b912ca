// The uploaded file, kept in the database in pieces (import_chunks) so that whichever worker of
// whichever instance runs the job, now or after a restart, reads the same bytes. Written as it
// arrives, 1 MiB at a time; read back from any offset.
import type { SqlClient } from '../db/sql.ts';

export const CHUNK_BYTES = 1024 * 1024;
/** Pieces read per statement. */
const READ_AHEAD = 4;

/** Collects arriving bytes and stores each full piece. */
export class ChunkWriter {
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Bytes received so far. */
  total = 0;

  constructor(
    private readonly sql: SqlClient,
    private readonly importId: string,
  ) {}

  async write(data: Buffer): Promise<void> {
    this.pending.push(data);
    this.pendingBytes += data.length;
    this.total += data.length;
    while (this.pendingBytes >= CHUNK_BYTES) {
      const all = Buffer.concat(this.pending);
      await this.store(all.subarray(0, CHUNK_BYTES));
      const rest = all.subarray(CHUNK_BYTES);
      this.pending = rest.length ? [Buffer.from(rest)] : [];
      this.pendingBytes = rest.length;
    }
  }

  /** Stores what is left. */
  async end(): Promise<void> {
    if (this.pendingBytes) await this.store(Buffer.concat(this.pending));
    this.pending = [];
    this.pendingBytes = 0;
  }

  private stored = 0;

  private async store(piece: Buffer): Promise<void> {
    await this.sql.query('INSERT INTO import_chunks (import_id, start, data) VALUES ($1, $2, $3)', [
      this.importId,
      this.stored,
      piece,
    ]);
    this.stored += piece.length;
  }
}

/** The file's bytes from `offset` to its end. */
export async function* readFile(sql: SqlClient, importId: string, offset: number): AsyncGenerator<Buffer> {
  let from = offset;
  for (;;) {
    const rows = await sql.query<{ start: string | number; data: Uint8Array }>(
      `SELECT start, data FROM import_chunks WHERE import_id = $1 AND start + octet_length(data) > $2
      ORDER BY start LIMIT ${READ_AHEAD}`,
      [importId, from],
    );
    if (!rows.length) return;
    for (const { start, data } of rows) {
      const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
      const skip = Math.max(0, from - Number(start));
      yield skip ? bytes.subarray(skip) : bytes;
      from = Number(start) + bytes.length;
    }
  }
}
