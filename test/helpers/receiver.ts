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

/**
 * A status, 'hang' (never answer), or an answer, optionally given only once `after` has settled
 * and then after delayMs. The body
 * may be raw bytes; `chunks` are written one by one (each flushed as its own chunk) instead of
 * `body`; `endless` writes them again and again and never ends the reply.
 */
export type Behaviour = (
  n: number,
  hit: Hit,
) =>
  | number
  | 'hang'
  | {
      status: number;
      headers?: Record<string, string>;
      body?: string | Buffer;
      chunks?: Buffer[];
      endless?: boolean;
      delayMs?: number;
      after?: Promise<unknown>;
    };

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
      const {
        status,
        headers,
        body,
        chunks: parts,
        endless,
        delayMs,
        after,
      } = typeof answer === 'number'
        ? {
            status: answer,
            headers: {},
            body: undefined,
            chunks: undefined,
            endless: false,
            delayMs: 0,
            after: undefined,
          }
        : answer;
      const respond = async () => {
        res.writeHead(status, { 'content-type': 'text/plain', ...headers });
        if (!parts && !endless) return void res.end(body ?? `ok ${'x'.repeat(2000)}`);
        if (endless) hanging.push(res);
        do {
          for (const part of parts ?? [Buffer.from(body ?? '')]) {
            if (res.destroyed) return;
            res.write(part);
            // A pause lets each write leave as a chunk of its own.
            await new Promise((r) => setTimeout(r, 2));
          }
        } while (endless);
        res.end();
      };
      const answerLater = () => (delayMs ? setTimeout(() => void respond(), delayMs) : void respond());
      if (after) void after.finally(answerLater);
      else answerLater();
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
