// Scope matrix, enumerated from the route table and the schema: a read-only key gets 403 from
// every write and changes nothing; a custom key without a resource's permission gets 403 from
// every route, root field and nested field that returns or changes that resource, and every
// subscription field refuses it or sends it none of that resource's events.
import {
  getNamedType,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  isObjectType,
  type GraphQLField,
} from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { RESOURCES, type Resource } from '../../src/auth/scopes.ts';
import { schema } from '../../src/schema/index.ts';
import { enforceReadAccess } from '../../src/schema/read-access.ts';
import { EMITTED_EVENTS } from '../../src/events/outbox.ts';
import { subscribe } from '../helpers/subscriptions.ts';
import {
  apiOf,
  bodyFor,
  DASHBOARD_ONLY,
  documentFor,
  pathFor,
  readPath,
  permissionOf,
  rootFields,
  ROUTES,
  snapshot,
  subscriptionFields,
  subscriptionSelection,
  FULL_ACCESS_ONLY,
  POLLED_SUBSCRIPTIONS,
  isRead,
  variablesFor,
  type RootField,
  type World,
} from './fixtures.ts';

let world: World;

const key = async (scope: string, permissions: string[] = []) =>
  (await world.wsA.addKey({ name: `${scope} ${permissions.join(',')}`, scope, permissions })).key;
/** A custom key with every permission but those of `resource`. */
const keyWithout = (resource: Resource) =>
  key(
    'custom',
    RESOURCES.filter((r) => r !== resource).map((r) => `${r}:write`),
  );

/**
 * Root fields no route runs, with the permission they need: the dashboard's Insight aggregates
 * (pipelineValueByStage needs pipelines:read as well: test/insight.test.ts).
 */
const GRAPHQL_ONLY: Record<string, ReturnType<typeof permissionOf>> = {
  pipelineValueByStage: { resource: 'deals', access: 'read' },
  dealOutcomesByMonth: { resource: 'deals', access: 'read' },
  webhookDeliveryStats: { resource: 'webhooks', access: 'read' },
};

/** The permission of each root field: that of the route that runs it, or as GRAPHQL_ONLY says. */
function fieldPermissions(): Map<string, ReturnType<typeof permissionOf>> {
  const out = new Map<string, ReturnType<typeof permissionOf>>(Object.entries(GRAPHQL_ONLY));
  for (const r of ROUTES) out.set(r.field, permissionOf(r.route));
  return out;
}

const asSpace = (k: string) => ({ ...world.A, key: k });

