// Caps that are checked by counting hold when requests arrive together (PostgreSQL runs them
// on several connections at once): webhook subscriptions and custom fields per workspace, at
// least one pipeline, and the tags of a merged contact.
import { describe, expect } from 'vitest';
import { insertCustomField, MAX_CUSTOM_FIELDS } from '../src/schema/custom-field/custom-field.write.ts';
import { newId } from '../src/ids.ts';
import { MAX_SUBSCRIPTIONS } from '../src/schema/webhook/webhook.inputs.ts';
import { uniqueEmail } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';

const PARALLEL = 12;

describe('caps under concurrency', () => {
  it(`${PARALLEL} webhook creates at ${MAX_SUBSCRIPTIONS - 4} subscriptions stop at ${MAX_SUBSCRIPTIONS}`, async ({
    app,
  }) => {
    const ws = await app.workspace();
    await app.db.prisma.webhookSubscription.createMany({
      data: Array.from({ length: MAX_SUBSCRIPTIONS - 4 }, () => ({
        id: newId('wh'),
        workspaceId: ws.id,
        url: 'http://127.0.0.1:9/hook',
        events: ['contact.created'],
        secretEncrypted: app.webhooks.box.seal('whsec_filler'),
        retryPolicy: { max_retries: 0, intervals_seconds: [] },
      })),
    });
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, () =>
        ws.api('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['contact.created'] }),
      ),
    );
    expect(
      answers.filter((r) => r.status === 201),
      answers.map((r) => r.text).join('\n'),
    ).toHaveLength(4);
    expect(answers.filter((r) => r.status === 422)).toHaveLength(PARALLEL - 4);
    expect(await app.db.prisma.webhookSubscription.count({ where: { workspaceId: ws.id } })).toBe(MAX_SUBSCRIPTIONS);
  });

  it(`${PARALLEL} custom field creates at ${MAX_CUSTOM_FIELDS - 4} definitions stop at ${MAX_CUSTOM_FIELDS}`, async ({
    app,
  }) => {
    const ws = await app.workspace();
    await app.db.prisma.customFieldDefinition.createMany({
      data: Array.from({ length: MAX_CUSTOM_FIELDS - 4 }, (_, i) => ({
        id: newId('cf'),
        workspaceId: ws.id,
        key: `filler_${i}`,
        type: 'text',
      })),
    });
    const settled = await Promise.allSettled(
      Array.from({ length: PARALLEL }, (_, i) =>
        insertCustomField(app.db.prisma, { workspace: ws.id, key: `parallel_${i}`, type: 'text' }),
      ),
    );
    expect(settled.filter((s) => s.status === 'fulfilled')).toHaveLength(4);
    for (const s of settled)
      if (s.status === 'rejected') expect(s.reason).toMatchObject({ code: 'unprocessable_entity' });
    expect(await app.db.prisma.customFieldDefinition.count({ where: { workspaceId: ws.id } })).toBe(MAX_CUSTOM_FIELDS);
  });

  it('parallel deletes of every pipeline keep one', async ({ app }) => {
    const ws = await app.workspace();
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < 3; i++)
        expect((await ws.api('POST', '/v1/pipelines', { name: `P${round}.${i}` })).status).toBe(201);
      const all = (await ws.api('GET', '/v1/pipelines?limit=100')).body.data as { id: string }[];
      const answers = await Promise.all(all.map((p) => ws.api('DELETE', `/v1/pipelines/${p.id}`)));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(all.length - 1);
      expect(answers.filter((r) => r.status !== 200).every((r) => r.status === 422 || r.status === 409)).toBe(true);
      expect(await app.db.prisma.pipeline.count({ where: { workspaceId: ws.id } })).toBe(1);
    }
  });

  it('a merge whose tag union would pass 50 is refused with 422 and changes nothing', async ({ app }) => {
    const ws = await app.workspace();
    const tags = (p: string) => Array.from({ length: 30 }, (_, i) => `${p}${i}`);
    const a = (await ws.api('POST', '/v1/contacts', { first_name: 'A', email: uniqueEmail('a'), tags: tags('a') })).body
      .data;
    const b = (await ws.api('POST', '/v1/contacts', { first_name: 'B', email: uniqueEmail('b'), tags: tags('b') })).body
      .data;
    const r = await ws.api('POST', '/v1/contacts/merge', { primary_id: a.id, secondary_id: b.id });
    expect(r.status).toBe(422);
    expect(r.body.error.message).toMatch(/at most 50/);
    expect((await ws.api('GET', `/v1/contacts/${a.id}`)).body.data.tags).toHaveLength(30);
    expect((await ws.api('GET', `/v1/contacts/${b.id}`)).status).toBe(200);
  });
});
