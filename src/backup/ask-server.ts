// The CLI's side of the backup channel (control-socket.ts): asks the server holding DATA_DIR for a
// copy and hands on the bytes of the backup file it answers with.
import { once } from 'node:events';
import net from 'node:net';
import { BackupError } from './backup-error.ts';
import { REQUEST_LINE } from './control-socket.ts';

/** The server may wait for a long transaction before copying; an answer that stalls longer than this ends. */
const ANSWER_TIMEOUT_MS = 300_000;
/** An `ERR` line is short; an answer with no line end by then is the backup file itself. */
const MAX_ERROR_LINE = 4096;

/**
 * The backup file's bytes from the server listening on `socketPath`. `unreachable` says what to
 * throw when no server answers there (the directory's holder is then not a server with the channel).
 */
export async function* askServerForBackup(
  socketPath: string,
  unreachable: (err: NodeJS.ErrnoException) => Error,
): AsyncGenerator<Buffer> {
  const socket = net.createConnection(socketPath);
  try {
    try {
      await once(socket, 'connect');
    } catch (err) {
      throw unreachable(err as NodeJS.ErrnoException);
    }
    socket.setTimeout(ANSWER_TIMEOUT_MS, () =>
      socket.destroy(new Error(`the server sent nothing for ${ANSWER_TIMEOUT_MS / 1000} s`)),
    );
    socket.write(`${REQUEST_LINE}\n`);
    let start: Buffer | null = Buffer.alloc(0);
    for await (const chunk of socket as AsyncIterable<Buffer>) {
      if (!start) {
        yield chunk;
        continue;
      }
      start = Buffer.concat([start, chunk]);
      const end = start.indexOf(0x0a);
      if (end === -1 && start.length < MAX_ERROR_LINE) continue;
      const line = start.subarray(0, end === -1 ? start.length : end).toString('utf8');
      if (line.startsWith('ERR ')) throw new BackupError('backup_failed', `The server refused: ${line.slice(4)}`);
      yield start;
      start = null;
    }
    if (start?.length) yield start;
  } finally {
    socket.destroy();
  }
}
