// A key of one workspace (or environment) addressing another's records gets 404 or no data and
// changes nothing there: every REST route, every GraphQL query, mutation and subscription,
// enumerated from the route table and the schema. The other tenant's id goes in the path (or
// argument) both with a body naming its records and with the caller's own valid body, so a 404
// caused by the body's references cannot hide a path lookup that is not scoped to the caller.
import { getNamedType, type GraphQLField, type GraphQLInputObjectType } from 'graphql';
import { beforeAll, describe, expect, it } from 'vitest';
import { startEventFeed } from '../../src/events/feed.ts';
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
  POLLED_SUBSCRIPTIONS,
  subscriptionFields,
  subscriptionSelection,
  variablesFor,
  VALID_INPUT,
  type IdKind,
  type Space,
  type World,
} from './fixtures.ts';

let world: World;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A change each subscription field reports (`mark` makes it recognisable), and the event name of its readiness probe.
 */
const TRIGGER: Record<
  string,
  {
    probe: string;
    entity: 'contact' | 'deal' | 'company';
    change: (s: Space, mark: string) => Promise<{ status: number }>;
  }
> = {
  events: {
    probe: 'contact.updated',
    entity: 'contact',
    change: (s, mark) => s.api('PUT', `/v1/contacts/${s.ids.contact}`, { company: mark }),
  },
  contactChanged: {
    probe: 'contact.updated',
    entity: 'contact',
    change: (s, mark) => s.api('PUT', `/v1/contacts/${s.ids.contact}`, { company: mark }),
  },
  companyChanged: {
    probe: 'company.updated',
    entity: 'company',
    change: (s, mark) => s.api('PUT', `/v1/companies/${s.ids.company}`, { industry: mark }),
  },
  dealChanged: {
    probe: 'deal.updated',
    entity: 'deal',
    change: (s, mark) => s.api('PUT', `/v1/deals/${s.ids.deal}`, { title: mark }),
  },
};

/** The kind of record each ID argument of a subscription field names. */
const SUBSCRIPTION_ID_ARGS: Record<string, IdKind> = {
  'contactChanged.id': 'contact',
  'companyChanged.id': 'company',
  'dealChanged.pipelineId': 'pipeline',
  'events.after': 'event',
};
/** Values for the other arguments of subscription fields: ones that let the trigger's events through. */
const SUBSCRIPTION_OTHER_ARGS: Record<string, unknown> = {
  'events.types': ['contact.updated', 'deal.updated'],
};

/**
 * A subscription document with every argument of the field, and their
 * values naming `target`'s records; fails on an unclassified argument.
 */
