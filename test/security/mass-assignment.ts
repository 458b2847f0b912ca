// Mass assignment: read-only and server-owned fields in a body (id, workspace_id, created_at,
// engagement_score, version, secret, scopes, ...) never change anything, on every REST route and GraphQL
// mutation that takes a body, at the top level and inside every nested object the body schema
// has (each row of a bulk create, addresses, stages, reminders, retry policies, custom_fields).
// Each request carries unique markers; afterwards neither the answers nor any row of either
// workspace holds one, and B and the keys are untouched. The dashboard's createApiKey mutation
// gets server-owned key fields too, through a signed-in session.
import { beforeAll, describe, expect, it } from 'vitest';
import { requestSchema } from '../../src/rest/openapi/request.ts';
import { uniqueEmail } from '../helpers/app.ts';
import { setPassword, signIn } from '../helpers/dashboard.ts';
import {
  apiOf,
  documentFor,
  rootFields,
  ROUTES,
  snapshot,
  VALID_INPUT,
  variablesFor,
  pathFor,
  isRead,
  type RouteIds,
  type Space,
  type World,
} from './fixtures.ts';

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
  // Raised by the database on every write; a body never sets it (If-Match / expected_version compare it).
  version: HOSTILE_NUMBER,
});

/** The markers, as they would read in an answer or in a row's text. */
const MARKERS = [MARK, '2001-02-03', String(HOSTILE_NUMBER)];
const found = (text: string) => MARKERS.filter((m) => text.includes(m));

/**
 * Whether a field is one of the operation's own, settable by design: a webhook's signing secret,
 * chosen at creation only (docs/decisions.md: an update ignores a `secret` in its body).
 */
const settable = (operation: string, field: string) => field === 'secret' && operation === 'createWebhook';

/** The protected fields an operation's body gets, at every level. */
const protectedFields = (operation: string, b: Space) =>
  Object.fromEntries(Object.entries(hostile(b)).filter(([k]) => !settable(operation, k)));

/**
 * A valid value for each nested object (or array of objects) of a request body, found in the
 * route's body schema; the protected fields go inside it. null: a map whose entries are the
 * client's own data, stored by design (a webhook's custom headers and filter values). A new
 * nested object fails the test until it is classified here.
 */
const NESTED: Record<string, { value: (s: Space) => unknown; alongside?: Record<string, unknown> } | null> = {
  contacts: { value: () => [{ first_name: 'Nested', email: uniqueEmail('nested') }] },
  // A batch's operations, and the record fields each one writes.
  operations: { value: (s) => [{ op: 'update', id: s.ids.contact, data: { job_title: 'Nested' } }] },
  data: { value: () => ({}) },
  address: { value: () => ({ city: 'Nested City' }) },
  // Hostile keys become custom field values of keys the workspace never defined: dropped.
  custom_fields: { value: () => ({}) },
  stages: { value: () => [{ name: 'Nested stage', probability: 20 }] },
  // A reminder needs its task's due date.
  reminder: {
    value: () => ({ type: 'email', before_minutes: 15 }),
    alongside: { due_date: '2099-01-02T03:04:05.000Z' },
  },
  retry_policy: { value: () => ({ max_retries: 2 }) },
  headers: null,
  filters: null,
};

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
};
/** `X | null` is `anyOf: [X, null]` in the body schema: X. */
const unwrap = (p: JsonSchema | undefined): JsonSchema | undefined => p?.anyOf?.find((x) => x.type !== 'null') ?? p;

