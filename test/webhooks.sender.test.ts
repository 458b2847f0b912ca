// The sender and kept-alive connections: a receiver that closes a connection as the next delivery
// is written to it has not answered that delivery, so it goes again on a new connection instead of
// counting as the receiver's failure (a run of such failures would switch a healthy endpoint off).
import net from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { WebhookSender } from '../src/webhooks/sender.ts';

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok';

/** Answers the first request of each connection; closes a connection when a second request arrives on it. */
function closingReceiver() {
  const seen = { connections: 0, answered: 0, cut: 0 };
  const server = net.createServer((socket) => {
    seen.connections++;
    let requests = 0;
    socket.on('data', () => {
      requests++;
      if (requests === 1) {
        seen.answered++;
        socket.write(OK);
      } else {
        seen.cut++;
        socket.destroy();
      }
    });
    socket.on('error', () => {});
  });
  return { server, seen };
}

const { server, seen } = closingReceiver();
const sender = new WebhookSender({ allowHttp: true, allowPrivate: true });
afterAll(async () => {
  await sender.close();
  await new Promise((r) => server.close(r));
});

it('sends again on a new connection when a kept-alive one is closed before answering', async () => {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/hook`;
  const request = { url, method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 5000 };
  const results = [];
  for (let i = 0; i < 3; i++) results.push(await sender.send(request));
  expect(results.map((r) => [r.ok, r.statusCode])).toEqual([
    [true, 200],
    [true, 200],
    [true, 200],
  ]);
  // Some delivery met a kept-alive connection that was closed under it, and got through on a new one.
  expect(seen.answered).toBe(3);
  expect(seen.cut).toBeGreaterThanOrEqual(1);
  expect(seen.connections).toBe(seen.answered);
});

it('still fails a delivery whose new connection is closed too (a receiver that never answers)', async () => {
  const cutting = net.createServer((socket) => {
    socket.on('data', () => socket.destroy());
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => cutting.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(cutting.address() as net.AddressInfo).port}/hook`;
  const r = await sender.send({ url, method: 'POST', headers: {}, body: '{}', timeoutMs: 5000 });
  expect(r.ok).toBe(false);
  expect(r.error).toMatch(/connection failed/);
  await new Promise((done) => cutting.close(done));
});
