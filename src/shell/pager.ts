// Output of the SQL shell, as psql shows it: on a terminal, a result taller or wider than the screen goes through
// a pager (which gets the terminal's keyboard meanwhile), anything else is printed. The pager is $PAGER (a
// command line, e.g. `less -S`; set and empty: none), else `less`. As git does, `LESS` is set to `FRX` when the
// user has not set it (quit when the text fits one screen, pass colour through, leave the screen as it was).
// Colour goes only to a pager known to show it (less with -R or -r, from its options or $LESS); any other gets
// plain text, never escape codes it would print as `ESC[1m` (docs/guide.md "The SQL shell").
import { spawn } from 'node:child_process';
import type { Context } from '../context.js';
import { displayWidth } from '../output/width.js';
import { withTerminalHandedOver } from './handover.js';
import type { KeyRouter } from './keys.js';

/** Select Graphic Rendition: the only escape sequences the shell's own output holds (colour, bold). */
const SGR = /\u001b\[[0-9;]*m/g;

/** The widest line, in terminal columns (the one measure of src/output), escape sequences (colour) left out. */
export function widestLine(text: string): number {
  let widest = 0;
  for (const line of text.replace(SGR, '').split('\n')) widest = Math.max(widest, displayWidth(line));
  return widest;
}

/** The pager to use: its command line, and the environment it runs with. Undefined: print, never page. */
export function pagerFor(env: NodeJS.ProcessEnv): { command: string; env: NodeJS.ProcessEnv } | undefined {
  const set = env.PAGER;
  if (set !== undefined && set.trim() === '') return undefined;
  const command = set?.trim() || 'less';
  return { command, env: env.LESS === undefined ? { ...env, LESS: 'FRX' } : env };
}

/** Whether the pager shows colour: `less` given -R or -r (--RAW-CONTROL-CHARS), on its command line or in $LESS. */
export function pagerTakesColour(command: string, env: NodeJS.ProcessEnv): boolean {
  const [program = '', ...args] = command.trim().split(/\s+/);
  if (program.split('/').at(-1) !== 'less') return false;
  const flags = [
    ...args,
    ...(env.LESS ?? '')
      .trim()
      .split(/\s+/)
      .map((o) => (o.startsWith('-') ? o : `-${o}`)),
  ];
  return flags.some((f) => f === '--RAW-CONTROL-CHARS' || (/^-[^-]/.test(f) && /[Rr]/.test(f)));
}

/** Whether text this tall or wide needs a pager on a screen of `columns` × `rows` (a line kept for the prompt). */
export function needsPager(text: string, columns: number, rows: number | undefined): boolean {
  if (widestLine(text) > columns) return true;
  if (!rows) return false;
  let lines = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', at + 1)) lines++;
  return lines > rows - 1;
}

export async function pageOrPrint(ctx: Context, text: string, keys: KeyRouter): Promise<void> {
  const { stdout } = ctx.streams;
  const pager = pagerFor(ctx.env);
  const columns = stdout.isTTY ? stdout.columns : undefined;
  if (!pager || !columns || !needsPager(text, columns, stdout.rows)) {
    stdout.write(text);
    return;
  }
  const shown = pagerTakesColour(pager.command, pager.env) ? text : text.replace(SGR, '');
  const paged = await withTerminalHandedOver(
    ctx,
    keys,
    () =>
      new Promise<boolean>((resolve) => {
        // $PAGER is a command line (e.g. `less -S`), as git and psql read it.
        const child = spawn(pager.command, {
          shell: true,
          stdio: ['pipe', 'inherit', 'inherit'],
          env: pager.env,
        });
        child.on('error', () => resolve(false));
        // 127: the shell found no such command. The result is printed instead of lost.
        child.on('close', (code) => resolve(code !== 127));
        child.stdin.on('error', () => {});
        child.stdin.end(shown);
      }),
  );
  if (!paged) stdout.write(text);
}
