import { expect } from 'vitest';
import { uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

const contact = async (ws: TestWorkspace) =>
  (await ws.api('POST', '/v1/contacts', { first_name: 'Tim', last_name: 'Line', email: uniqueEmail('tl') })).body.data;

it('activity.logged and task.completed show on the contact timeline, newest first', async ({ ws }) => {
  const c = await contact(ws);
  const elsewhere = await contact(ws);

  const activity = (await ws.api('POST', '/v1/activities', { type: 'call', subject: 'Intro', contact_id: c.id })).body
    .data;
  const task = (
    await ws.api('POST', '/v1/tasks', { title: 'Send quote', related_to_type: 'contact', related_to_id: c.id })
  ).body.data;
  expect((await ws.api('PUT', `/v1/tasks/${task.id}/complete`, { completion_note: 'sent' })).status).toBe(200);
  await ws.api('POST', '/v1/activities', { type: 'note', subject: 'not mine', contact_id: elsewhere.id });

  const r = await ws.api('GET', `/v1/contacts/${c.id}/timeline?limit=100`);
  expect(r.status).toBe(200);
  const entries = r.body.data as { type: string; summary: string; data: Record<string, any>; actor: unknown }[];
  expect(entries.map((e) => e.type)).toEqual(['task.completed', 'task.created', 'activity.logged', 'contact.created']);
  const [completed, , logged] = entries;
  expect(completed.summary).toBe('Task "Send quote" completed');
  expect(completed.data.task).toMatchObject({
    id: task.id,
    status: 'completed',
    completion_note: 'sent',
    related_to: { type: 'contact', id: c.id, name: 'Tim Line' },
  });
  expect(logged.summary).toBe('call logged: Intro');
  expect(logged.data.activity).toEqual(activity);
  expect(completed.actor).toMatchObject({ type: 'api_key' });
});
