// Baseline: the plainest Express + Prisma handlers serving the same JSON as the service for the
// same rows, with no authentication, rate limit, logging or GraphQL. Benchmark use only.
import express from 'express';
import { openDatabase } from '../../src/db/client.ts';
import { newId } from '../../src/ids.ts';
import { encodeCursor, parseSort } from '../../src/schema/common/pagination.ts';
import { contactRecord } from '../../src/records/contact.ts';
import { CONTACT_SORT } from '../../src/schema/contact/contact.queries.ts';
import { DEAL_SORT } from '../../src/schema/deal/deal.queries.ts';
import { dealRecord } from './deal-record.ts';
import { benchEnv, envelope, pageMeta } from './envelope.ts';

const env = benchEnv();
const db = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
const { prisma } = db;
const contactKeys = parseSort(undefined, CONTACT_SORT);
const dealKeys = parseSort(undefined, DEAL_SORT);
const newestFirst = [{ createdAt: 'desc' as const }, { id: 'desc' as const }];

const app = express();
app.disable('x-powered-by');
app.set('etag', false);
const json = (res: express.Response, status: number, body: string) =>
  res.status(status).type('application/json').send(body);

app.get('/contacts/:id', async (req, res) => {
  const contact = await prisma.contact.findUnique({ where: { id: req.params.id, workspaceId: env.readWorkspace } });
  if (!contact) return json(res, 404, '{"success":false}');
  json(res, 200, envelope(contactRecord(contact)));
});

app.get('/contacts', async (req, res) => {
  const limit = Number(req.query.limit ?? 25);
  const where = { workspaceId: env.readWorkspace };
  const [rows, total] = await Promise.all([
    prisma.contact.findMany({ where, orderBy: newestFirst, take: limit + 1 }),
    prisma.contact.count({ where }),
  ]);
  const nodes = rows.slice(0, limit);
  const more = rows.length > limit;
  json(
    res,
    200,
    envelope(
      nodes.map(contactRecord),
      pageMeta(total, limit, more, more ? encodeCursor('contacts', contactKeys, nodes[limit - 1]) : null),
    ),
  );
});

app.get('/deals', async (req, res) => {
  const limit = Number(req.query.limit ?? 25);
  const where = { workspaceId: env.readWorkspace };
  const [rows, total] = await Promise.all([
    prisma.deal.findMany({
      where,
      orderBy: newestFirst,
      take: limit + 1,
      include: { stage: { select: { name: true } } },
    }),
    prisma.deal.count({ where }),
  ]);
  const nodes = rows.slice(0, limit);
  const more = rows.length > limit;
  json(
    res,
    200,
    envelope(
      nodes.map(dealRecord),
      pageMeta(total, limit, more, more ? encodeCursor('deals', dealKeys, nodes[limit - 1]) : null),
    ),
  );
});

// A plain insert, without the service's validation, transaction or outbox event.
app.post('/contacts', express.json(), async (req, res) => {
  const b = req.body as { first_name: string; last_name?: string; email: string; company?: string };
  const contact = await prisma.contact.create({
    data: {
      id: newId('con'),
      workspaceId: env.writeWorkspace,
      firstName: b.first_name,
      lastName: b.last_name ?? null,
      email: b.email.toLowerCase(),
      company: b.company ?? null,
      source: 'api',
    },
  });
  json(res, 201, envelope(contactRecord(contact)));
});

app.get('/healthz', (_req, res) => res.send('ok'));
app.listen(env.port, '127.0.0.1');
process.on('SIGTERM', () => void db.close().finally(() => process.exit(0)));
