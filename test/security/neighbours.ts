// Scopes through neighbours: a resource's data reaches a key only if it may read that resource,
// whatever path it travels. The scan is generated from the route table and the schema: every GET
// route and every query field, with every field it can select (nested records, timelines, delivery
// logs), run with a key that may read everything but one resource, must not answer any of that
// resource's marked values; the same scan with a full key must answer every one of them.
import { execute, getNamedType, isNonNullType, isObjectType, parse, validate, type GraphQLObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { Authenticator } from '../../src/auth/authenticate.ts';
import { RESOURCES, type Resource } from '../../src/auth/scopes.ts';
import { schema } from '../../src/schema/index.ts';
import type { Context } from '../../src/schema/context.ts';
import { redactionWarning } from '../../src/schema/read-access.ts';
import { until } from '../helpers/receiver.ts';
import { client, uniqueEmail, type TestWorkspace } from '../helpers/app.ts';
import { setPassword, signIn } from '../helpers/dashboard.ts';
import {
  apiOf,
  DASHBOARD_ONLY,
  importForm,
  readPath,
  rootFields,
  ROUTES,
  variablesFor,
  type Space,
  type World,
} from './fixtures.ts';

let world: World;
let ws: TestWorkspace;
let L: Space;
let contactEmail: string;

/** Values only one resource's records hold: none may reach a key that may not read it. */
const markers = (): Record<Resource, string[]> => ({
  contacts: ['Contmark', 'Lastmark', contactEmail, 'Compmark', 'Notemark'],
  // Not the name: a linked contact's company text is its copy, contact data.
  companies: ['Indmark', 'cmpnymark.example', 'Cnotemark'],
  deals: ['Dealmark', '987654', 'Wonmark'],
  pipelines: ['Pipemark'],
  tasks: ['Taskmark', 'Taskdescmark', 'Tasknotemark'],
  activities: ['Subjmark', 'Actdescmark'],
  webhooks: ['leakhookmark'],
});

async function ok(res: Promise<{ status: number; body: any; text: string }>, what: string) {
  const r = await res;
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text}`);
  return r.body.data;
}

/** A workspace whose records carry the markers, with events delivered to a webhook (so logs hold real bodies). */
async function seedMarked(): Promise<Space> {
  ws = await world.app.workspace();
  const api = ws.api;
  const user = await ws.addUser('Owner');
  contactEmail = uniqueEmail('contmark');
  const webhook = await ok(
    api('POST', '/v1/webhooks', {
      url: `${world.hook.url}/leakhookmark`,
      events: ['contact.created', 'deal.created', 'task.created', 'activity.logged'],
    }),
    'webhook',
  );
  const contact = await ok(
    api('POST', '/v1/contacts', {
      first_name: 'Contmark',
      last_name: 'Lastmark',
      email: contactEmail,
      company: 'Compmark',
    }),
    'contact',
  );
  const other = await ok(
    api('POST', '/v1/contacts', { first_name: 'Contmark other', email: uniqueEmail('contmark') }),
    'contact',
  );
  const note = await ok(api('POST', `/v1/contacts/${contact.id}/notes`, { content: 'Notemark' }), 'note');
  const company = await ok(
    api('POST', '/v1/companies', { name: 'Plain company', domain: 'cmpnymark.example', industry: 'Indmark' }),
    'company',
  );
  const otherCompany = await ok(api('POST', '/v1/companies', { name: 'Plain other company' }), 'company');
  await ok(api('PUT', `/v1/contacts/${other.id}`, { company_id: company.id }), 'contact of the company');
  await ok(api('POST', `/v1/companies/${company.id}/notes`, { content: 'Cnotemark' }), 'company note');
  const pipeline = await ok(api('POST', '/v1/pipelines', { name: 'Pipemark' }), 'pipeline');
  const stage = await ok(api('POST', `/v1/pipelines/${pipeline.id}/stages`, { name: 'Stage one' }), 'stage');
  const deal = await ok(
    api('POST', '/v1/deals', {
      title: 'Dealmark',
      value: 987654.5,
      pipeline_id: pipeline.id,
      stage_id: stage.id,
      contact_id: contact.id,
      company_id: company.id,
      owner_id: user.id,
    }),
    'deal',
  );
  await ok(api('POST', `/v1/deals/${deal.id}/contacts`, { contact_id: other.id, role: 'champion' }), 'deal contact');
  await ok(api('PUT', `/v1/deals/${deal.id}`, { status: 'won', won_reason: 'Wonmark' }), 'won');
  const activity = await ok(
    api('POST', '/v1/activities', {
      type: 'call',
      subject: 'Subjmark',
      description: 'Actdescmark',
      contact_id: contact.id,
      deal_id: deal.id,
      company_id: company.id,
    }),
    'activity',
  );
  const task = await ok(
    api('POST', '/v1/tasks', {
      title: 'Taskmark',
      description: 'Taskdescmark',
      assignee_id: user.id,
      related_to_type: 'contact',
      related_to_id: contact.id,
    }),
    'task',
  );
  await ok(api('PUT', `/v1/tasks/${task.id}/complete`, { completion_note: 'Tasknotemark' }), 'complete');
  await ok(
    api('POST', '/v1/tasks', { title: 'Taskmark two', related_to_type: 'deal', related_to_id: deal.id }),
    'task on deal',
  );
  await ok(
    api('POST', '/v1/tasks', { title: 'Taskmark three', related_to_type: 'company', related_to_id: company.id }),
    'task on company',
  );
  const worker = world.app.worker();
  const delivered = await until(async () => {
    await worker.runOnce();
    const logs = await ok(api('GET', `/v1/webhooks/${webhook.id}/logs?status=delivered&limit=100`), 'logs');
    const events = new Set(logs.map((l: { event: string }) => l.event));
    return ['contact.created', 'deal.created', 'task.created', 'activity.logged'].every((e) => events.has(e))
      ? logs
      : null;
  }, 30_000);
  const [event] = await ok(api('GET', '/v1/events?limit=1'), 'event log');
  const imported = await ok(api('POST', '/v1/imports', importForm()), 'import');
  return {
    label: 'Marked',
    workspaceId: ws.id,
    accountId: ws.id,
    key: ws.key,
    api,
    otherContactId: other.id,
    otherCompanyId: otherCompany.id,
    ids: {
      contact: contact.id,
      company: company.id,
      note: note.id,
      pipeline: pipeline.id,
      stage: stage.id,
      deal: deal.id,
      task: task.id,
      activity: activity.id,
      user: user.id,
      webhook: webhook.id,
      delivery: delivered[0].id,
      event: event.id,
      import: imported.id,
    },
  };
}

/** Every field a type can select, nested records included, each record type once per path. */
function everything(type: GraphQLObjectType, path: string[] = []): string {
  const parts = ['__typename'];
  for (const field of Object.values(type.getFields())) {
    if (field.args.some((a) => isNonNullType(a.type))) continue;
    const named = getNamedType(field.type);
    if (!isObjectType(named)) parts.push(field.name);
    else if (!path.includes(named.name)) parts.push(`${field.name} { ${everything(named, [...path, type.name])} }`);
  }
  return parts.join(' ');
}

/**
 * Every query field, each with everything it can select, run
 * in-process with `key` (document limits are not under test here).
 */
async function scanGraphql(key: string): Promise<Map<string, string>> {
  const caller = await new Authenticator(world.app.db.prisma).authenticate(`Bearer ${key}`);
  const out = new Map<string, string>();
  for (const f of rootFields().filter((f) => f.type === 'query' && !DASHBOARD_ONLY.has(f.name))) {
    const named = getNamedType(f.field.type) as GraphQLObjectType;
    const defs = f.field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
    const args = f.field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
    const document = parse(
      `query${defs ? `(${defs})` : ''} { ${f.name}${args ? `(${args})` : ''} { ${everything(named)} } }`,
    );
    expect(validate(schema, document), f.name).toEqual([]);
    const ctx: Context = {
      prisma: world.app.db.prisma,
      sql: world.app.db.sql,
      caller,
      requestId: 'scan',
      warnings: [],
      bus: world.app.bus,
      webhooks: world.app.webhooks,
      credentials: { keysChanged: () => {}, workspaceChanged: () => {} },
    };
    const result = await execute({
      schema,
      document,
      contextValue: ctx,
      variableValues: { ...variablesFor(f, L), limit: 100 },
    });
    out.set(
      `GraphQL ${f.name}`,
      JSON.stringify({ data: result.data, errors: result.errors?.map((e) => e.message), warnings: ctx.warnings }),
    );
  }
  return out;
}

/** Every GET route with the marked workspace's ids. */
async function scanRest(key: string): Promise<Map<string, string>> {
  const api = apiOf(world, key);
  const out = new Map<string, string>();
  for (const r of ROUTES.filter((r) => r.route.method === 'GET')) {
    const path = `${readPath(r, L)}&limit=100`;
    out.set(`GET ${path}`, (await api('GET', path)).text);
  }
  return out;
}

const keyOf = async (permissions: string[]) =>
  (await ws.addKey({ name: permissions.join(','), scope: 'custom', permissions })).key;

export function neighbourTests(worldOf: () => World): void {
  describe('scopes through neighbours', () => {
    beforeAll(async () => {
      world = worldOf();
      L = await seedMarked();
    }, 60_000);

    it('every GET route and query field, fully selected, shows a resource only to keys that may read it', async () => {
      const full = [...(await scanRest(ws.key)).values(), ...(await scanGraphql(ws.key)).values()].join('\n');
      for (const [resource, values] of Object.entries(markers()))
        for (const v of values) expect(full, `full key sees ${resource} value ${v}`).toContain(v);
      let scanned = 0;
      for (const resource of RESOURCES) {
        const key = await keyOf(RESOURCES.filter((r) => r !== resource).map((r) => `${r}:read`));
        const answers = new Map([...(await scanRest(key)), ...(await scanGraphql(key))]);
        for (const [what, text] of answers) {
          for (const v of markers()[resource])
            expect(text.includes(v), `without ${resource}:read, ${what} shows ${v}: ${text.slice(0, 2000)}`).toBe(
              false,
            );
          scanned++;
        }
        // The rest of the data is still there: the key was not simply refused everything.
        const all = [...answers.values()].join('\n');
        for (const other of RESOURCES.filter((r) => r !== resource))
          for (const v of markers()[other]) expect(all, `without ${resource}:read, ${other} value ${v}`).toContain(v);
      }
      console.log(
        `scopes through neighbours: ${scanned} route/field answers × resource scanned ` +
          `for ${Object.values(markers()).flat().length} marked values`,
      );
    }, 120_000);

    it('deals:read only: a deal’s contacts keep ids and roles, names and e-mails null, with a warning', async () => {
      const key = await keyOf(['deals:read']);
      const api = client(world.app.base, key);
      const deal = await api('GET', `/v1/deals/${L.ids.deal}`);
      expect(deal.status).toBe(200);
      expect(deal.body.data.contacts).toEqual(
        expect.arrayContaining([
          expect.objectContaining({
            contact_id: L.ids.contact,
            is_primary: true,
            first_name: null,
            last_name: null,
            email: null,
          }),
        ]),
      );
      expect(deal.body.meta.warnings).toEqual([redactionWarning('contacts')]);
      const contacts = await api('GET', `/v1/deals/${L.ids.deal}/contacts`);
      expect(contacts.status).toBe(200);
      expect(
        contacts.body.data.map((c: { contact_id: string; email: string | null }) => [c.contact_id, c.email]),
      ).toEqual([
        [L.ids.contact, null],
        [L.otherContactId, null],
      ]);
      expect(contacts.body.meta.warnings).toEqual([redactionWarning('contacts')]);
      expect((await api('GET', `/v1/contacts/${L.ids.contact}`)).status).toBe(403);
      const g = await world.gql(
        { key },
        '{ deals { nodes { id contacts { contact_id email contact { email } } contact { email } } } }',
      );
      const node = g.data.deals.nodes.find((d: { id: string }) => d.id === L.ids.deal);
      expect(node.contact).toBeNull();
      expect(
        node.contacts.every((c: { email: unknown; contact: unknown }) => c.email === null && c.contact === null),
      ).toBe(true);
      expect(new Set(g.errors?.map((e) => e.extensions?.code))).toEqual(new Set(['forbidden']));
      expect(g.extensions?.warnings).toEqual([redactionWarning('contacts')]);
      expect(JSON.stringify(g)).not.toContain(contactEmail);
    });

    it('contacts:read only: the timeline and its total leave out deal, task and activity entries', async () => {
      const onlyContacts = await client(world.app.base, await keyOf(['contacts:read']))(
        'GET',
        `/v1/contacts/${L.ids.contact}/timeline?limit=100`,
      );
      expect(onlyContacts.status).toBe(200);
      const types = onlyContacts.body.data.map((e: { type: string }) => e.type);
      expect(types.length).toBeGreaterThan(0);
      expect(types.every((t: string) => t.startsWith('contact.') || t.startsWith('note.'))).toBe(true);
      expect(onlyContacts.body.meta.total).toBe(types.length);
      const withDeals = await client(world.app.base, await keyOf(['contacts:read', 'deals:read']))(
        'GET',
        `/v1/contacts/${L.ids.contact}/timeline?limit=100`,
      );
      expect(withDeals.body.data.some((e: { type: string }) => e.type === 'deal.won')).toBe(true);
      expect(
        withDeals.body.data.some((e: { type: string }) => e.type.startsWith('task.') || e.type.startsWith('activity.')),
      ).toBe(false);
    });

    it('a webhook may subscribe, be changed, test-sent and redelivered only for events the key may read', async () => {
      const writeOnly = client(world.app.base, await keyOf(['webhooks:write']));
      const url = `${world.hook.url}/mine`;
      for (const events of [
        ['contact.created'],
        ['deal.won'],
        ['task.created'],
        ['activity.logged'],
        ['invoice.paid'],
      ]) {
        const r = await writeOnly('POST', '/v1/webhooks', { url, events });
        expect(r.status, `${events}: ${r.text}`).toBe(403);
        expect(r.body.error.code).toBe('forbidden');
        expect(Object.keys(r.body.error.details)).toEqual(['events']);
      }
      const gqlRefused = await world.gql(
        { key: await keyOf(['webhooks:write']) },
        'mutation($i: WebhookCreateInput!) { createWebhook(input: $i) { id } }',
        { i: { url, events: ['contact.created'] } },
      );
      expect(gqlRefused.errors?.[0].extensions?.code).toBe('forbidden');
      // Someone else's subscription to contact events: not redirected, reactivated, test-sent or redelivered.
      expect((await writeOnly('PUT', `/v1/webhooks/${L.ids.webhook}`, { url })).status).toBe(403);
      expect((await writeOnly('PUT', `/v1/webhooks/${L.ids.webhook}`, { active: true })).status).toBe(403);
      expect((await writeOnly('POST', `/v1/webhooks/${L.ids.webhook}/test`)).status).toBe(403);
      expect((await writeOnly('POST', `/v1/webhooks/${L.ids.webhook}/logs/${L.ids.delivery}/redeliver`)).status).toBe(
        403,
      );
      const stored = await world.app.db.prisma.webhookSubscription.findUniqueOrThrow({ where: { id: L.ids.webhook } });
      expect(stored.url).toContain('leakhookmark');
      // With the read permission of what it subscribes to, it may; narrowing events to readable ones is allowed too.
      const withContacts = client(world.app.base, await keyOf(['webhooks:write', 'contacts:read']));
      const created = await withContacts('POST', '/v1/webhooks', { url, events: ['contact.created'] });
      expect(created.status, created.text).toBe(201);
      expect(
        (
          await withContacts('PUT', `/v1/webhooks/${created.body.data.id}`, {
            events: ['contact.created', 'contact.updated'],
            url: `${url}/moved`,
          })
        ).status,
      ).toBe(200);
      expect(
        (
          await withContacts('PUT', `/v1/webhooks/${L.ids.webhook}`, {
            events: ['contact.created', 'deal.created', 'task.created', 'activity.logged'],
          })
        ).status,
      ).toBe(403);
      // Deliveries still queued for the events a subscription has go wherever it points next: a key
      // that may not read them cannot narrow the events away and move the URL, at once or in two steps.
      for (const change of [
        { events: ['contact.created'], url: `${url}/stolen` },
        { events: ['contact.created'] },
        { events: ['contact.created'], active: true },
      ]) {
        const r = await withContacts('PUT', `/v1/webhooks/${L.ids.webhook}`, change);
        expect(r.status, `${JSON.stringify(change)}: ${r.text}`).toBe(403);
        expect(r.body.error.details.events.join(' ')).toContain('deal.created');
      }
      const unchanged = await world.app.db.prisma.webhookSubscription.findUniqueOrThrow({
        where: { id: L.ids.webhook },
      });
      expect(unchanged.url).toBe(stored.url);
      expect(unchanged.events).toEqual(stored.events);
    });

    it('pipelines:write only: refusing to delete a stage or pipeline holding deals tells no deal count', async () => {
      const api = client(world.app.base, await keyOf(['pipelines:write']));
      await ok(ws.api('POST', `/v1/pipelines/${L.ids.pipeline}/stages`, { name: 'Second stage' }), 'second stage');
      await ok(ws.api('POST', '/v1/pipelines', { name: 'Another pipeline' }), 'second pipeline');
      for (const path of [`/v1/pipelines/${L.ids.pipeline}/stages/${L.ids.stage}`, `/v1/pipelines/${L.ids.pipeline}`]) {
        const r = await api('DELETE', path);
        expect(r.status, r.text).toBe(409);
        expect(r.body.error.message, path).not.toMatch(/\d/);
      }
    });

    it('webhooks:read only: delivery logs show no request body of events it may not read', async () => {
      const api = client(world.app.base, await keyOf(['webhooks:read']));
      const logs = await api('GET', `/v1/webhooks/${L.ids.webhook}/logs?limit=100`);
      expect(logs.status).toBe(200);
      expect(logs.body.data.length).toBeGreaterThan(3);
      expect(
        logs.body.data.every((l: { request_body: unknown; event: string }) => l.request_body === null && l.event),
      ).toBe(true);
      // A receiver may echo what it was sent: its answer is withheld with the body.
      expect(logs.body.data.every((l: { response_body: unknown }) => l.response_body === null)).toBe(true);
      expect(logs.body.meta.warnings.length).toBeGreaterThan(0);
      const withContacts = await client(world.app.base, await keyOf(['webhooks:read', 'contacts:read']))(
        'GET',
        `/v1/webhooks/${L.ids.webhook}/logs?limit=100`,
      );
      const created = withContacts.body.data.filter((l: { event: string }) => l.event === 'contact.created');
      expect(created.some((l: { request_body: string }) => l.request_body.includes(contactEmail))).toBe(true);
      expect(withContacts.body.data.find((l: { event: string }) => l.event === 'deal.created').request_body).toBeNull();
    });

    it('sandbox: keys change sandbox data only, no preferences; sessions no custom fields or live keys', async () => {
      const sandbox = await ws.addKey({
        name: 'sandbox tasks',
        sandbox: true,
        scope: 'custom',
        permissions: ['tasks:write'],
      });
      const before = await world.app.db.prisma.user.findUniqueOrThrow({ where: { id: L.ids.user } });
      const rest = await sandbox.api('PUT', `/v1/users/${L.ids.user}/notification-preferences`, {
        email: false,
        push: false,
      });
      expect(rest.status, rest.text).toBe(403);
      const g = await world.gql(
        { key: sandbox.key },
        'mutation($u: ID!) { updateNotificationPreferences(userId: $u, input: { email: false }) { id } }',
        { u: L.ids.user },
      );
      expect(g.errors?.[0].extensions?.code).toBe('forbidden');
      const fullSandbox = await ws.addKey({ name: 'sandbox full', sandbox: true });
      expect(
        (await fullSandbox.api('PUT', `/v1/users/${L.ids.user}/notification-preferences`, { push: false })).status,
      ).toBe(403);
      expect(await world.app.db.prisma.user.findUniqueOrThrow({ where: { id: L.ids.user } })).toEqual(before);
      // Reading users still works with a sandbox key, and a live key still changes preferences.
      expect((await sandbox.api('GET', `/v1/users/${L.ids.user}`)).status).toBe(200);
      expect((await ws.api('PUT', `/v1/users/${L.ids.user}/notification-preferences`, { push: true })).status).toBe(
        200,
      );

      const email = uniqueEmail('sandbox-owner');
      await ws.addUser('Sandbox Owner', email);
      await setPassword(world.app.db, email);
      const session = await signIn(world.app.base, email);
      await ws.addCustomField('live_field', 'text');
      const liveKey = await ws.addKey({ name: 'live, must survive' });
      expect((await session.api('POST', '/dashboard/api/session', { environment: 'sandbox' })).status).toBe(200);
      const defs = () =>
        world.app.db.prisma.customFieldDefinition.findMany({ where: { workspaceId: ws.id }, orderBy: { id: 'asc' } });
      const defsBefore = await defs();
      const created = await session.gql(
        'mutation { createCustomField(input: { key: "from_sandbox", type: text }) { id } }',
      );
      expect(created.errors?.[0].extensions?.code).toBe('forbidden');
      const deleted = await session.gql('mutation($id: ID!) { deleteCustomField(id: $id) { id } }', {
        id: defsBefore[0].id,
      });
      expect(deleted.errors?.[0].extensions?.code).toBe('forbidden');
      expect(await defs()).toEqual(defsBefore);
      const revoked = await session.gql('mutation($id: ID!) { revokeApiKey(id: $id) { id } }', { id: liveKey.id });
      expect(revoked.errors?.[0].extensions?.code).toBe('not_found');
      expect((await liveKey.api('GET', '/v1/users')).status).toBe(200);
      // A sandbox session still manages sandbox keys.
      expect(
        (await session.gql('mutation($id: ID!) { revokeApiKey(id: $id) { revoked_at } }', { id: sandbox.id })).data
          .revokeApiKey.revoked_at,
      ).not.toBeNull();
    });
  });
}
