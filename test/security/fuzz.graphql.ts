// Property-based fuzzing of every GraphQL mutation and query (from the schema) with hostile
// variables, raw bodies and documents, over POST and GET (query strings), with hostile headers:
// never a 5xx or internal_error, every error with a message and a code, nothing of the server's
// insides in an answer (body or headers), nothing logged as a server error, Object.prototype clean
// in the server. Hostile Authorization headers: always a 401 with a coded GraphQL error.
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  deadKeys,
  documentFor,
  rootFields,
  VALID_INPUT,
  type FuzzSetup,
  type RootField,
  type Space,
} from './fixtures.ts';
import {
  deepJson,
  encode,
  expectGraphqlErrors,
  freshLoopback,
  FUZZ_SEED,
  hostileAuthorization,
  hostileAuthorizations,
  hostileHeaders,
  hostileQuery,
  hostileString,
  hostileValue,
  pollutingJson,
  prototypeState,
  rawRequest,
  type RawResponse,
} from './hostile.ts';

const RUNS_PER_MUTATION = 12;
const RUNS_PER_QUERY = 4;
const RUNS_OF_DOCUMENTS = 30;
/** GET /graphql?query=...&variables=... with hostile headers. */
const RUNS_OF_GET = 40;
/** POST /graphql with hostile headers. */
const RUNS_OF_HEADERS = 25;
/** Generated Authorization values, on top of every fixed hostile value on GET and POST. */
const RUNS_OF_AUTHORIZATION = 20;

/** Strings cut short, so that a GET's URL and headers stay within Node's 16 KiB (past it Node answers 431 itself). */
const short = (value: unknown): string => JSON.stringify(cut(value));
const cut = (v: unknown): unknown => {
  if (typeof v === 'string') return v.slice(0, 200);
  if (Array.isArray(v)) return v.map(cut);
  // Keys too (hostile keys are hostile strings); defineProperty keeps a `__proto__` key a plain key.
  if (v && typeof v === 'object')
    return Object.entries(v).reduce(
      (o, [k, x]) => Object.defineProperty(o, k.slice(0, 200), { value: cut(x), enumerable: true }),
      {},
    );
  return v;
};

/** Documents that attack the parser and the limits, small enough for a URL when `small`. */
const hostileDocument = (fieldNames: string[], small = false) =>
  fc.oneof(
    small ? hostileString.map((d) => d.slice(0, 2000)) : hostileString,
    fc.constantFrom(...fieldNames).map((n) => `{ ${n} }`),
    fc.constantFrom(...fieldNames).map((n) => `mutation { ${n}(input: {}) { __typename } }`),
    fc
      .integer({ min: 1, max: small ? 60 : 3000 })
      .map((n) => `{ ${'contacts { nodes { deals { contact { '.repeat(n)} id ${'} } } }'.repeat(n)} }`),
    fc
      .integer({ min: 1, max: small ? 150 : 2000 })
      .map((n) => `{ ${Array.from({ length: n }, (_v, i) => `a${i}: contacts { total }`).join(' ')} }`),
    // Lists of lists under aliases (the outside case that ran the heap out): refused by their cost.
    fc.tuple(fc.integer({ min: 1, max: small ? 2 : 15 }), fc.constantFrom(1, 10, 100)).map(([aliases, limit]) => {
      const alias = (i: number) =>
        `a${i}: contacts(limit: ${limit}) { nodes { deals(limit: ${limit}) { contacts { contact { ` +
        `deals(limit: ${limit}) { id title } } } } } }`;
      return `{ ${Array.from({ length: aliases }, (_v, i) => alias(i)).join(' ')} }`;
    }),
    fc.constant('query Q { __schema { types { name fields { name } } } }'),
    fc.constant('subscription { events { id } }'),
    fc.constant('{ contact(id: "\\u0000") { id } }'),
  );

