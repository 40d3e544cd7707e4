// Interactive prompts on the terminal (stdin and stderr must be TTYs). Hidden input never echoes, and the
// terminal is restored on every way out, Ctrl-C included (which ends the command with exit code 130).
import { InterruptedError, UsageError } from '../errors.js';
import type { Streams } from './ui.js';

export function readHidden(streams: Streams, question: string): Promise<string> {
  const { stdin, stderr } = streams;
  if (!stdin.isTTY) throw new UsageError('cannot prompt: standard input is not a terminal');
  return new Promise((resolve, reject) => {
    let value = '';
    // Echo off before the question shows: a password typed as soon as it appears must not be echoed.
    stdin.setRawMode(true);
    stderr.write(question);
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

export async function readLine(streams: Streams, question: string): Promise<string> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: streams.stdin, output: streams.stderr, terminal: true });
  const ac = new AbortController();
  rl.on('SIGINT', () => ac.abort());
  try {
    return await rl.question(question, { signal: ac.signal });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw new InterruptedError('interrupted');
    throw e;
  } finally {
    rl.close();
  }
}

export async function confirm(streams: Streams, question: string): Promise<boolean> {
  const answer = await readLine(streams, `${question} [y/N] `);
  return /^y(es)?$/i.test(answer.trim());
}

/** Reads all of stdin (for --password-stdin and friends), without the trailing newline. */
export async function readStdin(stdin: NodeJS.ReadStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}
