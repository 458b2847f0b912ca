// GET /v1/imports/:id/failed-rows: the rows an import could not write, as CSV, to fix and send
// again. Columns: `error` (why), `line` (where the row starts in the file), then the file's own
// columns with the cells exactly as read — not neutralised against spreadsheet formulas as
// exports are, so a fixed file imports the same values (a phone number's leading +). A JSON Lines
// import's rows are its lines, in one `data` column. Read page by page, written as the client reads.
import { once } from 'node:events';
import type { Response } from 'express';
import type { Context } from '../../schema/context.ts';
import { csvRow } from '../export/export.format.ts';

export type SendFile = (res: Response, ctx: Context, file: 'import-failed-rows', value: unknown) => Promise<void>;

const PAGE = 1000;

export const sendFailedRows: SendFile = async (res, ctx, _file, value) => {
  const { id } = value as { id: string };
  const [job] = await ctx.sql.query<{ format: string; columns: string[] | null }>(
    'SELECT format, columns FROM imports WHERE id = $1',
    [id],
  );
  const columns = job.format === 'csv' ? (job.columns ?? []) : ['data'];
  res.status(200);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', `attachment; filename="${id}-failed-rows.csv"`);
  res.setHeader('Cache-Control', 'no-store');
  let pending = csvRow(['error', 'line', ...columns]);
  let after = 0;
  for (;;) {
    const rows = await ctx.sql.query<{ row: number; line: number; cells: string[]; error: string }>(
      'SELECT row, line, cells, error FROM import_failed_rows WHERE import_id = $1 AND row > $2 ORDER BY row LIMIT $3',
      [id, after, PAGE],
    );
    for (const r of rows) pending += csvRow([r.error, String(r.line), ...r.cells]);
    if (res.destroyed) return;
    if (!res.write(pending)) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    pending = '';
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1].row;
  }
  res.end();
};
