// Colour rules of docs/cli-contract.md "Streams and formats": colour only on a TTY, never with NO_COLOR,
// --no-color or FORCE_COLOR=0; FORCE_COLOR forces it. chalk is loaded only when something is coloured: a
// command whose output goes to a pipe or a file never loads it (docs/architecture.md "Start-up").

export function colorEnabled(isTTY: boolean, env: NodeJS.ProcessEnv, noColorFlag: boolean): boolean {
  if (noColorFlag) return false;
  // FORCE_COLOR=0 (or false) is the common way to say "no colour" (Node, chalk and npm read it so).
  if (env.FORCE_COLOR === '0' || env.FORCE_COLOR === 'false') return false;
  if (env.FORCE_COLOR !== undefined) return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  return isTTY && env.TERM !== 'dumb';
}

/** Colours named by role, so a command says what a text is, not how it looks. */
export interface Theme {
  accent: (s: string) => string;
  muted: (s: string) => string;
  danger: (s: string) => string;
  warn: (s: string) => string;
  ok: (s: string) => string;
  bold: (s: string) => string;
  /** Whether these colour at all (for libraries that colour on their own, such as the spinner). */
  enabled: boolean;
}

const same = (s: string) => s;

/** No colour: each role is the text as it is. */
export const PLAIN: Theme = {
  accent: same,
  muted: same,
  danger: same,
  warn: same,
  ok: same,
  bold: same,
  enabled: false,
};

export async function theme(enabled: boolean): Promise<Theme> {
  if (!enabled) return PLAIN;
  const { Chalk } = await import('chalk');
  const c = new Chalk({ level: 1 });
  return { accent: c.cyan, muted: c.dim, danger: c.red, warn: c.yellow, ok: c.green, bold: c.bold, enabled };
}
