// Hostile input for the fuzz tests (fast-check arbitraries) and the checks every answer to it
// must pass: no 5xx, the API's error shape, and nothing of the server's insides.
import http from 'node:http';
import fc from 'fast-check';
import { expect } from 'vitest';

/** An answer as received: status, raw text and every header. */
export interface RawResponse {
  status: number;
  text: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * An HTTP request sent as given: any method with a body, the path not normalised. `localAddress`
 * sends it from another loopback address (127.x.y.z), so it draws from a rate-limit bucket of its own.
 */
export function rawRequest(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
  opts: { localAddress?: string } = {},
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const allHeaders = body === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    const req = http.request(base + path, { method, headers: allHeaders, localAddress: opts.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString('utf8'), headers: res.headers }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/**
 * A loopback address of this run's own (127.x.y.z), when the system routes 127/8 to loopback (Linux
 * does): requests without a valid key draw from a per-IP budget of 100 a minute, which on a shared
 * Redis every test file of the run (and every run) shares for 127.0.0.1. Falls back to 127.0.0.1.
 */
export async function freshLoopback(base: string, salt = 0): Promise<string | undefined> {
  const n = (process.pid * 7919 + Date.now() + salt * 254 * 254) % (254 * 254 * 250);
  const address = `127.${1 + (n % 254)}.${1 + (Math.floor(n / 254) % 254)}.${2 + (Math.floor(n / 254 / 254) % 250)}`;
  try {
    await rawRequest(base, 'GET', '/healthz', {}, undefined, { localAddress: address });
    return address;
  } catch {
    return undefined;
  }
}

/** Fixed, so a failure reproduces; FUZZ_SEED explores others. fast-check prints the seed and the failing case. */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? 7_2026_1122);

const NASTY_STRINGS = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\uD800',
  'x\uDFFFy',
  '\uFEFF',
  '\u202E',
  'ￜ',
  '🔥💥',
  'é'.normalize('NFD'),
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  "' OR '1'='1",
  '"; DROP TABLE contacts; --',
  '\\',
  '%00',
  '%ZZ',
  '../../etc/passwd',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  'NaN',
  'Infinity',
  '-1',
  '1e309',
  '9'.repeat(400),
  'true',
  'null',
  '2020-02-30',
  '+00000000000000000000',
];

/** Strings that break naive code: control characters, lone surrogates, injection, long ones. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  // Past every length limit of the API (255, 10,000 and 100,000 characters); 1 MiB bodies come from hostileBody.
  { weight: 1, arbitrary: fc.constantFrom(256, 10_001, 100_001).map((n) => 'é'.repeat(n)) },
);

/** Object keys that attack prototypes, plus ordinary ones. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '__proto__',
    'constructor',
    'prototype',
    '__defineGetter__',
    'hasOwnProperty',
    'valueOf',
    'toJSON',
    'then',
  ),
  hostileString,
);

export const hostileValue: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    fc.integer(),
    fc.double(),
    fc.constantFrom(0, -0, -1, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER + 2, 0.1),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** JSON text that is deeply nested: arrays, objects, or both. */
export const deepJson: fc.Arbitrary<string> = fc
  .record({ depth: fc.integer({ min: 50, max: 20_000 }), kind: fc.constantFrom('array', 'object', 'proto') })
  .map(({ depth, kind }) => {
    if (kind === 'array') return '['.repeat(depth) + ']'.repeat(depth);
    const key = kind === 'proto' ? '__proto__' : 'a';
    return `{"${key}":`.repeat(depth) + '1' + '}'.repeat(depth);
  });

/** Bodies meant to pollute Object.prototype if anything merges them naively. */
export const pollutingJson = fc.constantFrom(
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"custom_fields":{"__proto__":{"polluted":"yes"}},"first_name":"P","email":"p@example.com"}',
  '{"address":{"__proto__":{"polluted":"yes"}}}',
  '{"headers":{"__proto__":{"polluted":"yes"}},"url":"http://127.0.0.1:9/h","events":["contact.created"]}',
  '{"filters":{"constructor":{"prototype":{"polluted":"yes"}}}}',
  '{"contacts":[{"__proto__":{"polluted":"yes"},"first_name":"P","email":"q@example.com"}]}',
);

/**
 * A body for a route: its valid input with one field set to a hostile value, a hostile object,
 * deep or polluting JSON, any JSON value, or (rarely) more than the 1 MiB limit. Returned as text.
 */
