// Records every SQL statement the app sends while it lists deals with their relations, and
// checks the count is small and the same for 5 and for 50 deals: relations are loaded with
// the page, not once per deal.
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser, createWorkspace } from '../src/admin/workspaces.ts';
import { client, gql, type Client, type TestApp } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';

let app: TestApp;
const statements: string[] = [];

const test = withAppOptions({ onQuery: (e) => statements.push(e.query) });
test.beforeAll(({ app: started }) => {
  app = started;
});

/** A workspace holding `n` deals, each with its own contact and owner. */
async function workspaceWithDeals(n: number): Promise<{ key: string; api: Client }> {
  const ws = await createWorkspace(app.db.prisma, { name: `N+1 ${n}`, plan: 'enterprise' });
  const { key } = await createApiKey(app.db.prisma, { workspace: ws.id, name: 'n+1', scope: 'full' });
  const api = client(app.base, key);
  const pipeline = (await api('GET', '/v1/pipelines')).body.data[0];
  for (let i = 0; i < n; i++) {
    const owner = await createUser(app.db.prisma, {
      workspace: ws.id,
      name: `Owner ${i}`,
      email: `owner${i}.${n}@example.com`,
    });
    const contact = (await api('POST', '/v1/contacts', { first_name: `C${i}`, email: `c${i}.${n}@example.com` })).body
      .data;
    const r = await api('POST', '/v1/deals', {
      title: `Deal ${i}`,
      pipeline_id: pipeline.id,
      stage_id: pipeline.stages[i % pipeline.stages.length].id,
      value: i * 10,
      owner_id: owner.id,
      contact_id: contact.id,
    });
    expect(r.status).toBe(201);
  }
  return { key, api };
}

/**
 * The SQL statements `work` caused, after one warm-up call (key lookup and caches), leaving out the
 * API key lookup (the key and its workspaces): it is cached for a few seconds per key, not made per
 * request, and may expire between the two calls on a slow machine.
 */
async function countStatements(work: () => Promise<unknown>): Promise<string[]> {
  await work();
  const start = statements.length;
  await work();
  return statements.slice(start).filter((sql) => !/"(api_keys|workspaces)"/.test(sql));
}

const QUERY = `{
  deals(limit: 100) {
    total
    nodes {
      id title value stage_name
      contact { id first_name email }
      stage { id name probability }
      owner { id name }
      pipeline { id name }
    }
  }
}`;

describe('deal lists issue a constant number of SQL statements', () => {
  let small: { key: string; api: Client };
  let large: { key: string; api: Client };

  beforeAll(async () => {
    small = await workspaceWithDeals(5);
    large = await workspaceWithDeals(50);
  }, 300_000);

  it('GraphQL deals with contact, stage, owner and pipeline', async () => {
    const run = (key: string, n: number) => async () => {
      const r = await gql(app.base, key, QUERY);
      expect(r.errors).toBeUndefined();
      expect(r.data.deals.nodes).toHaveLength(n);
      expect(
        r.data.deals.nodes.every(
          (d: { contact: unknown; owner: unknown; stage: unknown }) => d.contact && d.owner && d.stage,
        ),
      ).toBe(true);
    };
    const forSmall = await countStatements(run(small.key, 5));
    const forLarge = await countStatements(run(large.key, 50));
    console.info(`GraphQL deals list: ${forSmall.length} SQL statements for 5 deals, ${forLarge.length} for 50`);
    expect(forLarge.length).toBe(forSmall.length);
    // The page, one query per relation (stage, contact, owner, pipeline) and the total.
    expect(forLarge.length).toBeLessThanOrEqual(6);
  });

  it("GraphQL contacts with their deals (Contact.deals) and the deals' stages and owners", async () => {
    const query =
      '{ contacts(limit: 100) { nodes { id deals(limit: 10) { id title stage { name } owner { name } } } } }';
    const run = (key: string, n: number) => async () => {
      const r = await gql(app.base, key, query);
      expect(r.errors).toBeUndefined();
      expect(r.data.contacts.nodes).toHaveLength(n);
      expect(r.data.contacts.nodes.every((c: { deals: unknown[] }) => c.deals.length === 1)).toBe(true);
    };
    const forSmall = await countStatements(run(small.key, 5));
    const forLarge = await countStatements(run(large.key, 50));
    expect(forLarge.length).toBe(forSmall.length);
    // The page, then one query per relation level (deals, stages, owners).
    expect(forLarge.length).toBeLessThanOrEqual(4);
  });

  it('REST GET /v1/deals', async () => {
    const run = (api: Client, n: number) => async () => {
      const r = await api('GET', '/v1/deals?limit=100');
      expect(r.body.data).toHaveLength(n);
    };
    const forSmall = await countStatements(run(small.api, 5));
    const forLarge = await countStatements(run(large.api, 50));
    console.info(`REST deals list: ${forSmall.length} SQL statements for 5 deals, ${forLarge.length} for 50`);
    expect(forLarge.length).toBe(forSmall.length);
    // The page, the stages for stage_name, and the total.
    expect(forLarge.length).toBeLessThanOrEqual(3);
  });
});
