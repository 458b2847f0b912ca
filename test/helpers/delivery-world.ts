// What the webhook delivery test files share: an app on its own schema (so this file's worker
// never picks up another file's deliveries), a workspace, its delivery worker, and local receivers
// closed at the end. Call at the top level of a test file; the fields are set once beforeAll ran.
import { afterAll, beforeAll, expect } from 'vitest';
import type { DeliveryWorker } from '../../src/webhooks/worker.ts';
import { startTestApp, type Client, type TestApp, type TestAppOptions, type TestWorkspace } from './app.ts';
import { receiver, until, type Behaviour, type Receiver } from './receiver.ts';

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
  const receivers: Receiver[] = [];
  const world = {
    async listen(behaviour?: Behaviour) {
      const r = await receiver(behaviour);
      receivers.push(r);
      return r;
    },
    async subscribe(url: string, body: Record<string, unknown> = {}) {
      const r = await world.ws.api('POST', '/v1/webhooks', { url, events: ['contact.created'], ...body });
      expect(r.status, r.text).toBe(201);
      return r.body.data;
    },
    logs: async (id: string, api?: Client) => (await (api ?? world.ws.api)('GET', `/v1/webhooks/${id}/logs?limit=100`)).body.data as any[],
    drive<T>(done: () => T | Promise<T>, ms = 20_000): Promise<T> {
      return until(async () => {
        await world.worker.runOnce();
        return done();
      }, ms, 100);
    },
  } as DeliveryWorld;
  beforeAll(async () => {
    world.app = await startTestApp({ isolated: true, ...options });
    world.ws = await world.app.workspace();
    world.worker = world.app.worker();
  });
  afterAll(async () => {
    await world.app?.close();
    await Promise.all(receivers.map((r) => r.close()));
  });
  return world;
}
