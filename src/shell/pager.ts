// Output of the SQL shell: printed, or, when $PAGER is set and a line is wider than the terminal, piped
// through the pager (which gets the terminal's keyboard meanwhile).
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { withTerminalHandedOver } from './handover.js';
import type { KeyRouter } from './keys.js';

/** The widest line, in characters, escape sequences (colour) left out. */
export function widestLine(text: string): number {
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  return Math.max(0, ...plain.split('\n').map((l) => [...l].length));
}

export async function pageOrPrint(ctx: Context, text: string, keys: KeyRouter): Promise<void> {
  const { stdout } = ctx.streams;
  const pager = ctx.env.PAGER?.trim();
  const columns = stdout.isTTY ? stdout.columns : undefined;
  if (!pager || !columns || widestLine(text) <= columns) {
    stdout.write(text);
    return;
  }
  await withTerminalHandedOver(
    ctx,
    keys,
    () =>
      new Promise<void>((resolve) => {
        // $PAGER is a command line (e.g. `less -S`), as git and psql read it.
        const child = spawn(pager, { shell: true, stdio: ['pipe', 'inherit', 'inherit'], env: ctx.env });
        child.on('error', () => {
          stdout.write(text);
          resolve();
        });
        child.on('close', () => resolve());
        child.stdin.on('error', () => {});
        child.stdin.end(text);
      }),
  );
}
