// Turning the model's names and values into shell text. Every table of the three scripts goes through here,
// so quoting is decided in one place.
import type { CommandSpec, OptionSpec, Values } from './model.js';

/** A single-quoted word for bash and zsh. */
export function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A single-quoted word for fish, where `\` and `'` are escaped inside single quotes. */
export function fq(text: string): string {
  return `'${text.replace(/[\\']/g, '\\$&')}'`;
}

// The scripts split value lists on spaces and hand them to `compgen -W`, which expands `$` and backquotes:
// a value outside this set would be mangled, so it is left out rather than offered wrongly.
const SAFE_WORD = /^[\w.,:+@%/=-]+$/;

/** Values as the scripts carry them: `@profiles`, `@files`, or the words separated by spaces. */
export function encodeValues(values: Values | undefined): string {
  if (values === undefined) return '';
  if (values === 'profiles' || values === 'files') return `@${values}`;
  return values.filter((v) => SAFE_WORD.test(v)).join(' ');
}

/** The subcommands offered first, and those offered only when none of the first matches (aliases). */
export function subcommandNames(cmd: CommandSpec): {
  primary: Array<[string, string]>;
  secondary: Array<[string, string]>;
} {
  const primary: Array<[string, string]> = [];
  const secondary: Array<[string, string]> = [];
  for (const sub of cmd.subcommands) {
    (sub.secondary ? secondary : primary).push([sub.name, sub.description]);
    for (const alias of sub.aliases) secondary.push([alias, sub.description]);
  }
  return { primary, secondary };
}

/** `[name, description]` of each spelling of the visible options. */
export function offeredOptions(options: OptionSpec[]): Array<[string, string]> {
  return options
    .filter((o) => !o.hidden)
    .flatMap((o) => o.names.map((n): [string, string] => [n, o.description]));
}

/**
 * The values of each positional argument of `cmd`, by index; `'*'` stands for every index from a variadic last
 * argument on. An earlier argument without values still gets its entry when such a catch-all follows.
 */
export function argumentCases(cmd: CommandSpec): Array<{ index: number | '*'; values: string }> {
  const last = cmd.args.at(-1);
  const catchAll = Boolean(last?.variadic && encodeValues(last.values));
  return cmd.args
    .map((arg, i) => ({
      index: arg === last && arg.variadic ? ('*' as const) : i,
      values: encodeValues(arg.values),
    }))
    .filter((c) => c.values || catchAll);
}
