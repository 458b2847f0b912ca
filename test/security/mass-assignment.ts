// Mass assignment: read-only and server-owned fields in a body (id, workspace_id, created_at,
// engagement_score, secret, scopes, ...) never change anything, on every REST route and GraphQL
// mutation that takes a body. Each request carries unique markers; afterwards neither the
// answers nor any row of either workspace holds one, and B and the keys are untouched.
import { beforeAll, describe, expect, it } from 'vitest';
import { uniqueEmail } from '../helpers/app.ts';
import { documentFor, rootFields, ROUTES, snapshot, VALID_INPUT, variablesFor, pathFor, type Space, type World } from './fixtures.ts';

let world: World;

const MARK = `mass${Date.now().toString(36)}`;
const HOSTILE_DATE = '2001-02-03T04:05:06.000Z';
const HOSTILE_NUMBER = 918273645;

/** Fields a client must never set, with values that can be found again anywhere. */
const hostile = (b: Space): Record<string, unknown> => ({
  id: `${MARK}_id`,
  workspace_id: b.workspaceId,
  workspaceId: b.workspaceId,
  account_id: b.workspaceId,
  live_id: b.workspaceId,
  created_at: HOSTILE_DATE,
  createdAt: HOSTILE_DATE,
  updated_at: HOSTILE_DATE,
  completed_at: HOSTILE_DATE,
  closed_at: HOSTILE_DATE,
  deleted_at: HOSTILE_DATE,
  engagement_score: HOSTILE_NUMBER,
  engagementScore: HOSTILE_NUMBER,
  deal_count: HOSTILE_NUMBER,
  total_value: HOSTILE_NUMBER,
  secret: `${MARK}_secret_0123456789`,
  secret_encrypted: `${MARK}_sealed`,
  scope: 'full',
  scopes: ['full'],
  permissions: ['webhooks:write'],
  api_key_id: `${MARK}_key`,
  key_id: `${MARK}_key`,
  hash: `${MARK}_hash`,
  sandbox: true,
  is_sandbox: true,
  user_id: `${MARK}_user`,
  created_by: `${MARK}_user`,
  stage_history: [{ to_stage_id: `${MARK}_stage` }],
  attempts: HOSTILE_NUMBER,
});

/** The markers, as they would read in an answer or in a row's text. */
const MARKERS = [MARK, '2001-02-03', String(HOSTILE_NUMBER)];
const found = (text: string) => MARKERS.filter((m) => text.includes(m));

/** Whether a field is one of the route's own, settable by design: a webhook's signing secret. */
const settable = (operation: string, field: string) => field === 'secret' && /Webhook$/.test(operation);

/** Merges and deal contacts use up their contacts: each call gets two new ones. */
async function freshContacts(space: Space): Promise<Space> {
  const make = async () => (await space.api('POST', '/v1/contacts', { first_name: 'Fresh', email: uniqueEmail('fresh') })).body.data.id as string;
  return { ...space, ids: { ...space.ids, contact: await make() }, otherContactId: await make() };
}

const apiKeys = () => world.app.db.prisma.apiKey.findMany({ where: { workspaceId: { in: [world.A.workspaceId, world.B.workspaceId] } }, select: { id: true, scope: true, permissions: true, sandbox: true, workspaceId: true, hash: true, revokedAt: true }, orderBy: { id: 'asc' } });

export function massAssignmentTests(worldOf: () => World): void {
  describe('mass assignment', () => {
    beforeAll(() => {
      world = worldOf();
    });

    it('REST and GraphQL bodies cannot set ids, workspaces, timestamps, scores, secrets or scopes', async () => {
      const { A, B } = world;
      const beforeB = await snapshot(world, B.workspaceId);
      const keysBefore = await apiKeys();
      let checked = 0;
      for (const r of ROUTES) {
        if (!r.route.body) continue;
        const space = await freshContacts(A);
        const body = { ...Object.fromEntries(Object.entries(hostile(B)).filter(([k]) => !settable(r.field, k))), ...VALID_INPUT[r.field](space) };
        const path = pathFor(r, space);
        const res = await A.api(r.route.method, path, body);
        const what = `${r.route.method} ${path}: ${res.text}`;
        expect(res.status, what).toBeLessThan(300);
        expect(found(res.text), what).toEqual([]);
        checked++;
      }
      for (const f of rootFields()) {
        if (!f.field.args.some((a) => a.name === 'input') || !VALID_INPUT[f.name]) continue;
        const space = await freshContacts(A);
        const variables = variablesFor(f, space);
        variables.input = { ...Object.fromEntries(Object.entries(hostile(B)).filter(([k]) => !settable(f.name, k))), ...(variables.input as object) };
        const result = await world.gql(A, documentFor(f), variables);
        const what = `${f.name}: ${JSON.stringify(result)}`;
        expect(result.errors, what).toBeUndefined();
        expect(found(JSON.stringify(result)), what).toEqual([]);
        checked++;
      }
      const rowsA = (await snapshot(world, A.workspaceId)).join('\n');
      expect(found(rowsA), 'a marker was stored in workspace A').toEqual([]);
      expect(await snapshot(world, B.workspaceId), 'workspace B changed').toEqual(beforeB);
      expect(await apiKeys(), 'an API key changed').toEqual(keysBefore);
      console.log(`mass assignment: ${checked} routes and mutations × ${Object.keys(hostile(B)).length} protected fields`);
    }, 120_000);

    it('a webhook never shows its secret after creation, whatever the body asked for', async () => {
      const created = await world.A.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['contact.created'], secret: `${MARK}_own_secret_123` });
      expect(created.status).toBe(201);
      expect(created.body.data.secret).toBe(`${MARK}_own_secret_123`);
      for (const path of [`/v1/webhooks/${created.body.data.id}`, '/v1/webhooks?limit=100']) {
        const res = await world.A.api('GET', path);
        expect(res.text).not.toContain(`${MARK}_own_secret`);
      }
      const updated = await world.A.api('PUT', `/v1/webhooks/${created.body.data.id}`, { description: 'no secret here' });
      expect(updated.text).not.toContain(`${MARK}_own_secret`);
    });
  });
}
