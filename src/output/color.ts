// Colour rules of docs/cli-contract.md "Streams and formats": colour only on a TTY, never with NO_COLOR,
// --no-color or FORCE_COLOR=0; FORCE_COLOR forces it.
import { Chalk, type ChalkInstance } from 'chalk';

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

export function theme(enabled: boolean): Theme {
  const c: ChalkInstance = new Chalk({ level: enabled ? 1 : 0 });
  return { accent: c.cyan, muted: c.dim, danger: c.red, warn: c.yellow, ok: c.green, bold: c.bold, enabled };
}
