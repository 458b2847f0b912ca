// Baseline: node:http and hand-written SQL through `pg` (or the embedded database's own query
// function), serving the same JSON as the service for the same rows. Benchmark use only.
import http from 'node:http';
import pg from 'pg';
import { openDatabase } from '../../src/db/client.ts';
import { encodeCursor, parseSort } from '../../src/schema/common/pagination.ts';
import { contactRecord } from '../../src/records/contact.ts';
import { CONTACT_SORT } from '../../src/schema/contact/contact.queries.ts';
import { benchEnv, envelope, pageMeta } from './envelope.ts';

const env = benchEnv();
type Query = <T>(sql: string, params: unknown[]) => Promise<T[]>;
let query: Query;
let close: () => Promise<void>;
if (env.databaseUrl) {
  const pool = new pg.Pool({ connectionString: env.databaseUrl, max: 10 });
  query = async (sql, params) => (await pool.query(sql, params)).rows;
  close = () => pool.end();
} else {
  const db = await openDatabase({ dataDir: env.dataDir });
  query = async (sql, params) => (await db.pglite!.query(sql, params)).rows as never;
  close = () => db.close();
}

const COLUMNS = `id, first_name AS "firstName", last_name AS "lastName", email, phone, company, job_title AS "jobTitle",
  status, source, tags,
  assigned_to AS "assignedToId", engagement_score AS "engagementScore", custom_fields AS "customFields", address,
  created_at AS "createdAt", updated_at AS "updatedAt"`;
const contactKeys = parseSort(undefined, CONTACT_SORT);
type Row = Parameters<typeof contactRecord>[0];

function send(res: http.ServerResponse, status: number, body: string) {
  res.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

async function handle(req: http.IncomingMessage, res: http.ServerResponse) {
  const url = new URL(req.url ?? '/', 'http://bench');
  const byId = /^\/contacts\/([^/]+)$/.exec(url.pathname);
  if (byId) {
    const [row] = await query<Row>(`SELECT ${COLUMNS} FROM contacts WHERE id = $1 AND workspace_id = $2`, [
      byId[1],
      env.readWorkspace,
    ]);
    return row ? send(res, 200, envelope(contactRecord(row))) : send(res, 404, '{"success":false}');
  }
  if (url.pathname === '/contacts') {
    const limit = Number(url.searchParams.get('limit') ?? 25);
    const [rows, [{ n }]] = await Promise.all([
      query<Row>(`SELECT ${COLUMNS} FROM contacts WHERE workspace_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`, [
        env.readWorkspace,
        limit + 1,
      ]),
      query<{ n: number }>('SELECT count(*)::int AS n FROM contacts WHERE workspace_id = $1', [env.readWorkspace]),
    ]);
    const nodes = rows.slice(0, limit);
    const more = rows.length > limit;
    return send(
      res,
      200,
      envelope(
        nodes.map(contactRecord),
        pageMeta(n, limit, more, more ? encodeCursor('contacts', contactKeys, nodes[limit - 1]) : null),
      ),
    );
  }
  if (url.pathname === '/healthz') return send(res, 200, '"ok"');
  send(res, 404, '{"success":false}');
}

http
  .createServer((req, res) => {
    handle(req, res).catch((err) => send(res, 500, JSON.stringify({ success: false, error: String(err) })));
  })
  .listen(env.port, '127.0.0.1');
process.on('SIGTERM', () => void close().finally(() => process.exit(0)));
