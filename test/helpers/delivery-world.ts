// What the webhook delivery test files share: an app on its own schema (so this file's worker
// never picks up another file's deliveries), a workspace, its delivery worker, and local receivers
// closed at the end, all from the file's fixtures. Call at the top level of a test file; the
// fields are set once the file's beforeAll hooks ran.
import { expect } from 'vitest';
import type { DeliveryWorker } from '../../src/webhooks/worker.ts';
import type { Client, TestApp, TestAppOptions, TestWorkspace } from './app.ts';
import { withAppOptions } from './fixtures.ts';
import { until, type Behaviour, type Receiver } from './receiver.ts';

export interface DeliveryWorld {
  app: TestApp;
  ws: TestWorkspace;
  worker: DeliveryWorker;
  /** A local receiver answering with `behaviour`, closed after the file. */
  listen(behaviour?: Behaviour): Promise<Receiver>;
  /** A subscription of the workspace (contact.created unless `body` names events). */
  subscribe(url: string, body?: Record<string, unknown>): Promise<any>;
  /** The delivery log of a subscription, newest first. */
  logs(id: string, api?: Client): Promise<any[]>;
  /** Runs the worker until `done` holds (each pass sends whatever is due). */
  drive<T>(done: () => T | Promise<T>, ms?: number): Promise<T>;
}

export function deliveryWorld(options: TestAppOptions = {}): DeliveryWorld {
  let startReceiver: (behaviour?: Behaviour) => Promise<Receiver>;
  const world = {
    listen: (behaviour?: Behaviour) => startReceiver(behaviour),
    async subscribe(url: string, body: Record<string, unknown> = {}) {
      const r = await world.ws.api('POST', '/v1/webhooks', { url, events: ['contact.created'], ...body });
      expect(r.status, r.text).toBe(201);
      return r.body.data;
    },
    logs: async (id: string, api?: Client) =>
      (await (api ?? world.ws.api)('GET', `/v1/webhooks/${id}/logs?limit=100`)).body.data as any[],
    drive<T>(done: () => T | Promise<T>, ms = 20_000): Promise<T> {
      return until(
        async () => {
          await world.worker.runOnce();
          return done();
        },
        ms,
        100,
      );
    },
  } as DeliveryWorld;
  withAppOptions({ isolated: true, ...options }).beforeAll(({ app, ws, listen }) => {
    world.app = app;
    world.ws = ws;
    world.worker = app.worker();
    startReceiver = listen;
  });
  return world;
}
