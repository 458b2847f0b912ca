// The API's envelopes, rebuilt without the service's middleware so the baselines send the same
// JSON for the same rows.
import { randomUUID } from 'node:crypto';

export const requestId = () => `req_${randomUUID().replace(/-/g, '')}`;

export function envelope(data: unknown, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    success: true,
    data,
    meta: { request_id: requestId(), timestamp: new Date().toISOString(), ...extra },
  });
}

export function pageMeta(total: number, limit: number, hasMore: boolean, nextCursor: string | null) {
  return { total, limit, has_more: hasMore, next_cursor: nextCursor };
}

export function benchEnv() {
  const port = Number(process.env.PORT);
  const readWorkspace = process.env.BENCH_READ_WORKSPACE!;
  const writeWorkspace = process.env.BENCH_WRITE_WORKSPACE!;
  if (!port || !readWorkspace || !writeWorkspace)
    throw new Error('PORT, BENCH_READ_WORKSPACE and BENCH_WRITE_WORKSPACE are required');
  return {
    port,
    readWorkspace,
    writeWorkspace,
    databaseUrl: process.env.DATABASE_URL || null,
    dataDir: process.env.DATA_DIR || null,
  };
}
