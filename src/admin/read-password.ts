// Passwords for the CLI never come as arguments (they would show in `ps` and shell history):
// typed at a prompt without echo, or the first line of standard input for scripts.
import { AppError } from '../errors.ts';

async function firstLineOfStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes('\n')) break;
  }
  return text.split(/\r?\n/)[0];
}

function prompt(question: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(question);
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (fn: () => void) => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
      fn();
    };
    const onData = (chars: string) => {
      for (const ch of chars) {
        if (ch === '\r' || ch === '\n') return done(() => resolve(typed));
        if (ch === '\u0003') return done(() => reject(new AppError('validation_error', 'Cancelled')));
        if (ch === '\u007f' || ch === '\b') typed = typed.slice(0, -1);
        else typed += ch;
      }
    };
    stdin.on('data', onData);
  });
}

export async function readPassword(opts: { fromStdin: boolean }): Promise<string> {
  if (opts.fromStdin) return firstLineOfStdin();
  if (!process.stdin.isTTY)
    throw new AppError('validation_error', 'No terminal to type the password in: pipe it and pass --password-stdin');
  const password = await prompt('New password: ');
  if ((await prompt('Repeat it: ')) !== password) throw new AppError('validation_error', 'The passwords differ');
  return password;
}
