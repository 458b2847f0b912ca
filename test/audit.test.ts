// The audit log's entries: one per write, in the write's transaction, with who, from which surface,
// request and address, and the changed fields before and after.
import { describe, expect } from 'vitest';
import { gql, uniqueEmail, type TestWorkspace } from './helpers/app.ts';
import { it } from './helpers/fixtures.ts';
import type { TestApp } from './helpers/app.ts';
import { createApiKey, type KeyInput } from '../src/admin/workspaces.ts';
import { withOrigin } from '../src/events/origin.ts';
import { setPassword, signIn } from './helpers/dashboard.ts';

/** The workspace's entries, apart from the creation of its first key (test/helpers/app.ts makes one). */
const entries = async (app: TestApp, ws: TestWorkspace, recordId?: string) =>
  (
    await app.db.prisma.auditEntry.findMany({
      where: { workspaceId: ws.id, ...(recordId ? { recordId } : {}) },
      orderBy: { seq: 'asc' },
    })
  ).filter((e) => e.recordId === recordId || (e.actor as { id: string }).id !== 'cli');

describe('audit entries', () => {
  it('record each REST write once, with its request, address, actor and changed fields', async ({ app }) => {
    const ws = await app.workspace();
    const created = await ws.api('POST', '/v1/contacts', { first_name: 'Audit', email: uniqueEmail('audit') });
    const contact = created.body.data;
    // A status change writes contact.updated and contact.status_changed: one entry.
    const updated = await ws.api('PUT', `/v1/contacts/${contact.id}`, { status: 'customer', job_title: 'CTO' });
    expect(updated.status).toBe(200);
    const deleted = await ws.api('DELETE', `/v1/contacts/${contact.id}`);
    expect(deleted.status).toBe(200);

    const log = await entries(app, ws, contact.id);
    expect(log.map((e) => e.action)).toEqual(['created', 'updated', 'deleted']);
    expect(log.map((e) => e.requestId)).toEqual([created, updated, deleted].map((r) => r.headers.get('x-request-id')));
    for (const e of log) {
      expect(e).toMatchObject({ via: 'rest', resource: 'contact', recordId: contact.id });
      expect(e.ip).toMatch(/127\.0\.0\.1$/);
      expect(e.actor).toMatchObject({ type: 'api_key', id: expect.stringMatching(/^key_/) });
      expect(e.eventId).toMatch(/^evt_/);
    }
    const [c, u, d] = log.map((e) => e.changes as Record<string, { before: unknown; after: unknown }>);
    expect(c.first_name).toEqual({ before: null, after: 'Audit' });
    expect(c.id).toBeUndefined();
    expect(u).toEqual({
      status: { before: 'lead', after: 'customer' },
      job_title: { before: null, after: 'CTO' },
    });
    expect(d.email).toEqual({ before: contact.email, after: null });
  });

  it('mark GraphQL writes as graphql, and a stage move as one entry', async ({ app }) => {
    const ws = await app.workspace();
    const r = await gql(
      app.base,
      ws.key,
      'mutation ($input: ContactCreateInput!) { createContact(input: $input) { id } }',
      { input: { first_name: 'Graph', email: uniqueEmail('graph') } },
    );
    expect(r.errors).toBeUndefined();
    const [byGraphql] = await entries(app, ws, r.data.createContact.id);
    expect(byGraphql).toMatchObject({ via: 'graphql', action: 'created' });

    const pipeline = (await ws.api('GET', '/v1/pipelines')).body.data[0];
    const deal = (await ws.api('POST', '/v1/deals', { title: 'Move me', pipeline_id: pipeline.id })).body.data;
    const next = pipeline.stages[1];
    expect((await ws.api('PUT', `/v1/deals/${deal.id}/stage`, { stage_id: next.id })).status).toBe(200);
    // An update that moves the stage too: the update's entry names the stage, no second entry.
    const third = pipeline.stages[2];
    expect((await ws.api('PUT', `/v1/deals/${deal.id}`, { stage_id: third.id, title: 'Moved' })).status).toBe(200);
    const log = await entries(app, ws, deal.id);
    // A stage move is an update of the deal (deal.updated with deal.stage_changed): one entry each.
    expect(log.map((e) => e.action)).toEqual(['created', 'updated', 'updated']);
    expect((log[1].changes as Record<string, unknown>).stage_id).toEqual({
      before: pipeline.stages[0].id,
      after: next.id,
    });
    expect((log[2].changes as Record<string, unknown>).stage_id).toEqual({ before: next.id, after: third.id });
  });

  it('record a batch one entry per applied operation, and nothing of a batch rolled back', async ({ app }) => {
    const ws = await app.workspace();
    const ops = Array.from({ length: 3 }, (_, i) => ({
      op: 'create',
      data: { first_name: `B${i}`, email: uniqueEmail(`b${i}`), external_id: `audit-${i}` },
    }));
    expect((await ws.api('POST', '/v1/contacts/batch', { operations: ops })).status).toBe(201);
    const upserts = ops.map((o) => ({
      op: 'upsert',
      upsert_by: 'external_id',
      data: { ...o.data, status: 'customer' },
    }));
    const r = await ws.api('POST', '/v1/contacts/batch', { operations: upserts });
    expect(r.status).toBe(200);
    const log = await entries(app, ws);
    expect(log.map((e) => e.action)).toEqual(['created', 'created', 'created', 'updated', 'updated', 'updated']);
    expect(log.slice(3).every((e) => e.requestId === r.headers.get('x-request-id'))).toBe(true);
    expect(log[3].changes).toEqual({ status: { before: 'lead', after: 'customer' } });

    const failing = [
      { op: 'create', data: { first_name: 'Never', email: uniqueEmail('never') } },
      { op: 'update', id: 'con_missing', data: { first_name: 'x' } },
    ];
    const atomic = await ws.api('POST', '/v1/contacts/batch', { operations: failing, atomic: true });
    expect(atomic.body.data.applied).toBe(0);
    expect(await entries(app, ws)).toHaveLength(6);
  });

  it('GET /v1/audit-log pages through the writes for full-access keys, with filters', async ({ app }) => {
    const ws = await app.workspace();
    const a = (await ws.api('POST', '/v1/contacts', { first_name: 'One', email: uniqueEmail('one') })).body.data;
    const b = (await ws.api('POST', '/v1/contacts', { first_name: 'Two', email: uniqueEmail('two') })).body.data;
    await ws.api('PUT', `/v1/contacts/${a.id}`, { first_name: 'Uno' });
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const r = await ws.api('GET', `/v1/audit-log?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(r.status, r.text).toBe(200);
      seen.push(...r.body.data);
      cursor = r.body.meta.next_cursor;
    } while (cursor);
    // The workspace and its first key were made by the CLI's code (test/helpers/app.ts): their entries come first.
    const setUp = seen.splice(0, 2);
    expect(setUp.map((e) => [e.resource, e.action, e.via, e.actor.id])).toEqual([
      ['workspace', 'created', 'system', 'cli'],
      ['api_key', 'created', 'system', 'cli'],
    ]);
    expect(seen.map((e) => [e.record_id, e.action])).toEqual([
      [a.id, 'created'],
      [b.id, 'created'],
      [a.id, 'updated'],
    ]);
    expect(seen[2]).toMatchObject({
      via: 'rest',
      resource: 'contact',
      changes: { first_name: { before: 'One', after: 'Uno' } },
      actor: { type: 'api_key' },
      event_id: expect.stringMatching(/^evt_/),
    });
    const byRecord = await ws.api('GET', `/v1/audit-log?record_id=${a.id}`);
    expect(byRecord.body.data.map((e: any) => e.action)).toEqual(['created', 'updated']);
    const byActor = await ws.api('GET', `/v1/audit-log?actor_id=${seen[0].actor.id}&resource=contact`);
    expect(byActor.body.data).toHaveLength(3);
    expect((await ws.api('GET', '/v1/audit-log?actor_id=key_nobody')).body.data).toEqual([]);
    expect((await ws.api('GET', '/v1/audit-log?since=2030-01-01&until=2029-01-01')).status).toBe(400);

    const g = await gql(app.base, ws.key, `{ auditLog(limit: 10) { nodes { action record_id changes } } }`);
    expect(g.errors).toBeUndefined();
    expect(g.data.auditLog.nodes).toHaveLength(5);

    // It names every key and what each did: full access only.
    const grants: Partial<KeyInput>[] = [{ scope: 'read_only' }, { scope: 'custom', permissions: ['contacts:read'] }];
    for (const grant of grants) {
      const k = await ws.addKey(grant);
      const r = await k.api('GET', '/v1/audit-log');
      expect(r.status).toBe(403);
      expect(r.body.error.code).toBe('forbidden');
    }
    // Another workspace sees none of them.
    const other = await app.workspace();
    const theirs = (await other.api('GET', '/v1/audit-log')).body.data;
    expect(theirs.map((e: any) => e.resource)).toEqual(['workspace', 'api_key']);
  });

  it('record writes without events: keys, webhooks, settings and custom fields, secrets never', async ({ app }) => {
    const ws = await app.workspace();
    const email = uniqueEmail('auditor');
    const user = await ws.addUser('Auditor', email);
    await setPassword(app.db, email);
    const signed = await signIn(app.base, email);

    // Through the dashboard (a session): a key made and revoked, a custom field defined and removed.
    const made = await signed.gql(
      'mutation ($input: ApiKeyCreateInput!) { createApiKey(input: $input) { key api_key { id } } }',
      { input: { name: 'Audited', scope: 'read_only' } },
    );
    expect(made.errors, JSON.stringify(made.errors)).toBeUndefined();
    const keyId = made.data.createApiKey.api_key.id;
    const secretKey: string = made.data.createApiKey.key;
    expect((await signed.gql('mutation ($id: ID!) { revokeApiKey(id: $id) { id } }', { id: keyId })).errors).toBe(
      undefined,
    );
    const field = await signed.gql(
      'mutation { createCustomField(input: { key: "tier", type: select, options: ["a", "b"] }) { id } }',
    );
    expect(field.errors).toBeUndefined();
    const fieldId = field.data.createCustomField.id;
    expect(
      (await signed.gql('mutation ($id: ID!) { deleteCustomField(id: $id) { id } }', { id: fieldId })).errors,
    ).toBeUndefined();

    // Through REST: a webhook created, its secret rotated, deleted; a setting changed.
    const hook = await ws.api('POST', '/v1/webhooks', {
      url: 'https://hooks.example.com/in',
      events: ['contact.created'],
      secret: 'whsec_audit_secret_value_1234567890',
    });
    expect(hook.status, hook.text).toBe(201);
    const hookId = hook.body.data.id;
    expect((await ws.api('PUT', `/v1/webhooks/${hookId}`, { rotate_secret: true, name: 'Renamed' })).status).toBe(200);
    expect((await ws.api('DELETE', `/v1/webhooks/${hookId}`)).status).toBe(200);
    expect((await ws.api('PUT', '/v1/settings', { link_contacts_by_domain: true })).status).toBe(200);

    const log = await entries(app, ws);
    const summary = log.map((e) => [e.resource, e.action, e.via]);
    expect(summary).toEqual([
      ['api_key', 'created', 'dashboard'],
      ['api_key', 'revoked', 'dashboard'],
      ['custom_field', 'created', 'dashboard'],
      ['custom_field', 'deleted', 'dashboard'],
      ['webhook', 'created', 'rest'],
      ['webhook', 'updated', 'rest'],
      ['webhook', 'deleted', 'rest'],
      ['settings', 'updated', 'rest'],
    ]);
    expect(log[0].actor).toMatchObject({ type: 'user', id: user.id });
    expect(log[1].changes).toEqual({ revoked_at: { before: null, after: expect.any(String) } });
    expect(log[5].changes).toEqual({
      name: { before: null, after: 'Renamed' },
      secret: { before: null, after: null },
    });
    expect(log[7].changes).toEqual({ link_contacts_by_domain: { before: false, after: true } });
    // No secret in any form: the key, the webhook secret, their hashes and ciphertexts.
    const stored = JSON.stringify(log, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    const row = await app.db.prisma.apiKey.findUniqueOrThrow({ where: { id: keyId } });
    for (const secret of [secretKey, row.hash, 'whsec_audit_secret_value_1234567890'])
      expect(stored).not.toContain(secret);
    expect(stored).not.toMatch(/"secret":\{"before":"/);
  });

  it('record the admin CLI as the actor, via cli', async ({ app }) => {
    const ws = await app.workspace();
    const key = await withOrigin({ via: 'cli', requestId: null, ip: null }, () =>
      createApiKey(app.db.prisma, { workspace: ws.id, name: 'From the CLI', scope: 'full' }),
    );
    const [entry] = await entries(app, ws, key.id);
    expect(entry).toMatchObject({
      via: 'cli',
      requestId: null,
      ip: null,
      action: 'created',
      actor: { type: 'system', id: 'cli', name: 'Admin CLI' },
    });
  });
});
