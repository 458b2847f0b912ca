// Per-record event sequences: 1, 2, 3… per record, without gaps or repeats, in commit order even
// when writers of one record race; carried in live events; numbered for events logged before.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { describe, expect } from 'vitest';
import { migrationsDir } from '../src/db/migrate.ts';
import { contactUpdated } from '../src/events/catalogue/contact.events.ts';
import { recordEvent } from '../src/events/outbox.ts';
import { uniqueEmail, type TestApp } from './helpers/app.ts';
import { fileBus, withAppOptions } from './helpers/fixtures.ts';
import { contactProbe, subscribe } from './helpers/subscriptions.ts';
import { until } from './helpers/receiver.ts';

const N = 12;

const test = withAppOptions(() => ({ bus: fileBus() }));
const it = test;
// The feed publishes the event log on the bus for every test of the file.
test.beforeAll(({ feed }) => void feed);

const eventsOf = (app: TestApp, entityId: string) =>
  app.db.prisma.event.findMany({ where: { entityId }, orderBy: { sequence: 'asc' } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('event sequence', () => {
  it(`${N} concurrent updates of one task: sequences 1..${N + 1}, each seeing the one numbered before it`, async ({
    app,
    ws,
  }) => {
    const task = (await ws.api('POST', '/v1/tasks', { title: 't0' })).body.data;
    const answers = await Promise.all(
      range(1, N).map((i) => ws.api('PUT', `/v1/tasks/${task.id}`, { title: `t${i}` })),
    );
    expect(answers.map((r) => r.status)).toEqual(range(1, N).map(() => 200));
    const events = await eventsOf(app, task.id);
    expect(events.map((e) => e.sequence)).toEqual(range(1, N + 1));
    expect(events.map((e) => e.type)).toEqual(['task.created', ...range(1, N).map(() => 'task.updated')]);
    // Commit order: each update read the task as the previously numbered one left it.
    const titles = events.map((e) => (e.data as { task: { title: string } }).task.title);
    for (let k = 1; k < events.length; k++)
      expect((events[k].data as { previous: { title: string } }).previous.title).toBe(titles[k - 1]);
    expect(new Set(titles).size).toBe(N + 1);
    // The highest number is the state that stayed.
    expect((await ws.api('GET', `/v1/tasks/${task.id}`)).body.data.title).toBe(titles.at(-1));
  });

  it(`${N} concurrent updates of one contact: no gap, no repeat, the last number is the final state`, async ({
    app,
    ws,
  }) => {
    const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Seq', email: uniqueEmail('seq') })).body.data;
    const answers = await Promise.all(
      range(1, N).map((i) => ws.api('PUT', `/v1/contacts/${contact.id}`, { job_title: `title ${i}` })),
    );
    expect(answers.map((r) => r.status)).toEqual(range(1, N).map(() => 200));
    const events = await eventsOf(app, contact.id);
    expect(events.map((e) => e.sequence)).toEqual(range(1, events.length));
    expect(events.length).toBeGreaterThanOrEqual(2);
    const last = events.at(-1)!.data as { contact: { job_title: string } };
    expect((await ws.api('GET', `/v1/contacts/${contact.id}`)).body.data.job_title).toBe(last.contact.job_title);
  });

  it('a writer of a record waits for the open transaction that took the previous number, then takes the next', async ({
    app,
    ws,
  }) => {
    const entityId = `con_wait_${randomUUID()}`;
    const event = () => ({ ...contactUpdated.sample(), entityId, workspaceId: ws.id, actor: null });
    const order: string[] = [];
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let recorded!: () => void;
    const firstRecorded = new Promise<void>((r) => (recorded = r));
    const first = app.db.prisma.$transaction(async (tx) => {
      await recordEvent(tx, event());
      recorded();
      await released;
      order.push('first commits');
    });
    await firstRecorded;
    const second = app.db.prisma.$transaction(async (tx) => {
      await recordEvent(tx, event());
      order.push('second recorded');
    });
    if (process.env.DATABASE_URL) {
      // PostgreSQL: the second writer is seen waiting for the counter row's lock before the first commits.
      const waiting = await until(async () => {
        const [{ n }] = await app.db.prisma.$queryRaw<{ n: bigint }[]>`
          SELECT count(*) AS n FROM pg_stat_activity
          WHERE wait_event_type = 'Lock' AND query LIKE '%record_sequences%'`;
        return n > 0n;
      });
      expect(waiting).toBe(true);
    }
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first commits', 'second recorded']);
    expect((await eventsOf(app, entityId)).map((e) => e.sequence)).toEqual([1, 2]);
  });

  it('live events carry the sequence', async ({ app, ws }) => {
    const sub = subscribe(
      app.base,
      { authorization: `Bearer ${ws.key}` },
      'subscription { contactChanged { id event sequence } }',
    );
    try {
      await sub.ready(app.bus, contactProbe(ws.id));
      const contact = (await ws.api('POST', '/v1/contacts', { first_name: 'Live', email: uniqueEmail('live-seq') }))
        .body.data;
      await ws.api('PUT', `/v1/contacts/${contact.id}`, { company: 'Changed' });
      const [created, updated] = await eventsOf(app, contact.id);
      await sub.waitFor((d) => d.contactChanged.id === updated.id);
      const got = sub.received
        .filter((d) => [created.id, updated.id].includes(d.contactChanged.id))
        .map((d) => d.contactChanged);
      expect(got).toEqual([
        { id: created.id, event: 'contact.created', sequence: 1 },
        { id: updated.id, event: 'contact.updated', sequence: 2 },
      ]);
    } finally {
      await sub.close();
    }
  });
});

describe('event sequence migration', () => {
  it('numbers older events per record in log order and names the pipeline and owner of past stage moves', async () => {
    const folders = fs
      .readdirSync(migrationsDir)
      .filter((d) => fs.statSync(path.join(migrationsDir, d)).isDirectory())
      .sort();
    const at = folders.findIndex((f) => f.endsWith('_event_sequences'));
    expect(at).toBeGreaterThan(0);
    const pg = new PGlite();
    try {
      for (const f of folders.slice(0, at))
        await pg.exec(fs.readFileSync(path.join(migrationsDir, f, 'migration.sql'), 'utf8'));
      await pg.exec(`
        INSERT INTO workspaces (id, name) VALUES ('ws_m', 'M');
        INSERT INTO users (id, workspace_id, name, email, updated_at)
          VALUES ('usr_m', 'ws_m', 'Grace', 'grace@example.com', now());
        INSERT INTO pipelines (id, workspace_id, name, updated_at) VALUES ('pipe_m', 'ws_m', 'Sales', now());
        INSERT INTO events (id, workspace_id, type, entity_type, entity_id, data) VALUES
          ('evt_1', 'ws_m', 'contact.created', 'contact', 'con_a', '{}'),
          ('evt_2', 'ws_m', 'deal.created', 'deal', 'deal_a', '{}'),
          ('evt_3', 'ws_m', 'contact.updated', 'contact', 'con_a', '{}'),
          ('evt_4', 'ws_m', 'deal.stage_changed', 'deal', 'deal_a',
            '{"deal": {"id": "deal_a", "pipeline_id": "pipe_m", "owner_id": "usr_m"}}'),
          ('evt_5', 'ws_m', 'deal.stage_changed', 'deal', 'deal_a',
            '{"deal": {"id": "deal_a", "pipeline_id": "pipe_gone", "owner_id": null}}'),
          ('evt_6', 'ws_m', 'contact.updated', 'contact', 'con_a', '{}');`);
      await pg.exec(fs.readFileSync(path.join(migrationsDir, folders[at], 'migration.sql'), 'utf8'));
      const rows = (
        await pg.query<{ id: string; sequence: number; data: any }>(
          'SELECT id, sequence, data FROM events ORDER BY seq',
        )
      ).rows;
      expect(rows.map((r) => [r.id, r.sequence])).toEqual([
        ['evt_1', 1],
        ['evt_2', 1],
        ['evt_3', 2],
        ['evt_4', 2],
        ['evt_5', 3],
        ['evt_6', 3],
      ]);
      expect(rows[3].data.deal).toMatchObject({ pipeline_name: 'Sales', owner_name: 'Grace' });
      expect(rows[4].data.deal).toMatchObject({ pipeline_name: 'pipe_gone', owner_name: null });
      const counters = (
        await pg.query<{ entity_id: string; last: number }>(
          'SELECT entity_id, last FROM record_sequences ORDER BY entity_id',
        )
      ).rows;
      expect(counters).toEqual([
        { entity_id: 'con_a', last: 3 },
        { entity_id: 'deal_a', last: 3 },
      ]);
    } finally {
      await pg.close();
    }
  }, 120_000);
});
