// What test files share, as vitest fixtures: a test names what it needs (`async ({ app, ws }) =>`)
// and gets it; whatever a fixture starts is closed after the file. The app and its workspaces are
// per file (`scope: 'file'`), so every file has its own workspaces and keys and files run in
// parallel. A file that needs another app takes its own copy of the API with those options:
// `const test = withAppOptions({ isolated: true })`. Never `test.override` on the shared `test`
// at a file's top level: a worker runs many files (isolate: false), and the override would stay
// for the files after it.
import { randomUUID } from 'node:crypto';
import { test as base } from 'vitest';
import { createEventBus, type EventBus } from '../../src/events/bus.ts';
import { startEventFeed } from '../../src/events/feed.ts';
import { startTestApp, type TestApp, type TestAppOptions } from './app.ts';
import { receiver, type Behaviour, type Receiver } from './receiver.ts';

/**
 * An event bus for one file: on Redis when REDIS_URL is set, under a key prefix of its own (so
 * files do not hear each other's events), in memory otherwise. For files that test live events
 * the way production carries them.
 */
export function fileBus(): EventBus {
  return createEventBus(process.env.REDIS_URL ?? null, { prefix: `crm-test-${randomUUID()}` });
}

export const test = base
  .extend('appOptions', { scope: 'file' }, {} as TestAppOptions)
  /** The app, listening on 127.0.0.1 against the run's database. */
  .extend('app', { scope: 'file' }, async ({ appOptions }, { onCleanup }) => {
    const app = await startTestApp(appOptions);
    onCleanup(() => app.close());
    return app;
  })
  /** A live workspace of this file with a full-access key (`ws.api`, `ws.key`); `ws.addKey` adds others. */
  .extend('ws', { scope: 'file' }, ({ app }) => app.workspace())
  /** A second workspace of this file, the neighbour whose records the first must never see. */
  .extend('other', { scope: 'file' }, ({ app }) => app.workspace())
  /** The event feed publishing the app's event log on its bus, as the service runs it, polling often. */
  .extend('feed', { scope: 'file' }, ({ app }, { onCleanup }) => {
    const feed = startEventFeed({ sql: app.db.sql, bus: app.bus, intervalMs: 20 });
    onCleanup(() => feed.stop());
    return feed;
  })
  /** Starts a further app with other options (behind a proxy, strict webhook URLs, ...); closed after the file. */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures used from this pattern and requires one
  .extend('startApp', { scope: 'file' }, ({}, { onCleanup }) => {
    const started: TestApp[] = [];
    onCleanup(async () => {
      await Promise.all(started.map((a) => a.close()));
    });
    return async (options: TestAppOptions) => {
      const app = await startTestApp(options);
      started.push(app);
      return app;
    };
  })
  /** Starts a local webhook receiver answering with `behaviour`; every one is closed after the file. */
  // biome-ignore lint/correctness/noEmptyPattern: vitest reads the fixtures used from this pattern and requires one
  .extend('listen', { scope: 'file' }, ({}, { onCleanup }) => {
    const started: Receiver[] = [];
    onCleanup(async () => {
      await Promise.all(started.map((r) => r.close()));
    });
    return async (behaviour?: Behaviour) => {
      const r = await receiver(behaviour);
      started.push(r);
      return r;
    };
  });

// Every file that imports these fixtures uses the app: start it before the first test, under the
// hook timeout, instead of inside whichever test asks first, whose own 30 s it would eat into.
test.beforeAll(({ app }) => void app);

export const it = test;

/** This file's test API with other app options: a copy, so the options stay in the file that set them. */
export function withAppOptions(options: TestAppOptions | (() => TestAppOptions)): typeof test {
  // extend makes a new set of fixtures; its top-level override changes that set only.
  const own = test.extend({}) as unknown as typeof test;
  own.override('appOptions', options as TestAppOptions);
  return own;
}
