// Hostile bytes in the company records' inputs, on every path: never a 500.
import { describe, expect } from 'vitest';
import { gql } from '../helpers/app.ts';
import { it } from '../helpers/fixtures.ts';

const ODD = ['\u0000', 'a\u0000b', '\ud800', '\udfff x', 'x'.repeat(300_000)];
const ODD_QS = ['%00', 'a%00b', '%ED%A0%80', '%FF', 'x'.repeat(6000)];

describe('hostile company ids and note content', () => {
  it('REST paths and query strings', async ({ ws }) => {
    const company = (await ws.api('POST', '/v1/companies', { name: 'Hostile' })).body.data;
    for (const q of ODD_QS) {
      for (const [m, p, b] of [
        ['GET', `/v1/activities?company_id=${q}`],
        ['GET', `/v1/companies/${q}/notes`],
        ['POST', `/v1/companies/${q}/notes`, { content: 'x' }],
        ['GET', `/v1/companies/${q}/activities`],
        ['GET', `/v1/tasks?related_to_type=company&related_to_id=${q}`],
      ] as const) {
        const r = await ws.api(m, p, b);
        expect(r.status, `${m} ${p.slice(0, 80)}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
      }
    }
    for (const v of ODD) {
      for (const [p, b] of [
        [`/v1/companies/${company.id}/notes`, { content: v }],
        ['/v1/activities', { type: 'call', company_id: v }],
        ['/v1/tasks', { title: 't', related_to_type: 'company', related_to_id: v }],
        ['/v1/companies/merge', { primary_id: company.id, secondary_id: v }],
      ] as const) {
        const r = await ws.api('POST', p, b);
        expect(r.status, `${p} ${JSON.stringify(v).slice(0, 20)}: ${r.text.slice(0, 200)}`).toBeLessThan(500);
      }
    }
  });

  it('GraphQL arguments and variables', async ({ app, ws }) => {
    const company = (await ws.api('POST', '/v1/companies', { name: 'Hostile GQL' })).body.data;
    for (const v of ODD) {
      for (const [q, vars] of [
        ['query ($id: ID!) { companyNotes(companyId: $id) { total } }', { id: v }],
        ['query ($id: ID!) { companyActivities(companyId: $id) { total } }', { id: v }],
        [
          'mutation ($id: ID!, $c: String!) { createCompanyNote(companyId: $id, input: { content: $c }) { id } }',
          { id: company.id, c: v },
        ],
        ['mutation ($id: ID!) { createCompanyNote(companyId: $id, input: { content: "x" }) { id } }', { id: v }],
        ['query ($id: ID!) { company(id: $id) { notes { total } } }', { id: v }],
      ] as const) {
        const r = await gql(app.base, ws.key, q, vars);
        const codes = (r.errors ?? []).map((e: { extensions?: { code?: string } }) => e.extensions?.code);
        expect(codes, `${q.slice(0, 60)} ${JSON.stringify(v).slice(0, 20)}`).not.toContain('internal_error');
      }
    }
  });
});
