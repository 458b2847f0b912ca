// An import job on the wire: GET /v1/imports/:id, the GraphQL Import type and the import.completed
// event all answer this shape. Below the GraphQL schema, so the event catalogue can use it.
import type { Import } from '../db/generated/client/client.ts';
import { UPSERT_KEYS as UPSERT_KEYS_OF } from './upsert-keys.ts';

export const IMPORT_RESOURCES = ['contacts', 'companies', 'deals'] as const;
export type ImportResource = (typeof IMPORT_RESOURCES)[number];
export const IMPORT_FORMATS = ['csv', 'jsonl'] as const;
export const IMPORT_MODES = ['create', 'upsert'] as const;

/** The keys an upsert of each importable resource may match records by. */
export const UPSERT_KEYS: Record<ImportResource, readonly string[]> = {
  contacts: UPSERT_KEYS_OF.contacts,
  companies: UPSERT_KEYS_OF.companies,
  deals: UPSERT_KEYS_OF.deals,
};

export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Rows per second over the job's running time so far; null before its first rows. */
export function rowsPerSecond(i: Import): number | null {
  return i.runSeconds > 0 && i.rowsRead > 0 ? Math.round(i.rowsRead / i.runSeconds) : null;
}

/** Seconds left at the pace so far, by bytes (rows vary in size); 0 once over, null when not known. */
export function etaSeconds(i: Import): number | null {
  if (i.status === 'completed') return 0;
  if (i.status === 'failed' || i.runSeconds <= 0 || i.bytesDone <= 0n) return null;
  const rate = Number(i.bytesDone) / i.runSeconds;
  return Math.ceil(Number(i.bytesTotal - i.bytesDone) / rate);
}

export function importRecord(i: Import) {
  return {
    id: i.id,
    resource: i.resource,
    format: i.format,
    mode: i.mode,
    upsert_by: i.upsertBy,
    mapping: i.mapping as Record<string, string> | null,
    filename: i.filename,
    status: i.status as ImportStatus,
    rows_read: i.rowsRead,
    rows_written: i.rowsWritten,
    rows_failed: i.rowsFailed,
    rows_created: i.rowsCreated,
    bytes_total: Number(i.bytesTotal),
    bytes_read: Number(i.bytesDone),
    rows_per_second: rowsPerSecond(i),
    eta_seconds: etaSeconds(i),
    error: i.error as { code: string; message: string } | null,
    created_at: i.createdAt.toISOString(),
    started_at: i.startedAt?.toISOString() ?? null,
    finished_at: i.finishedAt?.toISOString() ?? null,
  };
}
