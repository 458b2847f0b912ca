// A local webhook receiver on 127.0.0.1 that records every request and answers as told.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  raw: string;
  json: any;
  at: number;
}

/** A status, 'hang' (never answer), or an answer, optionally given only after delayMs. */
export type Behaviour = (n: number, hit: Hit) => number | 'hang' | { status: number; headers?: Record<string, string>; body?: string; delayMs?: number };

export interface Receiver {
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

export async function receiver(behaviour: Behaviour = () => 200): Promise<Receiver> {
  const hits: Hit[] = [];
  const hanging: http.ServerResponse[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(raw);
      } catch {
        json = undefined;
      }
      const hit = { method: req.method!, path: req.url!, headers: req.headers, raw, json, at: Date.now() };
      hits.push(hit);
      const answer = behaviour(hits.length, hit);
      if (answer === 'hang') return void hanging.push(res);
      const { status, headers, body, delayMs } = typeof answer === 'number' ? { status: answer, headers: {}, body: undefined, delayMs: 0 } : answer;
      const respond = () => {
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        res.end(body ?? `ok ${'x'.repeat(2000)}`);
      };
      if (delayMs) setTimeout(respond, delayMs);
      else respond();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    hits,
    close: async () => {
      hanging.forEach((r) => r.destroy());
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

/** Polls `fn` until it returns something truthy or the time is up. */
export async function until<T>(fn: () => T | Promise<T>, ms = 10_000, every = 50): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, every));
  }
}