/** `valid` with the protected fields added to it and, recursively, to every nested object the schema gives it. */
function withProtected(
  schema: JsonSchema,
  valid: Record<string, unknown>,
  operation: string,
  space: Space,
  b: Space,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...protectedFields(operation, b), ...valid };
  for (const [name, raw] of Object.entries(schema.properties ?? {})) {
    const p = unwrap(raw)!;
    const item = unwrap(p.items);
    const kind =
      p.type === 'array' && item?.type === 'object'
        ? 'array'
        : p.type === 'object'
          ? p.properties
            ? 'object'
            : 'map'
          : null;
    if (!kind) continue;
    expect(
      NESTED,
      `say in NESTED what a valid "${name}" (${operation}) is, or null if its entries are the client's own data`,
    ).toHaveProperty([name]);
    const nested = NESTED[name];
    if (!nested) continue;
    const value = valid[name] ?? nested.value(space);
    for (const [k, v] of Object.entries(nested.alongside ?? {})) if (!(k in valid)) out[k] = v;
    if (kind === 'array')
      out[name] = (value as Record<string, unknown>[]).map((v) => withProtected(item!, v, operation, space, b));
    else if (kind === 'object') out[name] = withProtected(p, value as Record<string, unknown>, operation, space, b);
    else out[name] = { ...protectedFields(operation, b), ...(value as object) };
  }
  return out;
}

/** A route's valid body with the protected fields at every level. */
const hostileBodyFor = (r: RouteIds, space: Space, b: Space) =>
  withProtected(requestSchema(r.route.body!) as JsonSchema, VALID_INPUT[r.field](space), r.field, space, b);

/** How many nested objects got the protected fields, for the closing count. */
function nestedCount(value: unknown, depth = 0): number {
  if (Array.isArray(value)) return value.reduce((n: number, v) => n + nestedCount(v, depth), 0);
  if (!value || typeof value !== 'object') return 0;
  const here = depth > 0 && 'workspace_id' in value ? 1 : 0;
  return here + Object.values(value).reduce((n: number, v) => n + nestedCount(v, depth + 1), 0);
}

/** Merges and deal contacts use up their contacts (company merges their companies): each call gets new ones. */
async function freshContacts(space: Space): Promise<Space> {
  const make = async () =>
    (await space.api('POST', '/v1/contacts', { first_name: 'Fresh', email: uniqueEmail('fresh') })).body.data
      .id as string;
  const company = async () =>
    (await space.api('POST', '/v1/companies', { name: 'Fresh company' })).body.data.id as string;
  return {
    ...space,
    ids: { ...space.ids, contact: await make(), company: await company() },
    otherContactId: await make(),
    otherCompanyId: await company(),
  };
}