export function hostileBody(valid: Record<string, unknown>, fieldNames: string[]): fc.Arbitrary<string> {
  const keys = [...new Set([...Object.keys(valid), ...fieldNames])];
  const mutated = keys.length
    ? fc
        .record({ key: fc.constantFrom(...keys), value: hostileValue })
        .map(({ key, value }) => JSON.stringify({ ...valid, [key]: value }))
    : fc.constant(JSON.stringify(valid));
  return fc.oneof(
    { weight: 8, arbitrary: mutated },
    { weight: 3, arbitrary: fc.dictionary(hostileKey, hostileValue, { maxKeys: 6 }).map((o) => JSON.stringify(o)) },
    { weight: 1, arbitrary: deepJson },
    { weight: 1, arbitrary: pollutingJson },
    { weight: 1, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
    { weight: 1, arbitrary: fc.constant(`{"first_name":"${'x'.repeat(1_100_000)}"}`) },
  );
}

/** Header-safe text (Latin-1, no control characters): what an HTTP client can send at all. */
const headerText = (maxLength: number) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** Content types that lie about the body, and other odd headers within Node's header size limit. */
export const hostileHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'content-type': fc.constantFrom(
        'application/json',
        'application/json',
        'application/json; charset=utf-8',
        'application/json; charset=utf-16',
        'application/json; charset=latin1',
        'application/vnd.api+json',
        'text/plain',
        'text/html',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=xyz',
        'application/xml',
        '*/*',
        'application/json; charset="',
      ),
      'idempotency-key': headerText(300),
      'x-request-id': headerText(200),
      accept: fc.constantFrom('application/json', 'text/html', '*/*', 'application/xml', ''),
      'accept-language': headerText(40),
      'x-fuzz': fc.integer({ min: 1, max: 8_000 }).map((n) => 'h'.repeat(n)),
      'x-forwarded-for': fc.constantFrom('127.0.0.1', '::1', 'not-an-ip', '1.1.1.1, 2.2.2.2'),
    },
    { requiredKeys: ['content-type'] },
  )
  .map((h) => Object.fromEntries(Object.entries(h).filter(([, v]) => v !== '')));

/** Percent-encodes any string; a lone surrogate becomes the bytes of one (not valid UTF-8). */
export const encode = (s: string) =>
  encodeURIComponent(
    s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'),
  ).replace(/%EF%BF%BD/g, '%ED%A0%80');

/** Query parameters, known and unknown, with hostile values; repeated keys too. */
export function hostileQuery(known: string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    fc.constantFrom(...known, 'limit', 'cursor', 'sort', 'fields', 'q'),
    hostileKey.map((k) => k.slice(0, 100)),
    fc.constantFrom('a[b]', 'limit[]', 'filter[status]'),
  );
  // Short enough that URL and headers stay within Node's 16 KiB limit (past it Node answers 431 itself).
  const value = fc.oneof(
    hostileString.map((v) => v.slice(0, 300)),
    fc.constantFrom(
      '0',
      '101',
      '-5',
      '1.5',
      '25',
      'id,first_name',
      '-created_at',
      'nope',
      '%',
      '%ZZ',
      '%00',
      '%E0%A4%A',
    ),
  );
  return fc
    .array(fc.tuple(name, value), { maxLength: 5 })
    .map((pairs) => pairs.map(([k, v]) => `${encode(k)}=${/^%/.test(v) ? v : encode(v)}`).join('&'));
}

/** A path parameter: a real id mostly, else something hostile (encoded, or raw broken escapes). */
export function hostileId(real: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(real) },
    {
      weight: 2,
      arbitrary: hostileString
        .map((s) => s.slice(0, 300))
        .filter((s) => s.length > 0)
        .map(encode),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%ZZ', '%E0%A4%A', '%00', '..', '.', '%2F', '%252F', `${real}%00`, 'x'.repeat(3000)),
    },
  );
}

