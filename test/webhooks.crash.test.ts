// At-least-once across crashes and several workers, with the real entry points as processes.
import { afterAll, describe, expect, it } from 'vitest';
import { client } from './helpers/app.ts';
import { freePort, freshStore, runEntry, startServiceUntilUp, type Child } from './helpers/processes.ts';
import { receiver, until, type Receiver } from './helpers/receiver.ts';

const children: Child[] = [];
const receivers: Receiver[] = [];
const stores: { drop: () => Promise<void> }[] = [];
afterAll(async () => {
  for (const c of children) c.proc.kill('SIGKILL');
  await Promise.all(receivers.map((r) => r.close()));
  for (const s of stores) await s.drop();
});

const common = {
  WEBHOOK_ALLOW_HTTP: 'true',
  WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  ENCRYPTION_KEY: 'crash-test-key',
  WEBHOOK_WORKER_POLL_MS: '50',
  NODE_ENV: 'production',
};

/** Makes 200 events (contact.created) through the API; returns their contact ids. */
async function make200(api: ReturnType<typeof client>, tag: string): Promise<string[]> {
  const ids: string[] = [];
  for (let batch = 0; batch < 2; batch++) {
    const rows = Array.from({ length: 100 }, (_, i) => ({
      first_name: 'C',
      email: `${tag}.${batch}.${i}@example.com`,
    }));
    const r = await api('POST', '/v1/contacts/bulk', { contacts: rows });
    expect(r.status).toBe(201);
    ids.push(...r.body.data.contacts.map((c: { id: string }) => c.id));
  }
  return ids;
}

describe('delivery survives crashes', () => {
  it('SIGKILL of the service mid-batch: after restart every event is delivered, each with its id', async () => {
    const store = await freshStore();
    stores.push(store);
    const rc = await receiver(() => 200);
    receivers.push(rc);
    const port = await freePort();
    let service = await startServiceUntilUp({ ...common, ...store.env }, port, children);
    const key = /crm_live_[0-9A-Za-z]{32}/.exec(service.output())![0];
    const api = client(`http://127.0.0.1:${port}`, key);
    const sub = await api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'], timeout_seconds: 5 });
    expect(sub.status).toBe(201);

    const produced = await make200(api, 'kill');
    await until(() => rc.hits.length >= 10, 30_000, 5);
    service.proc.kill('SIGKILL');
    await service.exited;
    const beforeRestart = rc.hits.length;
    expect(beforeRestart).toBeLessThan(200);

    service = await startServiceUntilUp({ ...common, ...store.env }, port, children);

    await until(() => new Set(rc.hits.map((h) => h.json.data.contact.id)).size >= 200, 60_000, 200);
    const delivered = new Set(rc.hits.map((h) => h.json.data.contact.id));
    expect([...delivered].sort()).toEqual([...produced].sort());
    // Duplicates are allowed (at-least-once) but keep their event id.
    const idsByContact = new Map<string, Set<string>>();
    for (const h of rc.hits)
      idsByContact.set(h.json.data.contact.id, (idsByContact.get(h.json.data.contact.id) ?? new Set()).add(h.json.id));
    expect([...idsByContact.values()].every((s) => s.size === 1)).toBe(true);
    service.proc.kill('SIGTERM');
    await service.exited;
  }, 240_000);

  it.runIf(process.env.DATABASE_URL)(
    'two worker processes on one PostgreSQL never send one attempt twice',
    async () => {
      const store = await freshStore();
      stores.push(store);
      const rc = await receiver(() => 200);
      receivers.push(rc);
      const port = await freePort();
      const api0 = await startServiceUntilUp({ ...common, ...store.env, WEBHOOK_WORKER: 'false' }, port, children);
      const key = /crm_live_[0-9A-Za-z]{32}/.exec(api0.output())![0];
      const api = client(`http://127.0.0.1:${port}`, key);
      await api('POST', '/v1/webhooks', { url: rc.url, events: ['contact.created'] });
      await api('POST', '/v1/webhooks', { url: `${rc.url}?second`, events: ['contact.created'] });
      const workers = [0, 1].map(() => runEntry('src/worker.ts', { ...common, ...store.env }));
      children.push(...workers);
      const produced = await make200(api, 'two');
      await until(() => rc.hits.length >= 400, 90_000, 200);
      await new Promise((r) => setTimeout(r, 1000));
      expect(rc.hits).toHaveLength(400);
      // Each event reaches each of the two subscriptions exactly once.
      const attempts = new Set(rc.hits.map((h) => `${h.path}|${h.json.id}`));
      expect(attempts.size).toBe(400);
      expect(new Set(rc.hits.map((h) => h.json.data.contact.id))).toEqual(new Set(produced));
      for (const w of workers) w.proc.kill('SIGTERM');
      api0.proc.kill('SIGTERM');
    },
    240_000,
  );
});
