// The live event bus on Redis: whatever arrives on a workspace's channel, the process and the
// subscriptions carry on. (Needs REDIS_URL; the in-memory bus has no channel anyone else can write to.)
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { createEventBus, type PublishedEvent } from '../src/events/bus.ts';
import { until } from './helpers/receiver.ts';

const url = process.env.REDIS_URL;
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const close of closers) await close();
});

describe.skipIf(!url)('event bus on Redis', () => {
  it('non-JSON messages are dropped and logged, non-events dropped; process and subscription carry on', async () => {
    const prefix = `junk_${process.pid}_${Date.now().toString(36)}`;
    const warnings: string[] = [];
    const bus = createEventBus(url!, { prefix, logger: { warn: (_o, msg) => void warnings.push(msg) } });
    const redis = new Redis(url!);
    closers.push(
      () => bus.close(),
      () => redis.quit(),
    );
    const channel = `${prefix}:events:ws_junk`;
    const events = bus.subscribe('ws_junk')[Symbol.asyncIterator]();
    const first = events.next();
    await until(async () => Number(((await redis.pubsub('NUMSUB', channel)) as [string, number])[1]) > 0);

    await redis.publish(channel, '{not json');
    await redis.publish(channel, '');
    await redis.publish(channel, '{"not":"an event"}');
    await redis.publish(channel, '42');
    const event: PublishedEvent = {
      id: 'evt_after_junk',
      event: 'contact.created',
      timestamp: new Date().toISOString(),
      workspaceId: 'ws_junk',
      entityType: 'contact',
      entityId: 'con_1',
      sequence: 1,
      data: {},
    };
    bus.publish(event);

    expect((await first).value).toMatchObject({ id: 'evt_after_junk' });
    expect(warnings).toContain('event bus: dropped a message that is not JSON');
    await events.return?.();
  });
});
