// Property-based fuzzing of every REST route (from the route table) with hostile bodies, query
// strings, path parameters and headers: never a 5xx, always the envelope, never a stack trace,
// SQL or database text anywhere in an answer (body or headers), nothing logged as a server error,
// and Object.prototype stays clean in the server (it runs in this process). Hostile Authorization
// headers on every route: always a 401 in the envelope.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { requestSchema } from '../../src/rest/openapi/request.ts';
import {
  expectRestEnvelope,
  freshLoopback,
  FUZZ_SEED,
  hostileAuthorization,
  hostileAuthorizations,
  hostileBody,
  hostileHeaders,
  hostileId,
  hostileQuery,
  prototypeState,
  rawRequest,
} from './hostile.ts';
import { deadKeys, ROUTES, VALID_INPUT, type FuzzSetup, type Space } from './fixtures.ts';

const RUNS_PER_ROUTE = 15;
/** Generated Authorization values, on top of one fixed hostile value per route. */
const RUNS_OF_AUTHORIZATION = 20;

/** Property names of a route's body schema, so single fields get hostile values too. */
function bodyFields(route: (typeof ROUTES)[number]['route']): string[] {
  if (!route.body) return [];
  return Object.keys((requestSchema(route.body).properties as object | undefined) ?? {});
}

function queryFields(route: (typeof ROUTES)[number]['route']): string[] {
  if (!route.query) return [];
  return Object.keys((requestSchema(route.query).properties as object | undefined) ?? {});
}

export function restFuzzTests(setupOf: () => FuzzSetup): void {
  describe(`REST fuzzing (${RUNS_PER_ROUTE} runs per route, seed ${FUZZ_SEED})`, () => {
    let app: FuzzSetup['app'];
    let space: Space;
    let serverErrors: string[];
    /** One key per route: each route's runs stay far inside the plan's per-key rate limit. */
    let keys: string[];
    beforeAll(async () => {
      const setup = setupOf();
      ({ app, serverErrors } = setup);
      space = setup.rest.space;
      keys = await Promise.all(
        ROUTES.map(async (_r, i) => (await setup.rest.workspace.addKey({ name: `fuzz ${i}` })).key),
      );
    });

    const protoBefore = prototypeState();
    let runs = 0;

    for (const [i, r] of ROUTES.entries()) {
      it(`${r.route.method} ${r.route.path}: hostile requests get a 4xx or success, in the envelope`, async () => {
        const valid = VALID_INPUT[r.field]?.(space) ?? {};
        const names = Object.keys(r.params);
        const request = fc.record({
          ids: fc.tuple(...names.map((n) => hostileId(space.ids[r.params[n]]))),
          query: hostileQuery(queryFields(r.route)),
          body: hostileBody(valid, bodyFields(r.route)),
          headers: hostileHeaders,
          withBody: fc.boolean(),
        });
        await fc.assert(
          fc.asyncProperty(request, async ({ ids, query, body, headers, withBody }) => {
            let n = 0;
            const path = '/v1' + r.route.path.replace(/:\w+/g, () => ids[n++]) + (query ? `?${query}` : '');
            const sendBody = r.route.method === 'POST' || r.route.method === 'PUT' || withBody;
            const res = await rawRequest(
              app.base,
              r.route.method,
              path,
              { ...headers, authorization: `Bearer ${keys[i]}` },
              sendBody ? body : undefined,
            );
            runs++;
            const logged = serverErrors.splice(0);
            const what =
              `${r.route.method} ${path.slice(0, 300)} [${res.status}] ` +
              `${res.text.slice(0, 500)} ${logged.join('\n')}`;
            // An export's success is its file, and so is a file route's (failed rows); every refusal is the envelope.
            if ((r.route.export || r.route.file) && res.status === 200)
              expect(res.headers['content-type'], what).toMatch(/^(text\/csv|application\/x-ndjson);/);
            else expectRestEnvelope(res, what);
            expect(logged, `${what}: the server logged an error`).toEqual([]);
          }),
          { seed: FUZZ_SEED + i, numRuns: RUNS_PER_ROUTE },
        );
      });
    }

    let authRuns = 0;
    it(`hostile Authorization headers: a 401 envelope on each route (${RUNS_OF_AUTHORIZATION} generated)`, async () => {
      const setup = setupOf();
      const fixed = hostileAuthorizations(setup.rest.workspace.key, await deadKeys(setup.app, setup.graphql.workspace));
      // Refused requests draw from a per-IP budget (100 a minute): these come from addresses of their own,
      // one for the round of the route table and one for the generated values.
      const addresses = [await freshLoopback(app.base, 0), await freshLoopback(app.base, 1)];
      let from = addresses[0];
      const send = async (r: (typeof ROUTES)[number], [label, authorization]: [string, string]) => {
        const path = '/v1' + r.route.path.replace(/:(\w+)/g, (_m, name: string) => space.ids[r.params[name]]);
        const body =
          r.route.method === 'POST' || r.route.method === 'PUT'
            ? JSON.stringify(VALID_INPUT[r.field]?.(space) ?? {})
            : undefined;
        const res = await rawRequest(
          app.base,
          r.route.method,
          path,
          { authorization, 'content-type': 'application/json', accept: 'application/json' },
          body,
          { localAddress: from },
        );
        authRuns++;
        const logged = serverErrors.splice(0);
        const what =
          `${label} (${authorization.slice(0, 80)}): ${r.route.method} ${path} [${res.status}] ` +
          `${res.text.slice(0, 300)} ${logged.join('\n')}`;
        const answer = expectRestEnvelope(res, what);
        // Without an address of its own (not Linux), a shared Redis bucket may already be spent.
        if (from || res.status !== 429) {
          expect(res.status, what).toBe(401);
          expect(answer.error.code, what).toBe('unauthorized');
        }
        expect(logged, `${what}: the server logged an error`).toEqual([]);
      };
      // Each fixed value on a route of its own, round the route table: every route sees some.
      for (const [i, r] of ROUTES.entries()) await send(r, fixed[i % fixed.length]);
      for (const value of fixed.slice(ROUTES.length)) await send(ROUTES[0], value);
      from = addresses[1];
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: ROUTES.length - 1 }), hostileAuthorization(fixed), async (i, value) =>
          send(ROUTES[i], value),
        ),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_AUTHORIZATION },
      );
    });

    it('left Object.prototype and Array.prototype as they were, and logged no server error', () => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(prototypeState()).toEqual(protoBefore);
      expect(serverErrors).toEqual([]);
      console.log(
        `REST fuzzing: ${runs} hostile requests over ${ROUTES.length} routes, ` +
          `${authRuns} with hostile Authorization headers (seed ${FUZZ_SEED})`,
      );
    });
  });
}
