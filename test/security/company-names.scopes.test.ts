// A key that may read tasks, activities and contacts but not companies learns no company's name
// through a task's related_to, an activity, the event log, an export or a filter.
import { describe, expect } from 'vitest';
import { gql } from '../helpers/app.ts';
import { it } from '../helpers/fixtures.ts';

const SECRET = 'Zyxcorp Secret Holdings';

describe('a key without companies:read', () => {
  it('never sees the name of a company a task or activity is about', async ({ app, ws }) => {
    const company = (await ws.api('POST', '/v1/companies', { name: SECRET })).body.data;
    const task = await ws.api('POST', '/v1/tasks', {
      title: 'Call them',
      related_to_type: 'company',
      related_to_id: company.id,
    });
    expect(task.status).toBe(201);
    expect(task.body.data.related_to.name).toBe(SECRET);
    expect((await ws.api('POST', '/v1/activities', { type: 'call', company_id: company.id })).status).toBe(201);
    const narrow = await ws.addKey({
      scope: 'custom',
      permissions: ['tasks:read', 'activities:read', 'contacts:read', 'deals:read'],
    });
    const answers = await Promise.all([
      narrow.api('GET', '/v1/tasks?limit=100'),
      narrow.api('GET', `/v1/tasks/${task.body.data.id}`),
      narrow.api('GET', '/v1/activities?limit=100'),
      narrow.api('GET', `/v1/activities?company_id=${company.id}`),
      narrow.api('GET', `/v1/companies/${company.id}/activities`),
      narrow.api('GET', '/v1/events?limit=100'),
    ]);
    // One export at a time per key.
    for (const path of [
      '/v1/tasks/export?format=csv',
      '/v1/tasks/export?format=jsonl',
      '/v1/activities/export?format=csv',
    ])
      answers.push(await narrow.api('GET', path));
    for (const r of answers) {
      expect(r.status, r.text.slice(0, 200)).toBeLessThan(500);
      expect(r.text).not.toContain(SECRET);
    }
    const listed = answers[0].body.data.find((t: { id: string }) => t.id === task.body.data.id);
    expect(listed.related_to).toMatchObject({ type: 'company', id: company.id, name: null });
    expect(answers.slice(6).map((r) => r.status)).toEqual([200, 200, 200]);
    const filtered = await narrow.api('POST', '/v1/activities/query', { where: { 'company.name': SECRET } });
    expect(filtered.status).toBe(403);
    const g = await gql(
      app.base,
      narrow.key,
      `{ tasks { nodes { related_to { name } } } activities { nodes { company { name } } }
         eventLog(limit: 100) { nodes { data } } }`,
    );
    expect(JSON.stringify(g)).not.toContain(SECRET);
    expect(g.data, JSON.stringify(g.errors)).toBeTruthy();
  });
});