const apiKeys = () =>
  world.app.db.prisma.apiKey.findMany({
    where: { workspaceId: { in: [world.A.workspaceId, world.B.workspaceId] } },
    select: { id: true, scope: true, permissions: true, sandbox: true, workspaceId: true, hash: true, revokedAt: true },
    orderBy: { id: 'asc' },
  });

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
      let nested = 0;
      for (const r of ROUTES) {
        // Reads (POST …/query) store nothing a body could smuggle in.
        if (!r.route.body || isRead(r.route)) continue;
        const space = await freshContacts(A);
        const body = hostileBodyFor(r, space, B);
        const path = pathFor(r, space);
        const res = await A.api(r.route.method, path, body);
        const what = `${r.route.method} ${path} ${JSON.stringify(body).slice(0, 2000)}: ${res.text}`;
        expect(res.status, what).toBeLessThan(300);
        // Each row of a bulk create succeeds or fails alone: every one must have succeeded.
        if (res.body.data?.failed !== undefined) expect(res.body.data.failed, what).toBe(0);
        expect(found(res.text), what).toEqual([]);
        checked++;
        nested += nestedCount(body);
      }
      for (const f of rootFields()) {
        if (!f.field.args.some((a) => a.name === 'input') || !VALID_INPUT[f.name]) continue;
        // An import's input names an upload, used once: its settings are checked in test/imports.test.ts.
        if (f.name === 'createImport') continue;
        const route = ROUTES.find((r) => r.field === f.name && r.route.body);
        expect(route, `${f.name}: no route gives its input's schema`).toBeDefined();
        const space = await freshContacts(A);
        const variables = variablesFor(f, space);
        // GraphQL inputs are typed: a field the input type does not have is refused before anything runs.
        variables.input = hostileBodyFor(route!, space, B);
        const refused = await world.gql(A, documentFor(f), variables);
        const what = `${f.name} ${JSON.stringify(variables.input).slice(0, 2000)}: ${JSON.stringify(refused)}`;
        expect(refused.data ?? null, what).toBeNull();
        expect(refused.errors?.length, what).toBeGreaterThan(0);
        for (const e of refused.errors ?? []) expect(e.extensions?.code, what).toBe('validation_error');
        // The same input without them works.
        variables.input = VALID_INPUT[f.name](space);
        const valid = await world.gql(A, documentFor(f), variables);
        expect(valid.errors, `${f.name} ${JSON.stringify(variables.input)}: ${JSON.stringify(valid)}`).toBeUndefined();
        checked++;
        nested += nestedCount(hostileBodyFor(route!, space, B));
      }
      const rowsA = (await snapshot(world, A.workspaceId)).join('\n');
      expect(found(rowsA), 'a marker was stored in workspace A').toEqual([]);
      // Secrets are stored sealed, where markers cannot be seen: an update's `secret` must not have replaced one.
      for (const sub of await world.app.db.prisma.webhookSubscription.findMany({
        where: { workspaceId: A.workspaceId },
      })) {
        expect(
          world.app.webhooks.box.open(sub.secretEncrypted),
          `webhook ${sub.id}: its secret was set by a body`,
        ).not.toContain(MARK);
      }
      expect(await snapshot(world, B.workspaceId), 'workspace B changed').toEqual(beforeB);
      expect(await apiKeys(), 'an API key changed').toEqual(keysBefore);
      console.log(
        `mass assignment: ${checked} routes and mutations × ${Object.keys(hostile(B)).length} protected fields, ` +
          `also inside ${nested} nested objects`,
      );
    }, 120_000);

    it('a webhook never shows its secret after creation, whatever the body asked for', async () => {
      const created = await world.A.api('POST', '/v1/webhooks', {
        url: 'http://127.0.0.1:9/hook',
        events: ['contact.created'],
        secret: `${MARK}_own_secret_123`,
      });
      expect(created.status).toBe(201);
      expect(created.body.data.secret).toBe(`${MARK}_own_secret_123`);
      for (const path of [`/v1/webhooks/${created.body.data.id}`, '/v1/webhooks?limit=100']) {
        const res = await world.A.api('GET', path);
        expect(res.text).not.toContain(`${MARK}_own_secret`);
      }
      const updated = await world.A.api('PUT', `/v1/webhooks/${created.body.data.id}`, {
        description: 'no secret here',
      });
      expect(updated.text).not.toContain(`${MARK}_own_secret`);
      // An update cannot choose the secret: a `secret` in its body is ignored (docs/webhooks.md);
      // only `rotate_secret: true` replaces it, with a generated one.
      const chosen = await world.A.api('PUT', `/v1/webhooks/${created.body.data.id}`, {
        description: 'chosen secret',
        secret: `${MARK}_put_secret_456`,
      });
      expect(chosen.status).toBe(200);
      expect(chosen.text).not.toContain(`${MARK}_put_secret`);
      const row = await world.app.db.prisma.webhookSubscription.findUniqueOrThrow({
        where: { id: created.body.data.id },
      });
      expect(world.app.webhooks.box.open(row.secretEncrypted)).toBe(`${MARK}_own_secret_123`);
    });

    it('createApiKey (dashboard) refuses or drops server-owned fields: session workspace, scope as asked', async () => {
      const { A, B, wsA } = world;
      const email = uniqueEmail('dashboard');
      const user = await wsA.addUser('Dashboard user', email);
      await setPassword(world.app.db, email);
      const session = await signIn(world.app.base, email);
      const userB = await world.app.db.prisma.user.findFirstOrThrow({ where: { workspaceId: B.workspaceId } });
      /** Fields of a key the server owns, naming B or holding markers. */
      const serverOwned = {
        id: `${MARK}_key`,
        workspace_id: B.workspaceId,
        workspaceId: B.workspaceId,
        account_id: B.workspaceId,
        hash: `${MARK}_hash`,
        key_hash: `${MARK}_hash`,
        key: `crm_live_${MARK}`.padEnd(41, 'x').slice(0, 41),
        prefix: `crm_live_${MARK}`,
        last_used_at: HOSTILE_DATE,
        created_at: HOSTILE_DATE,
        revoked_at: HOSTILE_DATE,
        sandbox: true,
        environment: 'sandbox',
        user_id: userB.id,
        userId: userB.id,
        scopes: ['full'],
      };
      const CREATE =
        'mutation ($i: ApiKeyCreateInput!) { createApiKey(input: $i) { key api_key { ' +
        'id name prefix scope permissions environment created_at last_used_at revoked_at } } }';
      /** Valid inputs and the permissions each key must get: exactly those of a custom scope, none for the others. */
      const valid: { input: Record<string, unknown>; permissions: string[] }[] = [
        {
          input: { name: 'Mass custom key', scope: 'custom', permissions: ['contacts:read'] },
          permissions: ['contacts:read'],
        },
        { input: { name: 'Mass read-only key', scope: 'read_only' }, permissions: [] },
        {
          input: { name: 'Mass read-only key with permissions', scope: 'read_only', permissions: ['webhooks:write'] },
          permissions: [],
        },
      ];
      const keysOfB = async () => (await apiKeys()).filter((k) => k.workspaceId === B.workspaceId);
      const keysOfBBefore = await keysOfB();
      let refused = 0;
      let created = 0;
      for (const { input, permissions } of valid) {
        // None (the valid input must work), all at once, then each
        // alone (a strict input may name only the first unknown field).
        const variants = [{}, serverOwned, ...Object.entries(serverOwned).map(([k, v]) => ({ [k]: v }))];
        for (const extra of variants) {
          const keysA = await world.app.db.prisma.apiKey.count({ where: { workspaceId: A.workspaceId } });
          const keysBefore = await apiKeys();
          const r = await session.gql(CREATE, { i: { ...extra, ...input } });
          const what = `createApiKey ${JSON.stringify({ ...extra, ...input })}: ${JSON.stringify(r)}`;
          if (r.errors?.length && Object.keys(extra).length) {
            // Refused: a validation error, and no key anywhere.
            expect(r.errors[0].extensions?.code, what).toBe('validation_error');
            expect(await apiKeys(), what).toEqual(keysBefore);
            refused++;
            continue;
          }
          expect(r.errors, what).toBeUndefined();
          created++;
          const { key, api_key } = r.data.createApiKey;
          expect(found(JSON.stringify(r)), what).toEqual([]);
          expect(api_key, what).toMatchObject({
            name: input.name,
            scope: input.scope,
            permissions,
            environment: 'production',
            last_used_at: null,
            revoked_at: null,
          });
          const row = await world.app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: api_key.id } });
          expect(row, what).toMatchObject({
            workspaceId: A.workspaceId,
            userId: user.id,
            sandbox: false,
            scope: input.scope,
            permissions,
            revokedAt: null,
            lastUsedAt: null,
          });
          expect(found(JSON.stringify(row)), what).toEqual([]);
          expect(Date.now() - row.createdAt.getTime(), what).toBeLessThan(600_000);
          expect(await world.app.db.prisma.apiKey.count({ where: { workspaceId: A.workspaceId } }), what).toBe(
            keysA + 1,
          );
          // It works on A's data, as the session's workspace.
          const contact = await apiOf(world, key)('GET', `/v1/contacts/${A.ids.contact}`);
          expect(contact.status, what).toBe(200);
        }
      }
      expect(await keysOfB(), "B's keys changed").toEqual(keysOfBBefore);
      console.log(
        `mass assignment, createApiKey: ${refused + created} inputs (${valid.length} valid ones alone; ` +
          `of ${refused + created - valid.length} with server-owned fields, ${refused} refused, ` +
          `${created - valid.length} created with them ignored)`,
      );
    });
  });
}
