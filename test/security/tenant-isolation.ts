// A key of one workspace (or environment) addressing another's records gets 404 or no data and
// changes nothing there: every REST route, every GraphQL query, mutation and subscription,
// enumerated from the route table and the schema.
import { getNamedType, isScalarType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { schema } from '../../src/schema/index.ts';
import { startEventFeed } from '../../src/webhooks/event-feed.ts';
import { subscribe } from '../helpers/subscriptions.ts';
import {
  bodyFor,
  crossable,
  DASHBOARD_ONLY,
  documentFor,
  foreignIds,
  pathFor,
  rootFields,
  ROUTES,
  snapshot,
  variablesFor,
  type Space,
  type World,
} from './fixtures.ts';

let world: World;

/** Caller → target: another workspace, and production ↔ sandbox of the same one. */
const pairs = (): [Space, Space][] => [
  [world.A, world.B],
  [world.A, world.sandboxA],
  [world.sandboxA, world.A],
];

/** The list filters that take ids, all set to the target's ids (unknown ones are ignored). */
const foreignFilters = (t: Space) =>
  new URLSearchParams({
    q: `${t.label} contact`,
    contact_id: t.ids.contact,
    deal_id: t.ids.deal,
    pipeline_id: t.ids.pipeline,
    stage_id: t.ids.stage,
    owner_id: t.ids.user,
    assignee_id: t.ids.user,
    assigned_to: t.ids.user,
    user_id: t.ids.user,
    related_to_id: t.ids.contact,
  }).toString();

const leaks = (text: string, caller: Space, target: Space) => foreignIds(caller, target).filter((id) => text.includes(id));

export function tenantIsolationTests(worldOf: () => World): void {
  describe('tenant isolation', () => {
    beforeAll(() => {
      world = worldOf();
    });

    it("REST: every route given another tenant's ids answers 404 and changes nothing there", async () => {
      let checked = 0;
      for (const [caller, target] of pairs()) {
        const before = await snapshot(world, target.workspaceId);
        for (const r of ROUTES) {
          const names = Object.keys(r.params);
          if (!names.length || !crossable(Object.values(r.params), caller, target)) continue;
          // All ids foreign, then each one alone foreign beside the caller's own others.
          const variants = [Object.fromEntries(names.map((n) => [n, target.ids[r.params[n]]]))];
          if (names.length > 1) for (const n of names) variants.push({ [n]: target.ids[r.params[n]] });
          for (const ids of variants) {
            const path = pathFor(r, caller, ids);
            const res = await caller.api(r.route.method, path, bodyFor(r, target));
            expect(res.status, `${caller.label} → ${target.label}: ${r.route.method} ${path}: ${res.text}`).toBe(404);
            expect(res.body.error.code).toBe('not_found');
            checked++;
          }
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(`tenant isolation, REST ids: ${checked} route × tenant checks`);
    }, 120_000);

    it("REST: lists and searches never show another tenant's records, whatever the filters", async () => {
      let checked = 0;
      for (const [caller, target] of pairs()) {
        for (const r of ROUTES) {
          if (r.route.method !== 'GET' || !r.route.list) continue;
          if (!crossable(Object.values(r.params), caller, target)) continue;
          // The search term and every id filter name the target's records.
          const path = `${pathFor(r, caller)}?${foreignFilters(target)}`;
          const res = await caller.api('GET', path);
          expect(res.status, `${caller.label}: GET ${path}: ${res.text}`).toBe(200);
          expect(leaks(res.text, caller, target), `${caller.label}: GET ${path}`).toEqual([]);
          checked++;
        }
      }
      console.log(`tenant isolation, REST lists: ${checked} route × tenant checks`);
    }, 120_000);

    it("REST: a body naming another tenant's records is refused or drops them, and changes nothing there", async () => {
      let checked = 0;
      for (const [caller, target] of pairs()) {
        const before = await snapshot(world, target.workspaceId);
        for (const r of ROUTES) {
          const body = bodyFor(r, target);
          if (!body || !crossable(Object.values(r.params), caller, target)) continue;
          if (!leaks(JSON.stringify(body), caller, target).length) continue;
          const path = pathFor(r, caller);
          const res = await caller.api(r.route.method, path, body);
          const what = `${caller.label} → ${target.label}: ${r.route.method} ${path} ${JSON.stringify(body)}: ${res.text}`;
          if (res.status < 300) expect(leaks(JSON.stringify(res.body.data), caller, target), what).toEqual([]);
          else expect([404, 422], what).toContain(res.status);
          checked++;
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(`tenant isolation, REST body references: ${checked} route × tenant checks`);
    });

    it("GraphQL: every query and mutation given another tenant's ids answers not_found, and lists show nothing of it", async () => {
      let checked = 0;
      const fields = rootFields();
      for (const [caller, target] of pairs()) {
        const before = await snapshot(world, target.workspaceId);
        for (const f of fields) {
          const kinds = Object.values(f.ids);
          if (DASHBOARD_ONLY.has(f.name) || !crossable(kinds, caller, target)) continue;
          const variables = variablesFor(f, target);
          if (f.field.args.some((a) => a.name === 'filter')) variables.filter = Object.fromEntries(new URLSearchParams(foreignFilters(target)));
          if (f.field.args.some((a) => a.name === 'q')) variables.q = `${target.label} contact`;
          const result = await world.gql(caller, documentFor(f), variables);
          const what = `${caller.label} → ${target.label}: ${f.name} ${JSON.stringify(variables)}: ${JSON.stringify(result)}`;
          if (kinds.length) {
            expect(result.errors?.[0]?.extensions?.code, what).toBe('not_found');
            expect(result.data?.[f.name] ?? null, what).toBeNull();
          } else if (result.errors?.length) {
            expect(['not_found', 'unprocessable_entity'], what).toContain(result.errors[0].extensions?.code);
          }
          expect(leaks(JSON.stringify(result.data ?? null), caller, target), what).toEqual([]);
          checked++;
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(`tenant isolation, GraphQL: ${checked} field × tenant checks`);
    }, 120_000);

    it("GraphQL subscriptions: a key receives only its own tenant's events", async () => {
      /** A change that each subscription field reports, and the event name of its readiness probe. */
      const TRIGGER: Record<string, { probe: string; entity: 'contact' | 'deal'; change: (s: Space, n: number) => Promise<unknown> }> = {
        events: { probe: 'contact.updated', entity: 'contact', change: (s, n) => s.api('PUT', `/v1/contacts/${s.ids.contact}`, { company: `Events ${n}` }) },
        contactChanged: { probe: 'contact.updated', entity: 'contact', change: (s, n) => s.api('PUT', `/v1/contacts/${s.ids.contact}`, { company: `Changed ${n}` }) },
        dealChanged: { probe: 'deal.updated', entity: 'deal', change: (s, n) => s.api('PUT', `/v1/deals/${s.ids.deal}`, { title: `Changed ${n}` }) },
      };
      const spaces = [world.A, world.sandboxA, world.B];
      const feed = startEventFeed({ prisma: world.app.db.prisma, bus: world.app.bus, intervalMs: 20 });
      let checked = 0;
      for (const field of Object.values(schema.getSubscriptionType()!.getFields())) {
        const trigger = TRIGGER[field.name];
        expect(trigger, `say in TRIGGER which change subscription ${field.name} reports`).toBeDefined();
        const type = getNamedType(field.type) as import('graphql').GraphQLObjectType;
        const scalars = Object.values(type.getFields()).filter((f) => isScalarType(getNamedType(f.type)) && !f.args.length).map((f) => f.name);
        const subs = spaces.map((s) => subscribe(world.app.base, { authorization: `Bearer ${s.key}` }, `subscription { ${field.name} { ${scalars.join(' ')} } }`));
        try {
          await Promise.all(
            subs.map((sub, i) => sub.ready(world.app.bus, { event: trigger.probe, workspaceId: spaces[i].workspaceId, entityType: trigger.entity, entityId: spaces[i].ids[trigger.entity], data: {} })),
          );
          // One change per tenant; each waits until its own subscriber has it, so a misrouted copy would arrive before the next.
          for (const [i, s] of spaces.entries()) {
            const res = (await trigger.change(s, checked)) as { status: number };
            expect(res.status).toBe(200);
            await subs[i].waitFor((d) => JSON.stringify(d).includes(s.ids[trigger.entity]));
          }
          for (const [i, s] of spaces.entries()) {
            const text = JSON.stringify(subs[i].received);
            for (const other of spaces.filter((o) => o !== s)) expect(leaks(text, s, other), `${s.label} received ${other.label}'s ${field.name}`).toEqual([]);
            checked++;
          }
        } finally {
          await Promise.all(subs.map((sub) => sub.close()));
        }
      }
      await feed.stop();
      console.log(`tenant isolation, subscriptions: ${checked} field × tenant checks`);
    }, 120_000);
  });
}