/** Variables for a field: each argument a real value, a hostile one, or missing. */
function hostileVariables(f: RootField, space: Space): fc.Arbitrary<Record<string, unknown>> {
  const valid = VALID_INPUT[f.name]?.(space) ?? {};
  const parts = Object.fromEntries(
    f.field.args.map((a) => {
      const real = f.ids[a.name] ? space.ids[f.ids[a.name]] : a.name === 'input' ? valid : undefined;
      const mutatedInput = fc
        .record({
          key: fc.constantFrom(...Object.keys(valid), 'custom_fields', 'tags', '__proto__', 'id'),
          value: hostileValue,
        })
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
    let base: string;
    let post: (key: string, body: string, contentType?: string) => Promise<RawResponse>;
    /** Several keys, used in turn: the runs stay far inside the plan's per-key rate limit. */
    let keyOf: (i: number) => string;
    beforeAll(async () => {
      const setup = setupOf();
      ({ serverErrors } = setup);
      space = setup.graphql.space;
      base = setup.app.base;
      post = (key, body, contentType = 'application/json') =>
        rawRequest(
          setup.app.base,
          'POST',
          '/graphql',
          { authorization: `Bearer ${key}`, 'content-type': contentType, accept: 'application/json' },
          body,
        );
      const keys = await Promise.all(
        Array.from({ length: 8 }, async (_v, i) => (await setup.graphql.workspace.addKey({ name: `fuzz ${i}` })).key),
      );
      keyOf = (i) => keys[i % keys.length];
    });

    const protoBefore = prototypeState();
    let runs = 0;
    let getRuns = 0;
    let headerRuns = 0;
    let authRuns = 0;

    /** The checks of every answer: the GraphQL error shape, no internals, nothing logged as a server error. */
    const check = (res: RawResponse, request: string) => {
      const logged = serverErrors.splice(0);
      const what = `${request} [${res.status}] ${res.text.slice(0, 600)} ${logged.join('\n')}`;
      const body = expectGraphqlErrors(res, what);
      expect(logged, `${what}: the server logged an error`).toEqual([]);
      return body;
    };

    for (const [i, f] of rootFields().entries()) {
      const numRuns = f.type === 'mutation' ? RUNS_PER_MUTATION : RUNS_PER_QUERY;
      it(`${f.type} ${f.name} answers ${numRuns} hostile variables with data or coded errors`, async () => {
        const document = documentFor(f);
        const body = fc.oneof(
          {
            weight: 6,
            arbitrary: hostileVariables(f, space).map((variables) => JSON.stringify({ query: document, variables })),
          },
          {
            weight: 1,
            arbitrary: deepJson.map((v) => `{"query":${JSON.stringify(document)},"variables":{"input":${v}}}`),
          },
          {
            weight: 1,
            arbitrary: pollutingJson.map((v) => `{"query":${JSON.stringify(document)},"variables":{"input":${v}}}`),
          },
        );
        await fc.assert(
          fc.asyncProperty(body, async (text) => {
            const res = await post(keyOf(i), text);
            runs++;
            check(res, `${f.name} ${text.slice(0, 400)}`);
          }),
          { seed: FUZZ_SEED + i, numRuns },
        );
      });
    }

    it(`hostile documents and bodies get coded errors (${RUNS_OF_DOCUMENTS} runs)`, async () => {
      const document = hostileDocument(rootFields().map((f) => f.name));
      const body = fc.oneof(
        {
          weight: 4,
          arbitrary: fc
            .record({ query: document, operationName: fc.option(hostileString) })
            .map((b) => JSON.stringify(b)),
        },
        { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
        { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
        {
          weight: 1,
          arbitrary: fc
            .record({ query: fc.constant('{ contacts { total } }'), variables: hostileValue, extensions: hostileValue })
            .map((b) => JSON.stringify(b)),
        },
      );
      await fc.assert(
        fc.asyncProperty(
          body,
          fc.constantFrom('application/json', 'application/graphql', 'text/plain', 'application/x-www-form-urlencoded'),
          async (text, contentType) => {
            const res = await post(keyOf(runs), text, contentType);
            runs++;
            check(res, `${contentType} ${text.slice(0, 400)}`);
          },
        ),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_DOCUMENTS },
      );
    });

    it(`GET /graphql with hostile query strings and headers gets coded errors (${RUNS_OF_GET} runs)`, async () => {
      const fields = rootFields();
      const params = fc.oneof(
        // A field's document (mutations too: GET must refuse them) with hostile variables.
        {
          weight: 4,
          arbitrary: fc
            .nat({ max: fields.length - 1 })
            .chain((i) =>
              hostileVariables(fields[i], space).map((v) => ({ query: documentFor(fields[i]), variables: short(v) })),
            ),
        },
        // Hostile documents; variables that are not JSON, or JSON of any shape.
        {
          weight: 2,
          arbitrary: fc.record({
            query: hostileDocument(
              fields.map((f) => f.name),
              true,
            ),
            variables: fc.option(
              fc.oneof(
                hostileString.map((v) => v.slice(0, 300)),
                hostileValue.map(short),
              ),
            ),
            operationName: fc.option(hostileString.map((v) => v.slice(0, 100))),
          }),
        },
      );
      const request = fc.record({
        params,
        // Known and unknown parameters again, repeated ones, broken percent escapes.
        extra: fc.option(hostileQuery(['query', 'variables', 'operationName', 'extensions'])),
        headers: hostileHeaders,
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ params: p, extra, headers }) => {
          const pairs = Object.entries(p).filter(([, v]) => v !== null && v !== undefined) as [string, string][];
          const query = [...pairs.map(([k, v]) => `${k}=${encode(v)}`), ...(extra ? [extra] : [])].join('&');
          const path = `/graphql?${query}`;
          const h: Record<string, string> = {
            ...headers,
            authorization: `Bearer ${keyOf(getRuns)}`,
            'x-fuzz': (headers['x-fuzz'] ?? '').slice(0, 4000),
          };
          const res = await rawRequest(base, 'GET', path, h);
          getRuns++;
          const request = `GET ${path.slice(0, 400)} accept=${h.accept} content-type=${h['content-type']}`;
          // GraphiQL: a browser's GET (HTML preferred) gets the page, no key needed.
          if (h.accept === 'text/html') return expectGraphiql(res, request);
          check(res, request);
        }),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_GET },
      );
    });

    /** The GraphiQL page: HTML, nothing of the server's insides, nothing logged. */
    const expectGraphiql = (res: RawResponse, request: string) => {
      const logged = serverErrors.splice(0);
      const what = `${request} [${res.status}] ${res.text.slice(0, 300)} ${logged.join('\n')}`;
      expect(res.status, what).toBe(200);
      expect(res.headers['content-type'], what).toMatch(/^text\/html/);
      expect(logged, what).toEqual([]);
    };

    it(`POST /graphql with hostile headers gets coded errors (${RUNS_OF_HEADERS} runs)`, async () => {
      const fields = rootFields();
      const request = fc.record({
        body: fc
          .nat({ max: fields.length - 1 })
          .chain((i) =>
            hostileVariables(fields[i], space).map((variables) =>
              JSON.stringify({ query: documentFor(fields[i]), variables }),
            ),
          ),
        headers: hostileHeaders,
      });
      await fc.assert(
        fc.asyncProperty(request, async ({ body, headers }) => {
          const res = await rawRequest(
            base,
            'POST',
            '/graphql',
            { ...headers, authorization: `Bearer ${keyOf(headerRuns)}` },
            body,
          );
          headerRuns++;
          check(res, `POST accept=${headers.accept} content-type=${headers['content-type']} ${body.slice(0, 300)}`);
        }),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_HEADERS },
      );
    });

    it(`hostile Authorization headers: a coded 401 on GET and POST (${RUNS_OF_AUTHORIZATION} generated)`, async () => {
      const setup = setupOf();
      const fixed = hostileAuthorizations(setup.graphql.workspace.key, await deadKeys(setup.app, setup.rest.workspace));
      // Refused requests draw from a per-IP budget (100 a minute): these come from an address of their own.
      const from = await freshLoopback(base, 1);
      const document = '{ contacts { total } }';
      const send = async (method: 'GET' | 'POST', [label, authorization]: [string, string]) => {
        const headers = { authorization, 'content-type': 'application/json', accept: 'application/json' };
        const res =
          method === 'GET'
            ? await rawRequest(base, 'GET', `/graphql?query=${encodeURIComponent(document)}`, headers, undefined, {
                localAddress: from,
              })
            : await rawRequest(base, 'POST', '/graphql', headers, JSON.stringify({ query: document }), {
                localAddress: from,
              });
        authRuns++;
        const body = check(res, `${method} with ${label} (${authorization.slice(0, 80)})`);
        // Without an address of its own (not Linux), a shared Redis bucket may already be spent.
        if (from || res.status !== 429) {
          expect(res.status, `${method} with ${label}: ${res.text}`).toBe(401);
          expect(body.errors?.[0]?.extensions?.code, `${method} with ${label}: ${res.text}`).toBe('unauthorized');
          expect(body.data ?? null, `${method} with ${label}: ${res.text}`).toBeNull();
        }
      };
      for (const value of fixed) for (const method of ['GET', 'POST'] as const) await send(method, value);
      await fc.assert(
        fc.asyncProperty(fc.constantFrom('GET' as const, 'POST' as const), hostileAuthorization(fixed), send),
        { seed: FUZZ_SEED, numRuns: RUNS_OF_AUTHORIZATION },
      );
    });

    it('left Object.prototype and Array.prototype as they were, and logged no server error', () => {
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(prototypeState()).toEqual(protoBefore);
      expect(serverErrors).toEqual([]);
      console.log(
        `GraphQL fuzzing: ${runs + getRuns + headerRuns + authRuns} requests: ` +
          `${runs} POST over ${rootFields().length} fields and raw documents, ` +
          `${getRuns} GET with hostile query strings and headers, ${headerRuns} POST with hostile headers, ` +
          `${authRuns} with hostile Authorization headers (seed ${FUZZ_SEED})`,
      );
    });
  });
}
