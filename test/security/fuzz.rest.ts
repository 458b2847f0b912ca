// Property-based fuzzing of every REST route (from the route table) with hostile bodies, query
// strings, path parameters and headers: never a 5xx, always the envelope, never a stack trace,
// SQL or database text, and Object.prototype stays clean in the server (it runs in this process).
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { requestSchema } from '../../src/rest/openapi/request.ts';
import { rawRequest, expectRestEnvelope, FUZZ_SEED, hostileBody, hostileHeaders, hostileId, hostileQuery, prototypeState } from './hostile.ts';
import { ROUTES, VALID_INPUT, type FuzzSetup, type Space } from './fixtures.ts';

const RUNS_PER_ROUTE = 15;

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
      keys = await Promise.all(ROUTES.map(async (_r, i) => (await setup.rest.workspace.addKey({ name: `fuzz ${i}` })).key));
    });

    const protoBefore = prototypeState();
    let runs = 0;

    for (const [i, r] of ROUTES.entries()) {
      it(`${r.route.method} ${r.route.path} answers hostile requests with a 4xx or success, in the envelope`, async () => {
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
            const res = await rawRequest(app.base, r.route.method, path, { ...headers, authorization: `Bearer ${keys[i]}` }, sendBody ? body : undefined);
            runs++;
            expectRestEnvelope(res.status, res.text, `${r.route.method} ${path.slice(0, 300)} [${res.status}] ${res.text.slice(0, 500)} ${serverErrors.splice(0).join('\n')}`);
          }),
          { seed: FUZZ_SEED + i, numRuns: RUNS_PER_ROUTE },
        );
      });
    }

    it('left Object.prototype and Array.prototype as they were', () => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(prototypeState()).toEqual(protoBefore);
      console.log(`REST fuzzing: ${runs} requests over ${ROUTES.length} routes (seed ${FUZZ_SEED})`);
    });
  });
}
