// The event log keeps EVENT_RETENTION_DAYS of events: the job deletes older ones (in chunks),
// leaves newer ones and the delivery log entries of deleted events, and keeps everything at 0. The
// audit log and finished import jobs keep as long.
import { describe, expect } from 'vitest';
import { startEventRetention } from '../src/jobs/event-retention.ts';
import { it } from './helpers/fixtures.ts';

const DAY = 86_400_000;
const quiet = { info: () => {}, error: () => {} };

describe('event retention', () => {
  it('deletes events past retention, in chunks, and nothing newer', async ({ app }) => {
    const ws = await app.workspace();
    const now = new Date('2026-11-27T12:00:00Z');
    const tag = Date.now().toString(36);
    // 5,001 events 100 days old (more than one statement's chunk), 3 from 10 days ago.
    const insert = (count: number, daysAgo: number, label: string) =>
      app.db.prisma.$executeRaw`
        INSERT INTO events (id, workspace_id, type, entity_type, entity_id, sequence, data, created_at)
        SELECT ${`evt_${label}_${tag}_`} || n, ${ws.id}, 'contact.created', 'contact',
          ${`con_${label}_${tag}_`} || n, 1, '{}'::jsonb, ${new Date(now.getTime() - daysAgo * DAY)}
        FROM generate_series(1, ${count}) AS n`;
    await insert(5001, 100, 'old');
    await insert(3, 10, 'new');
    // The audit log keeps as long: an entry 100 days old goes, one 10 days old stays.
    const audit = (daysAgo: number, label: string) =>
      app.db.prisma.$executeRaw`
        INSERT INTO audit_entries (id, workspace_id, actor, via, resource, record_id, action, changes, occurred_at)
        VALUES (${`aud_${label}_${tag}`}, ${ws.id}, '{"type":"system","id":"t","name":"t"}'::jsonb, 'system',
          'contact', 'con_x', 'updated', '{}'::jsonb, ${new Date(now.getTime() - daysAgo * DAY)})`;
    await audit(100, 'old');
    await audit(10, 'new');
    // So do import jobs over that long ago, with their failed rows; newer and unfinished ones stay.
    // The unfinished one is running under another worker's live lease: on PostgreSQL every test
    // file's import runner shares the database, and a queued job would be taken and run.
    const job = (label: string, finishedDaysAgo: number | null) =>
      app.db.prisma.import.create({
        data: {
          id: `imp_${label}_${tag}`,
          workspaceId: ws.id,
          origin: {},
          resource: 'contacts',
          format: 'csv',
          mode: 'create',
          status: finishedDaysAgo === null ? 'running' : 'completed',
          ...(finishedDaysAgo === null && { leaseToken: 'elsewhere', leaseUntil: new Date(Date.now() + DAY) }),
          createdAt: new Date(now.getTime() - 120 * DAY),
          finishedAt: finishedDaysAgo === null ? null : new Date(now.getTime() - finishedDaysAgo * DAY),
          failedRows: { create: { row: 1, line: 2, cells: ['x'], error: 'bad' } },
        },
      });
    await job('old', 100);
    await job('new', 10);
    await job('running', null);
    // A delivery of an old event: its log entry stays, without the event.
    const sub = await app.db.prisma.webhookSubscription.create({
      data: {
        id: `wh_${tag}`,
        workspaceId: ws.id,
        url: 'https://receiver.example/hook',
        events: ['contact.created'],
        secretEncrypted: 'x',
        retryPolicy: {},
      },
    });
    await app.db.prisma.webhookDelivery.create({
      data: {
        id: `dlv_${tag}`,
        workspaceId: ws.id,
        subscriptionId: sub.id,
        eventId: `evt_old_${tag}_1`,
        event: 'contact.created',
        status: 'delivered',
      },
    });

    const pruned: number[] = [];
    const kept = startEventRetention({ sql: app.db.sql, logger: quiet, retentionDays: 0 });
    expect(await kept.runOnce(now)).toBe(0);
    await kept.stop();

    const retention = startEventRetention({
      sql: app.db.sql,
      logger: quiet,
      retentionDays: 90,
      onPruned: (n) => pruned.push(n),
    });
    await retention.runOnce(now);
    await retention.stop();
    const jobs = await app.db.prisma.import.findMany({ where: { workspaceId: ws.id }, orderBy: { id: 'asc' } });
    expect(jobs.map((j) => j.id)).toEqual([`imp_new_${tag}`, `imp_running_${tag}`]);
    expect(await app.db.prisma.importFailedRow.count({ where: { importId: `imp_old_${tag}` } })).toBe(0);
    const left = await app.db.prisma.event.findMany({ where: { workspaceId: ws.id }, select: { id: true } });
    expect(left.map((e) => e.id).sort()).toEqual([1, 2, 3].map((n) => `evt_new_${tag}_${n}`));
    expect(pruned.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5001);
    const audited = await app.db.prisma.auditEntry.findMany({ where: { workspaceId: ws.id, recordId: 'con_x' } });
    expect(audited.map((e) => e.id)).toEqual([`aud_new_${tag}`]);
    const entry = await app.db.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: `dlv_${tag}` } });
    expect(entry).toMatchObject({ eventId: null, status: 'delivered' });
    // The log API no longer lists them.
    const listed = await ws.api('GET', '/v1/events?limit=100');
    expect(listed.body.data.map((e: { id: string }) => e.id).sort()).toEqual(left.map((e) => e.id).sort());
  });
});
