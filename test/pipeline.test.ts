// REST and /graphql run their operations through one pipeline (yoga's): a plugin added to yoga
// sees REST operations too, and what it refuses REST answers in its own envelope.
import { getOperationAST, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Context } from '../src/schema/context.ts';
import { gql, startTestApp, uniqueEmail, type TestApp, type TestWorkspace } from './helpers/app.ts';

const seen: Array<{ operation: string | undefined; requestId: string }> = [];

/** Records every operation it sees, and refuses deletions of contacts. */
const plugin: Plugin<Context> = {
  onExecute: ({ args, setResultAndStopExecution }) => {
    const operation = getOperationAST(args.document, args.operationName)?.name?.value;
    seen.push({ operation, requestId: (args.contextValue as Context).requestId });
    if (operation === 'DeleteContact') {
      const refusal = new GraphQLError('Deleting contacts is paused', { extensions: { code: 'forbidden' } });
      setResultAndStopExecution({ errors: [refusal] });
    }
  },
};

let app: TestApp;
let ws: TestWorkspace;

beforeAll(async () => {
  app = await startTestApp({ plugins: [plugin] });
  ws = await app.workspace();
});
afterAll(() => app.close());

describe('one execution pipeline', () => {
  it('a yoga plugin sees REST operations, with their request, as it sees /graphql ones', async () => {
    const created = await ws.api('POST', '/v1/contacts', { first_name: 'Piped', email: uniqueEmail('pipe') });
    expect(created.status).toBe(201);
    expect(seen).toContainEqual({ operation: 'CreateContact', requestId: created.body.meta.request_id });

    const read = await gql(app.base, ws.key, 'query PipedRead { contacts(limit: 1) { total } }');
    expect(read.errors).toBeUndefined();
    expect(seen.map((s) => s.operation)).toContain('PipedRead');
  });

  it('what a plugin refuses, REST answers in its envelope and /graphql with its code', async () => {
    const { id } = (await ws.api('POST', '/v1/contacts', { first_name: 'Kept', email: uniqueEmail('kept') })).body.data;
    const refused = await ws.api('DELETE', `/v1/contacts/${id}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      success: false,
      error: { code: 'forbidden', message: 'Deleting contacts is paused' },
    });

    const deletion = 'mutation DeleteContact($id: ID!) { deleteContact(id: $id) { id } }';
    const viaGraphql = await gql(app.base, ws.key, deletion, { id });
    expect(viaGraphql.errors?.[0]).toMatchObject({
      message: 'Deleting contacts is paused',
      extensions: { code: 'forbidden' },
    });
    expect((await ws.api('GET', `/v1/contacts/${id}`)).status).toBe(200);
  });
});
