// Property-based fuzzing of every GraphQL mutation and query (from the schema) with hostile
// variables, raw bodies and documents: never a 5xx or internal_error, every error with a message
// and a code, nothing of the server's insides, Object.prototype clean in the server.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentFor, rootFields, VALID_INPUT, type FuzzSetup, type RootField, type Space } from './fixtures.ts';
import { deepJson, expectGraphqlErrors, FUZZ_SEED, hostileString, hostileValue, pollutingJson, prototypeState, rawRequest } from './hostile.ts';

const RUNS_PER_MUTATION = 12;
const RUNS_PER_QUERY = 4;
const RUNS_OF_DOCUMENTS = 30;

/** Variables for a field: each argument a real value, a hostile one, or missing. */
function hostileVariables(f: RootField, space: Space): fc.Arbitrary<Record<string, unknown>> {
  const valid = VALID_INPUT[f.name]?.(space) ?? {};
  const parts = Object.fromEntries(
    f.field.args.map((a) => {
      const real = f.ids[a.name] ? space.ids[f.ids[a.name]] : a.name === 'input' ? valid : undefined;
      const mutatedInput = fc
        .record({ key: fc.constantFrom(...Object.keys(valid), 'custom_fields', 'tags', '__proto__', 'id'), value: hostileValue })
        .map(({ key, value }) => ({ ...valid, [key]: value }));
      return [
        a.name,
        fc.oneof(
          { weight: 3, arbitrary: a.name === 'input' ? mutatedInput : fc.constant(real) },
          { weight: 2, arbitrary: hostileValue },
          { weight: 1, arbitrary: hostileString },
          { weight: 1, arbitrary: fc.constant(undefined) },
        ),
      ];
    }),
  );
  return fc.record(parts, { requiredKeys: [] }) as fc.Arbitrary<Record<string, unknown>>;
}

export function graphqlFuzzTests(setupOf: () => FuzzSetup): void {
  describe(`GraphQL fuzzing (seed ${FUZZ_SEED})`, () => {
    let space: Space;
    let serverErrors: string[];
    let post: (key: string, body: string, contentType?: string) => ReturnType<typeof rawRequest>;
    /** Several keys, used in turn: the runs stay far inside the plan's per-key rate limit. */
    let keyOf: (i: number) => string;
    beforeAll(async () => {
      const setup = setupOf();
      ({ serverErrors } = setup);
      space = setup.graphql.space;
      post = (key, body, contentType = 'application/json') =>
        rawRequest(setup.app.base, 'POST', '/graphql', { authorization: `Bearer ${key}`, 'content-type': contentType, accept: 'application/json' }, body);
      const keys = await Promise.all(Array.from({ length: 8 }, async (_v, i) => (await setup.graphql.workspace.addKey({ name: `fuzz ${i}` })).key));
      keyOf = (i) => keys[i % keys.length];
    });

    const protoBefore = prototypeState();
    let runs = 0;

    for (const [i, f] of rootFields().entries()) {
      const numRuns = f.type === 'mutation' ? RUNS_PER_MUTATION : RUNS_PER_QUERY;
      it(`${f.type} ${f.name} answers ${numRuns} hostile variables with data or coded errors`, async () => {
        const document = documentFor(f);
        const body = fc.oneof(
          { weight: 6, arbitrary: hostileVariables(f, space).map((variables) => JSON.stringify({ query: document, variables })) },
          { weight: 1, arbitrary: deepJson.map((v) => `{"query":${JSON.stringify(document)},"variables":{"input":${v}}}`) },
          { weight: 1, arbitrary: pollutingJson.map((v) => `{"query":${JSON.stringify(document)},"variables":{"input":${v}}}`) },
        );
        await fc.assert(
          fc.asyncProperty(body, async (text) => {
            const res = await post(keyOf(i), text);
            runs++;
            expectGraphqlErrors(res.status, res.text, `${f.name} ${text.slice(0, 400)} [${res.status}] ${res.text.slice(0, 600)} ${serverErrors.splice(0).join('\n')}`);
          }),
          { seed: FUZZ_SEED + i, numRuns },
        );
      });
    }

    it(`hostile documents and bodies get coded errors (${RUNS_OF_DOCUMENTS} runs, seed ${FUZZ_SEED})`, async () => {
      const fieldNames = rootFields().map((f) => f.name);
      const document = fc.oneof(
        hostileString,
        fc.constantFrom(...fieldNames).map((n) => `{ ${n} }`),
        fc.constantFrom(...fieldNames).map((n) => `mutation { ${n}(input: {}) { __typename } }`),
        fc.integer({ min: 1, max: 3000 }).map((n) => `{ ${'contacts { nodes { deals { contact { '.repeat(n)} id ${'} } } }'.repeat(n)} }`),
        fc.integer({ min: 1, max: 2000 }).map((n) => `{ ${Array.from({ length: n }, (_v, i) => `a${i}: contacts { total }`).join(' ')} }`),
        fc.constant('query Q { __schema { types { name fields { name } } } }'),
        fc.constant('subscription { events { id } }'),
        fc.constant('{ contact(id: "\\u0000") { id } }'),
      );
      const body = fc.oneof(
        { weight: 4, arbitrary: fc.record({ query: document, operationName: fc.option(hostileString) }).map((b) => JSON.stringify(b)) },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
        { weight: 1, arbitrary: fc.record({ query: fc.constant('{ contacts { total } }'), variables: hostileValue, extensions: hostileValue }).map((b) => JSON.stringify(b)) },
      );
      await fc.assert(
        fc.asyncProperty(body, fc.constantFrom('application/json', 'application/graphql', 'text/plain', 'application/x-www-form-urlencoded'), async (text, contentType) => {
          const res = await post(keyOf(runs), text, contentType);
          runs++;
          expectGraphqlErrors(res.status, res.text, `${contentType} ${text.slice(0, 400)} [${res.status}] ${res.text.slice(0, 600)} ${serverErrors.splice(0).join('\n')}`);
        }),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_DOCUMENTS },
      );
    });

    it('left Object.prototype and Array.prototype as they were', () => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(prototypeState()).toEqual(protoBefore);
      console.log(`GraphQL fuzzing: ${runs} requests over ${rootFields().length} fields and raw documents (seed ${FUZZ_SEED})`);
    });
  });
}
