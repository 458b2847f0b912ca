// Stops a server the polite way: no new connections, requests under way still answered,
// kept-alive connections closed as soon as they are idle, everything cut after a grace period.
import type { Server, ServerResponse } from 'node:http';

export interface Drainable {
  close(graceMs: number): Promise<void>;
}

/** Call when the server starts: requests in flight at shutdown are known from then on. */
export function drainable(server: Server): Drainable {
  const open = new Set<ServerResponse>();
  let closing = false;
  server.on('request', (_req, res) => {
    // A kept-alive connection may bring one more request during shutdown: answer it, then hang up.
    if (closing) res.setHeader('Connection', 'close');
    open.add(res);
    res.once('close', () => open.delete(res));
  });
  return {
    async close(graceMs) {
      closing = true;
      // Otherwise each connection would stay open for its keep-alive timeout after its answer.
      for (const res of open) if (!res.headersSent) res.setHeader('Connection', 'close');
      // close() stops listening and ends idle connections; its callback waits for the busy ones.
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      let timer: NodeJS.Timeout | undefined;
      const cut = new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          server.closeAllConnections();
          resolve();
        }, graceMs);
      });
      await Promise.race([closed, cut]);
      clearTimeout(timer);
      await closed;
    },
  };
}