const INTERNALS = [
  /\n\s+at /,
  /\bat [\w$.<>]+ \((file:|node:|\/)/,
  /node_modules/,
  /\/work\//,
  /\.(ts|js|mjs):\d+/,
  /prisma/i,
  /pglite/i,
  /driver adapter/i,
  /invalid input syntax/i,
  /syntax error at or near/i,
  /violates .* constraint/i,
  /duplicate key value/i,
  /invalid byte sequence/i,
  /unsupported unicode escape/i,
  /\bSQLSTATE\b/i,
  /Maximum call stack/i,
  /RangeError|TypeError|ReferenceError|SyntaxError: /,
];

/** Text of the server's insides that an answer shows. */
export function internals(text: string): string[] {
  return INTERNALS.filter((re) => re.test(text)).map(String);
}

/** The whole of an answer as text: every header, then the body. */
const wholeText = (res: RawResponse) =>
  `${Object.entries(res.headers)
    .map(([k, v]) => `${k}: ${Array.isArray(v) ? v.join(', ') : v}`)
    .join('\n')}\n\n${res.text}`;

/**
 * A REST answer: below 500, JSON, and the envelope: `{ success, data, meta }` or `{ success: false,
 * error: { code, message }, meta }`; nothing of the server's insides anywhere in it (every field,
 * success or error, and every header).
 */
export function expectRestEnvelope(res: RawResponse, what: string): any {
  const { status, text } = res;
  expect(status, what).toBeLessThan(500);
  let body: any;
  expect(() => (body = JSON.parse(text)), `${what}: not JSON`).not.toThrow();
  expect(body?.meta?.request_id, what).toEqual(expect.any(String));
  if (status >= 400) {
    expect(body.success, what).toBe(false);
    expect(body.error, what).toMatchObject({ code: expect.any(String), message: expect.any(String) });
  } else {
    expect(body.success, what).toBe(true);
  }
  expect(internals(wholeText(res)), `${what}: shows the server's insides`).toEqual([]);
  return body;
}

/**
 * A GraphQL answer: below 500, JSON, and every error with a message and a code (never
 * internal_error); nothing of the server's insides anywhere in it (data, errors, extensions, headers).
 */
export function expectGraphqlErrors(res: RawResponse, what: string): any {
  const { status, text } = res;
  expect(status, what).toBeLessThan(500);
  let body: any;
  expect(() => (body = JSON.parse(text)), `${what}: not JSON`).not.toThrow();
  expect(body.data !== undefined || Array.isArray(body.errors), what).toBe(true);
  for (const e of body.errors ?? []) {
    expect(e, what).toMatchObject({ message: expect.any(String), extensions: { code: expect.any(String) } });
    expect(e.extensions.code, what).not.toBe('internal_error');
  }
  expect(internals(wholeText(res)), `${what}: shows the server's insides`).toEqual([]);
  return body;
}

/**
 * Authorization values that must all be refused with a 401: malformed, wrong scheme or spacing,
 * huge, non-ASCII, and well-formed keys that are not (or no longer) valid. `key` is a valid key
 * of the caller, `revoked` and `expired` keys of another workspace.
 */
export function hostileAuthorizations(key: string, other: { revoked: string; expired: string }): [string, string][] {
  // Header values travel as Latin-1: this is what UTF-8 bytes look like to Node's http client.
  const utf8 = (s: string) => Buffer.from(s, 'utf8').toString('latin1');
  const body = key.slice('crm_live_'.length);
  return [
    ['scheme only', 'Bearer'],
    ['two spaces', `Bearer  ${key}`],
    ['tab', `Bearer\t${key}`],
    ["lowercase 'bearer'", `bearer ${key}`],
    ["uppercase 'BEARER'", `BEARER ${key}`],
    ['no scheme', key],
    ['Basic', `Basic ${Buffer.from(`${key}:`).toString('base64')}`],
    ['Token scheme', `Token ${key}`],
    ['two keys', `Bearer ${key} ${key}`],
    ['two credentials', `Bearer ${key}, Bearer ${key}`],
    ['quoted', `Bearer "${key}"`],
    ['key with a character more', `Bearer ${key}x`],
    ['key with a character less', `Bearer ${key.slice(0, -1)}`],
    ['key with a character changed', `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}`],
    ['other prefix', `Bearer crm_prod_${body}`],
    ['sandbox prefix on a live key', `Bearer crm_test_${body}`],
    ['unknown well-formed key', 'Bearer crm_live_00000000000000000000000000000000'],
    ['huge', `Bearer crm_live_${'A'.repeat(8000)}`],
    ['Latin-1', `Bearer crm_live_${'é'.repeat(32)}`],
    ['UTF-8 bytes', `Bearer ${utf8(`crm_live_${'🔑'.repeat(8)}${body.slice(16)}`)}`],
    ['right-to-left mark', `Bearer ${utf8('\u202E')}${key}`],
    ['percent-encoded', `Bearer ${encodeURIComponent(key).replace(/_/g, '%5F')}`],
    ['null', 'Bearer null'],
    ['undefined', 'Bearer undefined'],
    ['SQL', "Bearer ' OR '1'='1"],
    ["another workspace's revoked key", `Bearer ${other.revoked}`],
    ["another workspace's expired key", `Bearer ${other.expired}`],
  ];
}

/** Authorization values: the fixed hostile ones, or generated header text with or without the scheme. */
export const hostileAuthorization = (fixed: [string, string][]): fc.Arbitrary<[string, string]> =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constantFrom(...fixed) },
    { weight: 2, arbitrary: headerText(300).map((t): [string, string] => ['generated', `Bearer ${t}`]) },
    { weight: 1, arbitrary: headerText(120).map((t): [string, string] => ['generated', t]) },
  );

/** Own properties of Object.prototype and Array.prototype: the same after the fuzz means nothing was polluted. */
export const prototypeState = () => [
  Object.getOwnPropertyNames(Object.prototype).sort().join(),
  Object.getOwnPropertyNames(Array.prototype).sort().join(),
];
