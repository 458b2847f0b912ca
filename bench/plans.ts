// The query plans of the benchmark's filters, as the service states them: each filter is compiled
// as the contacts list compiles it, run once through Prisma to capture its SQL, and that SQL is
// EXPLAINed. A filter whose plan reads contacts or companies with a sequential scan is flagged:
// every benchmarked filter must be served by an index.
import { openDatabase, type OpenOptions } from '../src/db/client.ts';
import type { Prisma } from '../src/db/generated/client/client.ts';
import { CONTACT_WHERE } from '../src/schema/common/where/resources.ts';
import { compileWhere } from '../src/schema/common/where/where.compile.ts';
import { normaliseWhere } from '../src/schema/common/where/where.normalise.ts';
import { toPrismaWhere } from '../src/schema/common/where/where.prisma.ts';

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** The plan's scans, outermost first: `Index Scan contacts_…`, `Seq Scan contacts`. */
function scans(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'])
    out.push(`${node['Node Type']} ${node['Index Name'] ?? node['Relation Name']}`.replace(/ Scan/, ''));
  for (const child of node.Plans ?? []) scans(child, out);
  return out;
}

export interface FilterPlan {
  name: string;
  scans: string[];
  sequential: boolean;
}

export async function filterPlans(
  open: Pick<OpenOptions, 'databaseUrl' | 'dataDir'>,
  workspaceId: string,
  bodies: Array<[string, Record<string, unknown>]>,
): Promise<FilterPlan[]> {
  let last: { query: string; params: unknown[] } | null = null;
  const db = await openDatabase({
    ...open,
    onQuery: (e: Prisma.QueryEvent) => {
      last = { query: e.query, params: JSON.parse(e.params) as unknown[] };
    },
  });
  try {
    const plans: FilterPlan[] = [];
    for (const [name, body] of bodies) {
      const where = toPrismaWhere(
        compileWhere(CONTACT_WHERE, normaliseWhere(CONTACT_WHERE, body.where), []),
        workspaceId,
      );
      // The page query of the contacts list: newest first, one row more than the page.
      await db.prisma.contact.findMany({
        where: { workspaceId, ...where },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: 101,
      });
      const { query, params } = last!;
      const [row] = await db.prisma.$queryRawUnsafe<Array<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>>(
        `EXPLAIN (FORMAT JSON) ${query}`,
        ...params,
      );
      const found = scans(row['QUERY PLAN'][0].Plan);
      plans.push({ name, scans: found, sequential: found.some((s) => /^Seq (contacts|companies)$/.test(s)) });
    }
    return plans;
  } finally {
    await db.close();
  }
}
