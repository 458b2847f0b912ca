// /graphql runs a document interpreted the first time (GRAPHQL_COMPILE_AFTER=1, the default) and
// compiled by graphql-jit from then on. Each case sends the same request three times and checks the
// three answers are the same, and that the compiled runs send the same SQL statements: relations
// loaded with their parent stay loaded with it (the paths Pothos's Prisma plugin keys them by are
// one object per response path). Documents graphql-jit would misread stay interpreted.
import { describe, expect } from 'vitest';
import { client, gql } from './helpers/app.ts';
import { withAppOptions } from './helpers/fixtures.ts';

const statements: string[] = [];
const test = withAppOptions({ onQuery: (e) => statements.push(e.query), graphql: { graphqlCompileAfter: 1 } });
/** An app whose compile budget is one millisecond a minute. */
// A budget of a nanosecond: any compile, however fast the machine, spends it all, and the
// minute's refill (a nanosecond per minute) cannot pay the debt back within the test.
const tight = withAppOptions({ graphql: { graphqlCompileAfter: 0, graphqlCompileBudgetMs: 1e-6 } });

/** The value of crm_graphql_compilations_total for an outcome. */
async function compilations(base: string, outcome: 'compiled' | 'interpreted' | 'postponed'): Promise<number> {
  const r = await client(base)('GET', '/metrics');
  const line = r.text.split('\n').find((l) => l.startsWith(`crm_graphql_compilations_total{outcome="${outcome}"}`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

/** Three runs of one request: each answer, and the SQL statements each sent (the key lookup left out). */
async function threeRuns(run: () => Promise<unknown>) {
  const answers: unknown[] = [];
  const sent: string[][] = [];
  for (let i = 0; i < 3; i++) {
    const start = statements.length;
    answers.push(await run());
    sent.push(statements.slice(start).filter((sql) => !/"(api_keys|workspaces)"/.test(sql)));
  }
  return { answers, sent };
}

const NESTED = `query Nested {
  contacts(limit: 20) {
    nodes {
      id first_name
      deals(limit: 5) { id title stage { id name } owner { id name } contacts { role contact { id } } }
    }
  }
}`;

describe('compiled execution of /graphql documents', () => {
  test('the second run of a document is compiled; nested relations load with their parents', async ({ app, ws }) => {
    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const owner = await ws.addUser('Compiled Owner');
    for (let i = 0; i < 4; i++) {
      const contact = (await ws.api('POST', '/v1/contacts', { first_name: `Nested ${i}`, email: `nested${i}@x.io` }))
        .body.data;
      for (let j = 0; j < 2; j++) {
        const r = await ws.api('POST', '/v1/deals', {
          title: `Deal ${i}.${j}`,
          pipeline_id: pipeline.id,
          stage_id: pipeline.stages[j].id,
          value: 10,
          owner_id: owner.id,
          contact_id: contact.id,
        });
        expect(r.status, r.text).toBe(201);
      }
    }
    const before = await compilations(app.base, 'compiled');
    const { answers, sent } = await threeRuns(() => gql(app.base, ws.key, NESTED));
    expect(await compilations(app.base, 'compiled')).toBe(before + 1);
    const first = answers[0] as { data: { contacts: { nodes: Array<{ deals: unknown[] }> } }; errors?: unknown };
    expect(first.errors).toBeUndefined();
    expect(first.data.contacts.nodes).toHaveLength(4);
    expect(first.data.contacts.nodes.every((c) => c.deals.length === 2)).toBe(true);
    expect(answers[1]).toEqual(answers[0]);
    expect(answers[2]).toEqual(answers[0]);
    // Contacts, their deals, and one statement per relation of the deals: the same for every run.
    expect(sent[1], sent[1].join('\n')).toHaveLength(sent[0].length);
    expect(sent[2], sent[2].join('\n')).toHaveLength(sent[0].length);
    expect(sent[0].length).toBeLessThanOrEqual(6);
  });

  test('errors and variables read the same compiled as interpreted', async ({ app, ws }) => {
    const query = 'query One($id: ID!) { contact(id: $id) { id first_name } }';
    for (const variables of [{ id: 'con_missing' }, { id: 5 }, { id: null }, { id: { a: 1 } }, {}]) {
      const { answers } = await threeRuns(() => gql(app.base, ws.key, query, variables));
      expect(answers[1], JSON.stringify(variables)).toEqual(answers[0]);
      expect(answers[2], JSON.stringify(variables)).toEqual(answers[0]);
      expect((answers[0] as { errors?: unknown[] }).errors?.length, JSON.stringify(variables)).toBeGreaterThan(0);
    }
  });

  test('a custom-field literal holding a variable stays interpreted and keeps its value', async ({ app, ws }) => {
    await ws.addCustomField('tier', 'text');
    const before = await compilations(app.base, 'interpreted');
    const mutation = `mutation Tiered($email: String!, $tier: String) {
      createContact(input: { first_name: "Tiered", email: $email, custom_fields: { tier: $tier } }) { custom_fields }
    }`;
    for (let i = 0; i < 3; i++) {
      const r = await gql(app.base, ws.key, mutation, { email: `tiered${i}@x.io`, tier: `gold ${i}` });
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      expect(r.data.createContact.custom_fields).toEqual({ tier: `gold ${i}` });
    }
    expect(await compilations(app.base, 'interpreted')).toBe(before + 1);
  });

  test('a nullable variable with a default in a non-null place runs interpreted, null refused each time', async ({
    app,
    ws,
  }) => {
    const query = 'query Maybe($s: Boolean = true) { contacts(limit: 2) @include(if: $s) { nodes { id } } }';
    const before = await compilations(app.base, 'interpreted');
    for (let i = 0; i < 3; i++) expect((await gql(app.base, ws.key, query)).errors).toBeUndefined();
    expect(await compilations(app.base, 'interpreted')).toBe(before + 1);
    const { answers } = await threeRuns(() => gql(app.base, ws.key, query, { s: null }));
    for (const answer of answers) {
      expect(answer).toMatchObject({ errors: [{ message: expect.stringMatching(/"if".*must not be null/) }] });
      expect((answer as { data?: unknown }).data ?? null).toBeNull();
    }
  });

  test('a document sent once is never compiled', async ({ app, ws }) => {
    const before = await compilations(app.base, 'compiled');
    for (let i = 0; i < 5; i++) {
      const r = await gql(app.base, ws.key, `{ contacts(limit: ${i + 1}) { nodes { id } } }`);
      expect(r.errors).toBeUndefined();
    }
    expect(await compilations(app.base, 'compiled')).toBe(before);
  });

  test('filters (an input type that holds itself) run interpreted and answer', async ({ app, ws }) => {
    const before = await compilations(app.base, 'interpreted');
    const query = 'query Filtered($where: ContactWhere) { contacts(where: $where, limit: 5) { nodes { id } } }';
    const where = {
      and: [{ or: [{ status: { eq: 'lead' } }, { status: { eq: 'customer' } }] }, { first_name: { starts_with: 'N' } }],
    };
    for (let i = 0; i < 3; i++) {
      const r = await gql(app.base, ws.key, query, { where });
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
    }
    expect(await compilations(app.base, 'interpreted')).toBe(before + 1);
  });
});

describe('the compile budget', () => {
  tight("past the minute's budget, new documents run interpreted and answer the same", async ({ app, ws }) => {
    // The first compile spends the whole budget; every document after it waits for the refill.
    const answers: unknown[] = [];
    for (let i = 1; i <= 6; i++) {
      const r = await gql(app.base, ws.key, `{ contacts(limit: ${i}) { nodes { id } } total: contacts { total } }`);
      expect(r.errors, JSON.stringify(r.errors)).toBeUndefined();
      answers.push(r.data.total);
    }
    expect(await compilations(app.base, 'compiled')).toBe(1);
    expect(await compilations(app.base, 'postponed')).toBe(5);
    expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
  });
});
