// The Import type: a job's settings and progress, as GET /v1/imports/:id answers them.
import type { Import } from '../../db/generated/client/client.ts';
import { etaSeconds, rowsPerSecond, type ImportStatus as Status } from '../../records/import.ts';
import { builder } from '../builder.ts';
import type { ErrorCode as ErrorCodeValue } from '../../errors.ts';
import { ErrorCode, ImportFormat, ImportMode, ImportResource, ImportStatus, ImportUpsertKey } from '../common/enums.ts';

const ImportErrorType = builder.objectRef<{ code: ErrorCodeValue; message: string }>('ImportError').implement({
  description: 'Why an import job stopped.',
  fields: (t) => ({
    code: t.field({
      type: ErrorCode,
      description: 'forbidden: its key was revoked or expired, its user deactivated, or the permission taken away',
      resolve: (e) => e.code,
    }),
    message: t.exposeString('message'),
  }),
});

export const ImportType = builder.objectRef<Import>('Import').implement({
  description:
    'An import job: a file of contacts, companies or deals read in the background. Rows that cannot be imported ' +
    'are counted in rows_failed and listed, with the reason, by GET /v1/imports/:id/failed-rows.',
  fields: (t) => ({
    id: t.exposeID('id'),
    resource: t.field({ type: ImportResource, resolve: (i) => i.resource as 'contacts' }),
    format: t.field({ type: ImportFormat, resolve: (i) => i.format as 'csv' }),
    mode: t.field({ type: ImportMode, resolve: (i) => i.mode as 'create' }),
    upsert_by: t.field({
      type: ImportUpsertKey,
      nullable: true,
      description: 'The field an upsert matches records by; null with mode create',
      resolve: (i) => i.upsertBy as 'email' | null,
    }),
    mapping: t.field({
      type: 'ImportMapping',
      nullable: true,
      description:
        'Column (JSON key) → field, as given or made from the header; null when JSON lines are taken as they are',
      resolve: (i) => i.mapping as Record<string, string> | null,
    }),
    filename: t.exposeString('filename', {
      nullable: true,
      description: "The upload's file name; null when none was sent",
    }),
    status: t.field({ type: ImportStatus, resolve: (i) => i.status as Status }),
    rows_read: t.exposeInt('rowsRead', { description: 'Data rows read so far (the header not counted)' }),
    rows_written: t.exposeInt('rowsWritten', { description: 'Rows that created or updated a record' }),
    rows_created: t.exposeInt('rowsCreated', { description: 'Rows that created a record' }),
    rows_failed: t.exposeInt('rowsFailed', { description: 'Rows not imported, each with its reason' }),
    bytes_total: t.float({ description: 'Size of the file in bytes', resolve: (i) => Number(i.bytesTotal) }),
    bytes_read: t.float({ description: 'Bytes of the file read so far', resolve: (i) => Number(i.bytesDone) }),
    rows_per_second: t.int({
      nullable: true,
      description: 'Rows read per second of running time; null before the first rows',
      resolve: (i) => rowsPerSecond(i),
    }),
    eta_seconds: t.int({
      nullable: true,
      description:
        'Seconds left at the pace so far; 0 once completed; null while queued, before the first rows, or failed',
      resolve: (i) => etaSeconds(i),
    }),
    error: t.field({
      type: ImportErrorType,
      nullable: true,
      description: 'Why a failed import stopped; null unless status is failed',
      resolve: (i) => i.error as { code: ErrorCodeValue; message: string } | null,
    }),
    created_at: t.expose('createdAt', {
      type: 'DateTime',
      description: 'When the file was received and the job queued',
    }),
    started_at: t.expose('startedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When a worker first took the job; null while queued',
    }),
    finished_at: t.expose('finishedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the job completed or failed; null until then',
    }),
  }),
});
