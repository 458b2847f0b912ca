// The contacts batch plan finds the records a batch names with one probe of a unique index per
// key, also while PostgreSQL's statistics lag behind the table: a workspace created and filled
// after the last ANALYZE (a new account's first import) once turned each key's lookup into a
// walk of the whole workspace, seconds a batch.
import { describe, expect } from 'vitest';
import { LOOKUP_SQL } from '../src/schema/contact/contact.batch-plan.ts';
import { withAppOptions } from './helpers/fixtures.ts';

// A schema of its own: its ANALYZE and its rows are this file's alone.
const alone = withAppOptions({ isolated: true });

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

describe('the contacts batch lookup', () => {
  alone.runIf(process.env.DATABASE_URL)(
    'probes the key’s unique index in a workspace the statistics have not seen (PostgreSQL)',
    async ({ app }) => {
      const fill = async (ws: { api: (m: string, p: string, b?: unknown) => Promise<{ status: number }> }) => {
        for (let round = 0; round < 3; round++) {
          const operations = Array.from({ length: 1000 }, (_, i) => ({
            op: 'create',
            data: { first_name: `L${i}`, email: `r${round}.lookup.${i}@example.com`, external_id: `r${round}-${i}` },
          }));
          expect((await ws.api('POST', '/v1/contacts/batch', { operations })).status).toBe(201);
        }
      };
      // The statistics know one workspace of 3,000 contacts; the second comes after them.
      await fill(await app.workspace());
      await app.db.sql.query('ANALYZE contacts');
      const ws = await app.workspace();
      await fill(ws);
      const [{ 'QUERY PLAN': plan }] = await app.db.sql.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(
        `EXPLAIN (FORMAT JSON) ${LOOKUP_SQL}`,
        [ws.id, ['con_x'], ['r0.lookup.1@example.com'], ['r0-1']],
      );
      const scans = nodes(plan[0].Plan).filter((n) => n['Relation Name'] === 'contacts');
      expect(scans).toHaveLength(3);
      for (const scan of scans) {
        expect(scan['Node Type']).toMatch(/Index/);
        expect(scan['Index Cond']).toMatch(/key(_\d+)?\.value/);
      }
    },
  );
});
