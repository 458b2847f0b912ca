// A GraphQL variable-coercion error behind a REST route is the API's own validation error, naming
// the parameter, whatever the variable's type: REST clients never see GraphQL's wording. The
// errors are the ones graphql-jit (which runs the routes) gives.
import { buildSchema, parse, type ExecutionResult } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { describe, expect, it } from 'vitest';
import { toAppError } from '../src/rest/errors.ts';

const schema = buildSchema(
  'scalar JSONObject type Query { a(limit: Int, contactId: ID!, s: String, f: Float, b: Boolean): Int }',
);
const compiled = compileQuery(
  schema,
  parse(
    'query ($limit: Int, $contactId: ID!, $s: String, $f: Float, $b: Boolean) {' +
      ' a(limit: $limit, contactId: $contactId, s: $s, f: $f, b: $b) }',
  ),
);
if (!isCompiledQuery(compiled)) throw new Error('the test query does not compile');

describe('variable errors of REST routes', () => {
  it.each([
    [{ limit: 1e23, contactId: 'x' }, 'limit', /^must be an integer from -2147483648 to 2147483647$/],
    [{ limit: 'abc', contactId: 'x' }, 'limit', /^must be an integer/],
    [{}, 'contact_id', /^is required$/],
    [{ contactId: null }, 'contact_id', /^is required$/],
    [{ contactId: {} }, 'contact_id', /^must be an id$/],
    [{ contactId: 'x', s: {} }, 's', /^must be text$/],
    [{ contactId: 'x', f: 'NaN' }, 'f', /^must be a number$/],
    [{ contactId: 'x', b: 'yes' }, 'b', /^must be true or false$/],
  ] as const)('%j names %s', async (variables, param, message) => {
    const result = (await compiled.query(undefined, {}, variables as Record<string, unknown>)) as ExecutionResult;
    expect(result.errors?.length).toBe(1);
    const err = toAppError(result.errors![0]);
    expect(err.code).toBe('validation_error');
    expect((err.details?.[param] as string[] | undefined)?.[0]).toMatch(message);
    expect(JSON.stringify({ message: err.message, details: err.details })).not.toMatch(/Variable "\$|cannot represent/);
  });
});