function subscriptionWithArgs(
  field: GraphQLField<unknown, unknown>,
  target: Space,
): { query: string; variables: Record<string, unknown> } {
  const variables: Record<string, unknown> = {};
  for (const a of field.args) {
    const key = `${field.name}.${a.name}`;
    if (getNamedType(a.type).name === 'ID') {
      expect(SUBSCRIPTION_ID_ARGS[key], `say in SUBSCRIPTION_ID_ARGS which kind of record ${key} names`).toBeDefined();
      variables[a.name] = target.ids[SUBSCRIPTION_ID_ARGS[key]];
    } else {
      expect(SUBSCRIPTION_OTHER_ARGS, `give ${key} a value in SUBSCRIPTION_OTHER_ARGS`).toHaveProperty([key]);
      variables[a.name] = SUBSCRIPTION_OTHER_ARGS[key];
    }
  }
  const defs = field.args.map((a) => `$${a.name}: ${String(a.type)}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  return {
    query:
      `subscription${defs ? `(${defs})` : ''} ` +
      `{ ${field.name}${args ? `(${args})` : ''} { ${subscriptionSelection(field)} } }`,
    variables,
  };
}

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

const leaks = (text: string, caller: Space, target: Space) =>
  foreignIds(caller, target).filter((id) => text.includes(id));

export function tenantIsolationTests(worldOf: () => World): void {
  describe('tenant isolation', () => {
    beforeAll(() => {
      world = worldOf();
    });

    it("REST: routes given another tenant's ids answer 404 and change nothing, with either tenant's body", async () => {
      let checked = 0;
      let ownBody = 0;
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
            // A body naming the target's records, then the caller's own valid one (its own stage,
            // contact, user...): only the path's foreign id can make that one a 404.
            const bodies: [string, Record<string, unknown> | FormData | undefined][] = [['target', bodyFor(r, target)]];
            const own = bodyFor(r, caller);
            if (own && JSON.stringify(own) !== JSON.stringify(bodies[0][1])) bodies.push(['own', own]);
            for (const [whose, body] of bodies) {
              const res = await caller.api(r.route.method, path, body);
              const what =
                `${caller.label} → ${target.label}: ${r.route.method} ${path} ` +
                `with the ${whose} body ${JSON.stringify(body)}: ${res.text}`;
              expect(res.status, what).toBe(404);
              expect(res.body.error.code, what).toBe('not_found');
              checked++;
              if (whose === 'own') ownBody++;
            }
          }
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(
        `tenant isolation, REST ids: ${checked} route × tenant checks ` +
          `(${ownBody} of them with the caller's own valid body, where the target's names its records)`,
      );
    }, 120_000);

    it("REST: lists and searches never show another tenant's records, whatever the filters", async () => {
      let checked = 0;
      for (const [caller, target] of pairs()) {
        for (const r of ROUTES) {
          if (!r.route.list || !crossable(Object.values(r.params), caller, target)) continue;
          if (r.route.method === 'POST') {
            // A query (POST …/query) whose filter names the target's ids, on the record and one hop away.
            const ids = Object.values(target.ids);
            const where = { or: [{ id: { in: ids } }, {}] };
            const res = await caller.api('POST', pathFor(r, caller), { where, limit: 100 });
            expect(res.status, `${caller.label}: POST ${r.route.path}: ${res.text}`).toBe(200);
            expect(leaks(res.text, caller, target), `${caller.label}: POST ${r.route.path}`).toEqual([]);
            checked++;
            continue;
          }
          if (r.route.method !== 'GET') continue;
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
          const what =
            `${caller.label} → ${target.label}: ${r.route.method} ${path} ` + `${JSON.stringify(body)}: ${res.text}`;
          if (res.status < 300) expect(leaks(JSON.stringify(res.body.data), caller, target), what).toEqual([]);
          else expect([404, 422], what).toContain(res.status);
          checked++;
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(`tenant isolation, REST body references: ${checked} route × tenant checks`);
    });

    it("GraphQL: another tenant's ids get not_found, in its input or the caller's own; lists show none", async () => {
      let checked = 0;
      let ownInput = 0;
      const fields = rootFields();
      for (const [caller, target] of pairs()) {
        const before = await snapshot(world, target.workspaceId);
        for (const f of fields) {
          const kinds = Object.values(f.ids);
          if (DASHBOARD_ONLY.has(f.name) || !crossable(kinds, caller, target)) continue;
          // The target's ids and input; then the target's ids with the caller's own valid input;
          // then, for several ids, each one alone foreign beside the caller's own others and input.
          const variants: [string, Record<string, unknown>][] = [['target', variablesFor(f, target)]];
          const idArgs = Object.keys(f.ids);
          if (idArgs.length && f.field.args.some((a) => a.name === 'input') && VALID_INPUT[f.name])
            variants.push(['own', variablesFor(f, target, caller)]);
          if (idArgs.length > 1)
            for (const arg of idArgs)
              variants.push(['own', { ...variablesFor(f, caller), [arg]: target.ids[f.ids[arg]] }]);
          for (const [whose, variables] of variants) {
            const filterArg = f.field.args.find((a) => a.name === 'filter');
            if (filterArg) {
              // Typed filters take only their own fields: every id filter the list has names the target's records.
              const fields = (getNamedType(filterArg.type) as GraphQLInputObjectType).getFields();
              variables.filter = Object.fromEntries(
                [...new URLSearchParams(foreignFilters(target))].filter(([k]) => k in fields),
              );
            }
            if (f.field.args.some((a) => a.name === 'q')) variables.q = `${target.label} contact`;
            const result = await world.gql(caller, documentFor(f), variables);
            const what =
              `${caller.label} → ${target.label}: ${f.name} with the ${whose} input ` +
              `${JSON.stringify(variables)}: ${JSON.stringify(result)}`;
            if (kinds.length) {
              expect(result.errors?.[0]?.extensions?.code, what).toBe('not_found');
              expect(result.data?.[f.name] ?? null, what).toBeNull();
            } else if (result.errors?.length) {
              expect(['not_found', 'unprocessable_entity'], what).toContain(result.errors[0].extensions?.code);
            }
            expect(leaks(JSON.stringify(result.data ?? null), caller, target), what).toEqual([]);
            checked++;
            if (whose === 'own') ownInput++;
          }
        }
        expect(await snapshot(world, target.workspaceId), `${target.label} changed`).toEqual(before);
      }
      console.log(
        `tenant isolation, GraphQL: ${checked} field × tenant checks ` +
          `(${ownInput} of them with the target's ids and the caller's own valid input)`,
      );
    }, 120_000);

    it("GraphQL subscriptions: a key receives only its own tenant's events", async () => {
      const spaces = [world.A, world.sandboxA, world.B];
      const feed = startEventFeed({ sql: world.app.db.sql, bus: world.app.bus, intervalMs: 20 });
      let checked = 0;
      try {
        for (const field of subscriptionFields()) {
          if (POLLED_SUBSCRIPTIONS.has(field.name)) continue;
          const trigger = TRIGGER[field.name];
          expect(trigger, `say in TRIGGER which change subscription ${field.name} reports`).toBeDefined();
          const subs = spaces.map((s) =>
            subscribe(
              world.app.base,
              { authorization: `Bearer ${s.key}` },
              `subscription { ${field.name} { ${subscriptionSelection(field)} } }`,
            ),
          );
          try {
            await Promise.all(
              subs.map((sub, i) =>
                sub.ready(world.app.bus, {
                  event: trigger.probe,
                  workspaceId: spaces[i].workspaceId,
                  entityType: trigger.entity,
                  entityId: spaces[i].ids[trigger.entity],
                  sequence: 1,
                  data: {},
                }),
              ),
            );
            // One change per tenant; each waits until its own subscriber
            // has it, so a misrouted copy would arrive before the next.
            for (const [i, s] of spaces.entries()) {
              const mark = `Own ${field.name} ${s.label} ${Date.now()}`;
              expect((await trigger.change(s, mark)).status).toBe(200);
              await subs[i].waitFor((d) => JSON.stringify(d).includes(mark));
            }
            for (const [i, s] of spaces.entries()) {
              const text = JSON.stringify(subs[i].received);
              for (const other of spaces.filter((o) => o !== s))
                expect(leaks(text, s, other), `${s.label} received ${other.label}'s ${field.name}`).toEqual([]);
              checked++;
            }
          } finally {
            await Promise.all(subs.map((sub) => sub.close()));
          }
        }
      } finally {
        await feed.stop();
      }
      console.log(`tenant isolation, subscriptions: ${checked} field × tenant checks`);
    }, 120_000);

    it("GraphQL subscriptions given another tenant's ids as arguments receive nothing of its changes", async () => {
      const feed = startEventFeed({ sql: world.app.db.sql, bus: world.app.bus, intervalMs: 20 });
      let checked = 0;
      let refused = 0;
      try {
        for (const field of subscriptionFields()) {
          if (POLLED_SUBSCRIPTIONS.has(field.name)) continue;
          const trigger = TRIGGER[field.name];
          expect(trigger, `say in TRIGGER which change subscription ${field.name} reports`).toBeDefined();
          for (const [caller, target] of pairs()) {
            // Every argument names the target's records (its contact, its pipeline, ...).
            const { query, variables } = subscriptionWithArgs(field, target);
            const what = `${caller.label} → ${target.label}: ${query} ${JSON.stringify(variables)}`;
            const mine = subscribe(world.app.base, { authorization: `Bearer ${caller.key}` }, query, variables);
            // The target subscribes alike: once it has the change, a misrouted copy would have been sent too.
            const theirs = subscribe(world.app.base, { authorization: `Bearer ${target.key}` }, query, variables);
            // Readiness probes name the target's records so that they pass the arguments' filters;
            // each goes to the subscriber's own workspace.
            const probe = (workspaceId: string) => ({
              event: trigger.probe,
              workspaceId,
              entityType: trigger.entity,
              entityId: target.ids[trigger.entity],
              sequence: 1,
              data: {
                contact: { id: target.ids.contact },
                deal: { id: target.ids.deal, pipeline_id: target.ids.pipeline },
              },
            });
            try {
              const listening = await mine.ready(world.app.bus, probe(caller.workspaceId)).then(
                () => true,
                (err) => {
                  // Refusing such a subscription is fine too, with a coded error that is not internal.
                  if (!mine.errors.length) throw err;
                  for (const e of mine.errors)
                    expect(e?.extensions?.code ?? e?.code, `${what}: ${JSON.stringify(mine.errors)}`).not.toBe(
                      'internal_error',
                    );
                  return false;
                },
              );
              if (!listening) refused++;
              await theirs.ready(world.app.bus, probe(target.workspaceId));
              const mark = `Foreign ${field.name} ${target.label} ${Date.now()}`;
              expect((await trigger.change(target, mark)).status).toBe(200);
              await theirs.waitFor((d) => JSON.stringify(d).includes(mark));
              await sleep(50);
              expect(mine.received, `${what}: received the target's change`).toEqual([]);
              checked++;
            } finally {
              await Promise.all([mine.close(), theirs.close()]);
            }
          }
        }
      } finally {
        await feed.stop();
      }
      console.log(
        `tenant isolation, subscriptions with foreign arguments: ${checked} field × tenant checks ` +
          `(${refused} refused outright)`,
      );
    }, 120_000);
  });
}
