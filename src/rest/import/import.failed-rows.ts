// GET /v1/imports/:id/failed-rows: the rows an import could not write, as CSV, to fix and send
// again. Columns: `error` (why), `line` (where the row starts in the file), then the file's own
// columns with the cells exactly as read — not neutralised against spreadsheet formulas as
// exports are, so a fixed file imports the same values (a phone number's leading +). A JSON Lines
// import's rows are its lines, in one `data` column. Read page by page, written as the client reads.
// Like an export, the download is held under its credential: when the key or session ends or its
// scope narrows, no more rows are read and the connection is cut (the file is incomplete, never short).
import { once } from 'node:events';
import type { Response } from 'express';
import type { CredentialWatch } from '../../auth/credential-watch.ts';
import type { Context } from '../../schema/context.ts';
import { csvRow } from '../export/export.format.ts';

export type SendFile = (res: Response, ctx: Context, file: 'import-failed-rows', value: unknown) => Promise<void>;

const PAGE = 1000;

/** The download; `watch` ends it with its credential (none: it is not held). */
export const failedRowsSender =
  (watch?: Pick<CredentialWatch, 'hold'> | null): SendFile =>
  async (res, ctx, _file, value) => {
    const { id } = value as { id: string };
    const [job] = await ctx.sql.query<{ format: string; columns: string[] | null }>(
      'SELECT format, columns FROM imports WHERE id = $1',
      [id],
    );
    const columns = job.format === 'csv' ? (job.columns ?? []) : ['data'];
    let ended = false;
    const unhold = watch?.hold('export', ctx.caller, () => {
      ended = true;
      res.destroy();
    });
    try {
      res.status(200);
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${id}-failed-rows.csv"`);
      res.setHeader('Cache-Control', 'no-store');
      let pending = csvRow(['error', 'line', ...columns]);
      let after = 0;
      for (;;) {
        const rows = await ctx.sql.query<{ row: number; line: number; cells: string[]; error: string }>(
          'SELECT row, line, cells, error FROM import_failed_rows ' +
            'WHERE import_id = $1 AND row > $2 ORDER BY row LIMIT $3',
          [id, after, PAGE],
        );
        for (const r of rows) pending += csvRow([r.error, String(r.line), ...r.cells]);
        if (ended || res.destroyed) return;
        if (!res.write(pending)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
        pending = '';
        if (rows.length < PAGE) break;
        after = rows[rows.length - 1].row;
      }
      res.end();
    } finally {
      // Held until the response is done: its last bytes may still be queued.
      if (unhold) {
        if (res.closed) unhold();
        else res.once('close', unhold);
      }
    }
  };
