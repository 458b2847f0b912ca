// Binding a listening socket as the first step of a start: a port that cannot be had is a
// StartupError naming the setting to change, before the database is opened or anything created.
import type { Server } from 'node:net';
import { StartupError } from '../startup-error.ts';

const REASONS: Record<string, string> = {
  EADDRINUSE: 'the address is already in use (another process holds the port)',
  EACCES: 'permission denied (ports below 1024 need privileges)',
  EADDRNOTAVAIL: 'the host is not an address of this machine (HOST)',
};

export function listen(server: Server, port: number, host: string, setting: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: NodeJS.ErrnoException) => {
      server.off('listening', listening);
      const reason = (err.code && REASONS[err.code]) ?? err.message;
      reject(new StartupError(`Cannot listen on ${host}:${port} (${setting}): ${reason}`, { cause: err }));
    };
    const listening = () => {
      server.off('error', failed);
      resolve();
    };
    server.once('error', failed);
    server.once('listening', listening);
    server.listen(port, host);
  });
}
