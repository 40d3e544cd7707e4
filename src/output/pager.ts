// Long output on a terminal goes through a pager, as git and gh page theirs (docs/cli-contract.md "Pager"): the
// pager is $DLAKE_PAGER, else $PAGER (a command line, e.g. `less -S`; set and empty: none), else `less`; as git
// does, `LESS` is set to `FRX` when the user has not set it (quit when the text fits one screen, pass colour
// through, leave the screen as it was). Colour goes only to a pager known to show it (less with -R or -r, from its
// options or $LESS); any other gets plain text, never escape codes it would print as `ESC[1m`. A pager that cannot
// be started (no `less` on the machine) leaves the text printed. The SQL shell pages its results with it
// (src/shell/pager.ts); commands page through `pageOrPrint`.
import { spawn } from 'node:child_process';
import { displayWidth } from './width.js';

/** Select Graphic Rendition: the only escape sequences dlake's own output holds (colour, bold). */
const SGR = /\u001b\[[0-9;]*m/g;

/** The widest line, in terminal columns (the one measure of src/output), escape sequences (colour) left out. */
export function widestLine(text: string): number {
  let widest = 0;
  for (const line of text.replace(SGR, '').split('\n')) widest = Math.max(widest, displayWidth(line));
  return widest;
}

interface Pager {
  /** The command line, run by the shell as git runs $PAGER. */
  command: string;
  env: NodeJS.ProcessEnv;
}

/** The pager to use: its command line, and the environment it runs with. Undefined: print, never page. */
export function pagerFor(env: NodeJS.ProcessEnv): Pager | undefined {
  const set = env.DLAKE_PAGER ?? env.PAGER;
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

/**
 * Runs the pager on `text`, the pager writing to this process's own terminal (its stdout and stderr inherited).
 * Resolves false when it could not be started (the shell found no such command: exit 127), so that the caller
 * prints the text instead of losing it.
 */
export function runPager(pager: Pager, text: string): Promise<boolean> {
  const shown = pagerTakesColour(pager.command, pager.env) ? text : text.replace(SGR, '');
  return new Promise<boolean>((resolve) => {
    // $PAGER is a command line (e.g. `less -S`), as git and psql read it.
    const child = spawn(pager.command, {
      shell: true,
      stdio: ['pipe', 'inherit', 'inherit'],
      env: pager.env,
    });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code !== 127));
    child.stdin.on('error', () => {});
    child.stdin.end(shown);
  });
}

/** Whether the environment is a CI runner's (`CI` set, as GitHub Actions, GitLab and the others set it). */
const inCi = (env: NodeJS.ProcessEnv): boolean =>
  env.CI !== undefined && env.CI !== '' && env.CI !== '0' && env.CI.toLowerCase() !== 'false';

/**
 * Writes a command's table to `stdout`, through the pager when it is dlake's own terminal (file descriptor 1 a
 * TTY), the text is taller or wider than the screen, no CI runner is around and the user has not said no
 * (`--no-pager`, or DLAKE_PAGER/PAGER set to the empty string). Ctrl-C belongs to the pager meanwhile.
 */
export async function pageOrPrint(
  stdout: NodeJS.WriteStream,
  env: NodeJS.ProcessEnv,
  text: string,
  allowed: boolean,
): Promise<void> {
  const pager = allowed && !inCi(env) ? pagerFor(env) : undefined;
  const terminal = stdout.isTTY && (stdout as { fd?: number }).fd === 1;
  if (!pager || !terminal || !needsPager(text, stdout.columns, stdout.rows)) {
    stdout.write(text);
    return;
  }
  const ignore = () => {};
  process.on('SIGINT', ignore);
  try {
    if (!(await runPager(pager, text))) stdout.write(text);
  } finally {
    process.off('SIGINT', ignore);
  }
}
