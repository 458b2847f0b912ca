// The LISTEN connection of postgresListen against a database server that accepts the connection
// and never answers (a hung PostgreSQL, a black-holed address): starting to listen must not wait
// for it, and stopping must be prompt, so a service shutting down while it (re)connects exits.
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postgresListen } from '../src/db/notifications.ts';

let silent: net.Server;
const sockets: net.Socket[] = [];
let url: string;

beforeAll(async () => {
  silent = net.createServer((s) => {
    sockets.push(s);
    s.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  url = `postgresql://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/test`;
});
afterAll(async () => {
  for (const s of sockets) s.destroy();
  await new Promise((r) => silent.close(r));
});

const within = <T>(p: Promise<T>, ms: number) =>
  Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())]);

describe('listening on a database that never answers', () => {
  it('hands back its stop function at once, and stopping ends the pending connection', async () => {
    const started = postgresListen({ connectionString: url })('crm_events', () => {});
    const stop = await within(started, 2_000);
    expect(stop, 'listening waited for a server that never answers').not.toBe('timeout');
    if (stop === 'timeout') return;
    expect(await within(stop(), 2_000)).not.toBe('timeout');
    // Nothing is left connecting to it.
    await new Promise((r) => setTimeout(r, 100));
    expect(sockets.every((s) => s.destroyed || s.readableEnded)).toBe(true);
  });
});
