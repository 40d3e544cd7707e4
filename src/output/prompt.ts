// Interactive prompts on the terminal (stdin and stderr must be TTYs). Hidden input never echoes, and the
// terminal is restored on every way out, Ctrl-C included (which ends the command with exit code 130).
import { InterruptedError, UsageError } from '../errors.js';
import { USER_FILE_MAX_BYTES } from '../util/files.js';
import { terminalSafe } from './safe-text.js';
import type { Streams } from './ui.js';

export function readHidden(streams: Streams, question: string): Promise<string> {
  const { stdin, stderr } = streams;
  if (!stdin.isTTY) throw new UsageError('cannot prompt: standard input is not a terminal');
  return new Promise((resolve, reject) => {
    let value = '';
    // Echo off before the question shows: a password typed as soon as it appears must not be echoed.
    stdin.setRawMode(true);
    stderr.write(terminalSafe(question));
    stdin.resume();
    stdin.setEncoding('utf8');
    const finish = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.off('data', onData);
      stderr.write('\n');
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === '\u0003') return finish(new InterruptedError('interrupted'));
        if (ch === '\r' || ch === '\n' || ch === '\u0004') return finish();
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.on('data', onData);
  });
}

/**
 * One line typed at the terminal; undefined when the input ends instead (Ctrl-D), which is no answer.
 * Ctrl-C is an InterruptedError (exit 130).
 */
export async function readLine(streams: Streams, question: string): Promise<string | undefined> {
  const { createInterface } = await import('node:readline');
  const rl = createInterface({ input: streams.stdin, output: streams.stderr, terminal: true });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
      rl.close();
    };
    rl.on('SIGINT', () =>
      settle(() => {
        streams.stderr.write('\n');
        reject(new InterruptedError('interrupted'));
      }),
    );
    rl.on('close', () =>
      settle(() => {
        // Ctrl-D leaves the cursor after the question: end the line, as an Enter would have.
        streams.stderr.write('\n');
        resolve(undefined);
      }),
    );
    // A question names what the service or the user named: shown safe (docs/cli-contract.md "Errors").
    rl.question(terminalSafe(question), (answer) => settle(() => resolve(answer)));
  });
}

/**
 * A yes/no question, worded like every other prompt (a capital first letter, the default in capitals):
 * only y or yes confirms; Enter, anything else and Ctrl-D do not.
 */
export async function confirm(streams: Streams, question: string): Promise<boolean> {
  const sentence = question.charAt(0).toUpperCase() + question.slice(1);
  const answer = await readLine(streams, `${sentence} [y/N] `);
  return /^y(es)?$/i.test(answer?.trim() ?? '');
}

/**
 * Reads all of stdin (for --password-stdin and friends), without the trailing newline: at most as much as a file
 * the user names may hold (USER_FILE_MAX_BYTES); more is refused (exit 2), never read without end.
 */
export async function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const c of stdin) {
    bytes += (c as Buffer).length;
    if (bytes > USER_FILE_MAX_BYTES) {
      stdin.destroy();
      throw new UsageError(
        `standard input holds more than ${USER_FILE_MAX_BYTES / 1024 / 1024} MiB, more than dlake reads from it`,
      );
    }
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
