// The running server's backup channel. PGlite is one process's: while the server holds DATA_DIR no
// other process may open it, so `npm run cli -- backup` asks the server for the copy instead.
//
// It is a Unix socket, DATA_DIR/control/backup.sock, never a TCP port: nothing on the network can
// reach it, and the directory it is in is the owner's alone (0700, the socket 0600), so no other
// user of the machine can either. It does one thing: a client sends the line `BACKUP 1` and gets
// the backup file's bytes (or `ERR <reason>`); any other line gets `ERR` and the connection ends.
// A client that says nothing, sends garbage, stops reading or goes away costs the server a socket
// for a bounded time and nothing else.
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type { PGlite } from '@electric-sql/pglite';
import type { Logger } from 'pino';
import { snapshot } from './snapshot.ts';

export const REQUEST_LINE = 'BACKUP 1';
/** The request line is short; a client sending this much without a newline is not asking for a backup. */
const MAX_REQUEST_BYTES = 64;
/** A client gets this long to send its request. */
const REQUEST_TIMEOUT_MS = 5_000;
/** A client that reads nothing of the answer for this long is dropped (and the copy with it). */
const STALLED_READER_MS = 60_000;
/** Each connection may hold a copy of the database in memory until it has read it. */
const MAX_CONNECTIONS = 4;

export const controlSocketPath = (dataDir: string) => path.join(dataDir, 'control', 'backup.sock');

/** What a Unix socket's path may hold on Linux (sun_path, less its closing NUL). */
const MAX_SOCKET_PATH_BYTES = 107;

/** Throws when `file` is too long a path for a Unix socket (a long DATA_DIR). */
export function checkSocketPath(file: string): void {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH_BYTES) {
    throw new Error(`${file} is longer than a Unix socket's path may be (${MAX_SOCKET_PATH_BYTES} bytes)`);
  }
}

/** The socket's directory, made or checked to be a directory of this user's that no one else can enter. */
function privateDirectory(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  if (stat.uid !== process.getuid!()) throw new Error(`${dir} belongs to another user`);
  if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, 0o700);
}

/** A socket file left by a server that did not stop cleanly (this process holds DATA_DIR's lock). */
function removeStaleSocket(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch {
    return;
  }
  if (!stat.isSocket()) throw new Error(`${file} exists and is not a socket`);
  fs.unlinkSync(file);
}

export interface ControlSocket {
  close(): Promise<void>;
}

/**
 * Opens the backup channel of a server holding the embedded database in `dataDir`. A channel that
 * cannot be opened (a path too long for a socket, a directory of another user's) is logged and the
 * server runs without it: backups then need the server stopped.
 */
export async function openControlSocket(opts: {
  dataDir: string;
  pglite: PGlite;
  logger: Logger;
}): Promise<ControlSocket | null> {
  const { pglite, logger } = opts;
  const file = controlSocketPath(opts.dataDir);
  const connections = new Set<net.Socket>();
  // One copy at a time: each holds the whole database in memory for a moment.
  let queue: Promise<unknown> = Promise.resolve();
  const serveOne = () => {
    const copy = queue.then(() => snapshot(pglite));
    queue = copy.catch(() => {});
    return copy;
  };

  const server = net.createServer({ allowHalfOpen: true }, (socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
    void answer(socket, serveOne, logger);
  });
  server.maxConnections = MAX_CONNECTIONS;
  try {
    checkSocketPath(file);
    privateDirectory(path.dirname(file));
    removeStaleSocket(file);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(file, () => {
        server.off('error', reject);
        resolve();
      });
    });
    fs.chmodSync(file, 0o600);
  } catch (err) {
    server.close();
    logger.warn(
      { err: (err as Error).message, socket: file },
      'backups of the running server are unavailable (the backup channel cannot be opened); stop the server to back up',
    );
    return null;
  }
  server.on('error', (err) => logger.warn({ err: err.message }, 'backup channel error'));
  return {
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of connections) socket.destroy();
      await closed;
      fs.rmSync(file, { force: true });
    },
  };
}

async function answer(socket: net.Socket, copy: () => Promise<{ parts: Buffer[] }>, logger: Logger): Promise<void> {
  // Errors of a client's connection (it reset, it went away) end that connection only.
  socket.on('error', () => {});
  socket.setTimeout(REQUEST_TIMEOUT_MS, () => socket.destroy());
  const request = await readRequestLine(socket);
  if (request === null) return;
  socket.pause(); // anything sent after the request is not read
  if (request !== REQUEST_LINE) return refuse(socket, 'unknown request: the only one is "BACKUP 1"');
  const started = Date.now();
  socket.setTimeout(0); // the copy may wait for a long transaction to end
  let parts: Buffer[];
  try {
    ({ parts } = await copy());
  } catch (err) {
    logger.error({ err }, 'backup failed');
    return refuse(socket, `the server could not copy the database: ${oneLine((err as Error).message)}`);
  }
  if (socket.destroyed) return;
  socket.setTimeout(STALLED_READER_MS, () => socket.destroy());
  try {
    await pipeline(Readable.from(parts), socket);
    logger.info({ bytes: parts[0].length + parts[1].length, ms: Date.now() - started }, 'backup sent');
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'backup not sent: the client went away');
  }
}

/** One line, then the connection ends, whatever the client still sends or keeps open. */
function refuse(socket: net.Socket, reason: string): void {
  socket.end(`ERR ${reason}\n`, () => socket.destroy());
}

const oneLine = (text: string) => text.replace(/[\r\n]+/g, ' ').slice(0, 500);

/** The first line the client sends; null when it sends none (closed, too long, too slow: the socket is ended). */
function readRequestLine(socket: net.Socket): Promise<string | null> {
  return new Promise((resolve) => {
    let got = Buffer.alloc(0);
    const done = (line: string | null) => {
      socket.off('data', onData).off('end', onEnd).off('close', onEnd);
      resolve(line);
    };
    const onEnd = () => {
      socket.destroy();
      done(null);
    };
    const onData = (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      const end = got.indexOf(0x0a);
      if (end !== -1 && end <= MAX_REQUEST_BYTES) return done(got.subarray(0, end).toString('latin1').trimEnd());
      if (got.length > MAX_REQUEST_BYTES) {
        socket.pause();
        refuse(socket, 'request too long');
        done(null);
      }
    };
    socket.on('data', onData).once('end', onEnd).once('close', onEnd);
  });
}