export function scopeTests(worldOf: () => World): void {
  describe('scopes', () => {
    beforeAll(() => {
      world = worldOf();
    });

    it('a read-only key gets 403 from every write route and every mutation, and changes nothing', async () => {
      const readOnly = await key('read_only');
      const api = apiOf(world, readOnly);
      const before = await snapshot(world, world.A.workspaceId);
      let checked = 0;
      for (const r of ROUTES) {
        const path = r.route.method === 'GET' ? readPath(r, world.A) : pathFor(r, world.A);
        const res = await api(r.route.method, path, bodyFor(r, world.A));
        const what = `read-only ${r.route.method} ${path}: ${res.text}`;
        // The audit log is a read only full access may make.
        if (isRead(r.route) && !FULL_ACCESS_ONLY.has(`${r.route.method} ${r.route.path}`))
          expect(res.status, what).toBe(200);
        else {
          expect(res.status, what).toBe(403);
          expect(res.body.error.code).toBe('forbidden');
        }
        checked++;
      }
      for (const f of rootFields().filter((f) => f.type === 'mutation' && !DASHBOARD_ONLY.has(f.name))) {
        const result = await world.gql(asSpace(readOnly), documentFor(f), variablesFor(f, world.A));
        expect(result.errors?.[0]?.extensions?.code, `read-only ${f.name}: ${JSON.stringify(result)}`).toBe(
          'forbidden',
        );
        checked++;
      }
      expect(await snapshot(world, world.A.workspaceId)).toEqual(before);
      console.log(`scopes, read-only key: ${checked} routes and mutations checked`);
    }, 120_000);

    it('a custom key without a resource gets 403 from every route and root field of that resource', async () => {
      const permissions = fieldPermissions();
      const fields = rootFields();
      // Keys first: the snapshot holds the workspace's keys too.
      const keys = await Promise.all(RESOURCES.map(keyWithout));
      const before = await snapshot(world, world.A.workspaceId);
      let denied = 0;
      for (const [n, resource] of RESOURCES.entries()) {
        const k = keys[n];
        const api = apiOf(world, k);
        for (const r of ROUTES) {
          if (permissionOf(r.route)?.resource !== resource) continue;
          const path = r.route.method === 'GET' ? readPath(r, world.A) : pathFor(r, world.A);
          const res = await api(r.route.method, path, bodyFor(r, world.A));
          expect(res.status, `without ${resource}: ${r.route.method} ${path}: ${res.text}`).toBe(403);
          denied++;
        }
        for (const f of fields) {
          if (DASHBOARD_ONLY.has(f.name)) continue;
          expect(permissions.has(f.name), `say which permission ${f.name} needs (no route runs it)`).toBe(true);
          if (permissions.get(f.name)?.resource !== resource) continue;
          const result = await world.gql(asSpace(k), documentFor(f), variablesFor(f, world.A));
          expect(
            result.errors?.[0]?.extensions?.code,
            `without ${resource}: ${f.name}: ${JSON.stringify(result)}`,
          ).toBe('forbidden');
          denied++;
        }
      }
      expect(await snapshot(world, world.A.workspaceId)).toEqual(before);
      console.log(`scopes, custom keys: ${denied} route/field × resource denials`);
    }, 120_000);

    it('a custom key with just the permission a read route needs is enough for it', async () => {
      const keys = new Map<string, string>();
      let allowed = 0;
      for (const r of ROUTES) {
        const need = permissionOf(r.route);
        if (!isRead(r.route) || !need) continue;
        const permission = `${need.resource}:read`;
        if (!keys.has(permission)) keys.set(permission, await key('custom', [permission]));
        const path = r.route.method === 'GET' ? readPath(r, world.A) : pathFor(r, world.A);
        const res = await apiOf(world, keys.get(permission)!)(r.route.method, path, bodyFor(r, world.A));
        expect(res.status, `${permission} only: ${r.route.method} ${path}: ${res.text}`).toBe(200);
        allowed++;
      }
      console.log(`scopes, custom keys: ${allowed} reads allowed with exactly their permission`);
    });

    /** Valid inputs of the dashboard-only mutations: the refusal must come from the key, not the input. */
    const DASHBOARD_INPUT: Record<string, unknown> = {
      createApiKey: { name: 'x', scope: 'full' },
      createCustomField: { key: 'k', type: 'text' },
      inviteUser: { name: 'x', email: 'x@example.com' },
    };

    it('dashboard-only fields refuse every API key', async () => {
      const full = world.A;
      for (const f of rootFields().filter((f) => DASHBOARD_ONLY.has(f.name))) {
        const vars = Object.fromEntries(
          f.field.args.map((a) => [
            a.name,
            String(a.type).endsWith('!') ? (a.name === 'input' ? DASHBOARD_INPUT[f.name] : 'x') : null,
          ]),
        );
        const result = await world.gql(full, documentFor(f), vars);
        expect(['forbidden', 'unauthorized'], `${f.name}: ${JSON.stringify(result)}`).toContain(
          result.errors?.[0]?.extensions?.code,
        );
      }
    });

    /** The resource whose read permission each object type needs; null for types any key may read. */
    const TYPE_RESOURCE: Record<string, Resource | null> = {
      Contact: 'contacts',
      // A shape of contacts and companies: readable wherever its record is.
      Address: null,
      Company: 'companies',
      CompanyTimelineEntry: 'companies',
      CompanyChange: 'companies',
      WorkspaceSettings: null,
      // A note is on a contact or a company: its root fields check the contact's or the company's permission.
      Note: null,
      TimelineEntry: 'contacts',
      BulkContactResult: 'contacts',
      BulkContactError: 'contacts',
      ContactChange: 'contacts',
      Deal: 'deals',
      DealContact: 'deals',
      StageHistory: 'deals',
      DealChange: 'deals',
      Pipeline: 'pipelines',
      Stage: 'pipelines',
      StageWithTotals: 'pipelines',
      Task: 'tasks',
      TaskRelatedTo: 'tasks',
      TaskReminder: 'tasks',
      Activity: 'activities',
      Webhook: 'webhooks',
      RetryPolicy: 'webhooks',
      WebhookDelivery: 'webhooks',
      WebhookTestResult: 'webhooks',
      WebhookRecoverResult: 'webhooks',
      DeliveryAttempt: 'webhooks',
      StageValue: 'deals',
      CurrencyAmount: 'deals',
      DealMonth: 'deals',
      WebhookDeliveryStats: 'webhooks',
      User: null,
      NotificationPreferences: null,
      // Who caused a change (a key's or user's name) and what was wrong with the caller's own request.
      Actor: null,
      ErrorInfo: null,
      // A batch's answer about the caller's own operations (the mutation needs the resource's write).
      BatchResult: null,
      BatchOperationResult: null,
      DeleteResult: null,
      LiveEvent: null,
      // The log's envelope; its root field lists only the kinds of record the key may read.
      LoggedEvent: null,
      // The audit log answers full-access callers only, who may read everything.
      AuditEntry: null,
      // A job's envelope: its root fields check read access to the kind of record it imports.
      Import: null,
      ImportError: null,
      ApiKey: null,
      CreatedApiKey: null,
      CustomField: null,
      ImportFieldSet: null,
      // The Team mutations' answers: dashboard-only.
      PasswordLink: null,
      UserInvitation: null,
    };
    const resourceOf = (type: GraphQLObjectType): Resource | null | undefined => {
      if (type.name.endsWith('Page')) return resourceOf(getNamedType(type.getFields().nodes.type) as GraphQLObjectType);
      return TYPE_RESOURCE[type.name];
    };

    it('a nested field that returns another resource needs that resource’s read permission', async () => {
      const roots = rootFields().filter((f) => f.type === 'query' && !DASHBOARD_ONLY.has(f.name));
      /** A root query that reaches `type` (directly or as a page's nodes), with the path to it. */
      const rootFor = (type: GraphQLObjectType): { root: RootField; nodes: boolean } | undefined => {
        for (const root of roots) {
          const t = getNamedType(root.field.type) as GraphQLObjectType;
          if (t === type) return { root, nodes: false };
          if (t.getFields().nodes && getNamedType(t.getFields().nodes.type) === type) return { root, nodes: true };
        }
        return undefined;
      };
      let checked = 0;
      for (const type of Object.values(schema.getTypeMap())) {
        if (
          !isObjectType(type) ||
          type.name.startsWith('__') ||
          ['Query', 'Mutation', 'Subscription'].includes(type.name) ||
          type.name.endsWith('Page')
        )
          continue;
        expect(TYPE_RESOURCE, `say in TYPE_RESOURCE which read permission type ${type.name} needs`).toHaveProperty(
          type.name,
        );
        const parent = resourceOf(type);
        const reach = rootFor(type);
        if (!parent || !reach) continue;
        for (const field of Object.values(type.getFields()) as GraphQLField<unknown, unknown>[]) {
          const child = getNamedType(field.type);
          if (!isObjectType(child)) continue;
          const needed = resourceOf(child);
          if (!needed || needed === parent) continue;
          const inner = `${field.name} { __typename }`;
          const doc = documentFor(reach.root).replace(
            /\{ (nodes \{ )?__typename( id)? \}( \})? \}$/,
            reach.nodes ? `{ nodes { ${inner} } } }` : `{ ${inner} } }`,
          );
          const variables = variablesFor(reach.root, world.A);
          const without = await key('custom', [`${parent}:read`]);
          const denied = await world.gql(asSpace(without), doc, variables);
          expect(
            denied.errors?.map((e) => e.extensions?.code) ?? [],
            `${type.name}.${field.name} with ${parent}:read only: ${JSON.stringify(denied)}`,
          ).toContain('forbidden');
          const withIt = await key('custom', [`${parent}:read`, `${needed}:read`]);
          const ok = await world.gql(asSpace(withIt), doc, variables);
          expect(
            ok.errors,
            `${type.name}.${field.name} with ${parent}:read and ${needed}:read: ${JSON.stringify(ok)}`,
          ).toBeUndefined();
          checked++;
        }
      }
      console.log(`scopes, nested fields: ${checked} fields checked`);
      expect(checked).toBeGreaterThan(0);
    }, 120_000);

    it('startup refuses an object type of no resource, or a guarded field that could not be left null', () => {
      const build = (typeName: string, nullable: boolean) => {
        const Contact = new GraphQLObjectType({ name: typeName, fields: { id: { type: GraphQLString } } });
        const Deal = new GraphQLObjectType({
          name: 'Deal',
          fields: { id: { type: GraphQLString }, contact: { type: nullable ? Contact : new GraphQLNonNull(Contact) } },
        });
        return new GraphQLSchema({ query: new GraphQLObjectType({ name: 'Query', fields: { deal: { type: Deal } } }) });
      };
      expect(() => enforceReadAccess(build('Unclassified', true))).toThrow(/Unclassified belongs to no resource/);
      expect(() => enforceReadAccess(build('Contact', false))).toThrow(/Deal.contact .* must be nullable/);
    });

    /**
     * The events each subscription field can report: a new field fails the test until it is
     * classified here. Each event needs the read permission of the record it is about (EVENT_RESOURCE).
     */
    const SUBSCRIPTION_EVENTS: Record<string, readonly string[]> = {
      events: EMITTED_EVENTS,
      contactChanged: EMITTED_EVENTS.filter((e) => e.startsWith('contact.')),
      dealChanged: EMITTED_EVENTS.filter((e) => e.startsWith('deal.')),
      companyChanged: EMITTED_EVENTS.filter((e) => /^(company|contact|deal)\./.test(e)),
    };
    const EVENT_RESOURCE: Record<string, Resource> = {
      contact: 'contacts',
      company: 'companies',
      deal: 'deals',
      task: 'tasks',
      activity: 'activities',
      // An import's event needs the resource it imported into: eventOf's imports are of contacts.
      import: 'contacts',
    };
    const resourceOfEvent = (event: string) => {
      const resource = EVENT_RESOURCE[event.split('.')[0]];
      expect(resource, `say in EVENT_RESOURCE which read permission ${event} needs`).toBeDefined();
      return resource;
    };

    it('a subscription field refuses a key that may not read what it reports, or sends it none of it', async () => {
      const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
      const { A } = world;
      /** An event of A as the bus carries it, naming A's records. */
      const eventOf = (event: string) => {
        const kind = event.split('.')[0] as 'contact' | 'company' | 'deal' | 'task' | 'activity' | 'import';
        return {
          id: `evt_scope_${Math.random().toString(36).slice(2)}`,
          event,
          timestamp: new Date().toISOString(),
          workspaceId: A.workspaceId,
          entityType: kind,
          entityId: A.ids[kind],
          sequence: 1,
          // It names A's company too, as the records of contacts and deals do: companyChanged's filter passes it.
          data: {
            [kind]: { id: A.ids[kind], pipeline_id: A.ids.pipeline, company_id: A.ids.company, resource: 'contacts' },
          },
        };
      };
      let refused = 0;
      let silent = 0;
      for (const field of subscriptionFields()) {
        if (POLLED_SUBSCRIPTIONS.has(field.name)) continue;
        const events = SUBSCRIPTION_EVENTS[field.name];
        expect(events, `say in SUBSCRIPTION_EVENTS which events subscription ${field.name} reports`).toBeDefined();
        const resources = [...new Set(events.map(resourceOfEvent))];
        for (const resource of resources) {
          const denied = events.filter((e) => resourceOfEvent(e) === resource);
          const allowed = events.filter((e) => resourceOfEvent(e) !== resource);
          const what = `${field.name} without ${resource}:read`;
          const sub = subscribe(
            world.app.base,
            { authorization: `Bearer ${await keyWithout(resource)}` },
            `subscription { ${field.name} { ${subscriptionSelection(field)} } }`,
          );
          try {
            if (allowed.length) {
              // It reports other resources too: once it listens (an allowed event arrives), the
              // denied events are published, then an allowed one that must come after them.
              const listening = await sub.ready(world.app.bus, eventOf(allowed[0])).then(
                () => true,
                () => false,
              );
              if (!listening) {
                expect(
                  sub.errors.map((e) => e?.extensions?.code),
                  `${what}: ${JSON.stringify(sub.errors)}`,
                ).toContain('forbidden');
                refused++;
                continue;
              }
              const published = denied.map(eventOf);
              for (const e of published) await world.app.bus.publish(e);
              const sentinel = eventOf(allowed[0]);
              await world.app.bus.publish(sentinel);
              await sub.waitFor((d) => JSON.stringify(d).includes(sentinel.id));
              const got = JSON.stringify(sub.received);
              expect(
                published.filter((e) => got.includes(e.id)).map((e) => e.event),
                `${what}: received`,
              ).toEqual([]);
              silent++;
            } else {
              // It reports only this resource: refused, or (if it ever listens) sent nothing.
              await Promise.race([sub.ended, sleep(2_000)]);
              if (sub.errors.length) {
                expect(
                  sub.errors.map((e) => e?.extensions?.code),
                  `${what}: ${JSON.stringify(sub.errors)}`,
                ).toContain('forbidden');
                refused++;
                continue;
              }
              for (const until = Date.now() + 500; Date.now() < until; await sleep(25))
                for (const e of denied) await world.app.bus.publish(eventOf(e));
              await sleep(100);
              expect(sub.received, `${what}: received`).toEqual([]);
              silent++;
            }
          } finally {
            await sub.close();
          }
        }
      }
      console.log(
        `scopes, subscriptions: ${refused + silent} field × resource checks ` +
          `(${refused} refused, ${silent} listening but sent none of the resource's events)`,
      );
      expect(refused + silent).toBeGreaterThan(0);
    }, 60_000);
  });
}
