// What the completion scripts need to know about the command tree, read off commander's own objects so that
// the scripts can never disagree with the parser: names and aliases, options (which take a value, which are
// hidden), and the values an option or argument accepts.
import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';

/**
 * The values offered for an option or argument: a closed set (from `.choices()`), the profile names of the
 * local store (read when the user presses Tab, never from the network), or file names.
 */
export type Values = readonly string[] | 'profiles' | 'files';

export interface OptionSpec {
  /** Short and long spellings, e.g. `-p`, `--profile`. */
  names: string[];
  description: string;
  takes: 'flag' | 'value' | 'optional';
  values?: Values;
  /** Hidden options are never offered, but the scripts still know that they take a value. */
  hidden: boolean;
}

interface ArgumentSpec {
  values?: Values;
  variadic: boolean;
}

export interface CommandSpec {
  /** Canonical names from the root down, space-separated: `''` for the root, `'profile set'`. */
  key: string;
  name: string;
  aliases: string[];
  description: string;
  /**
   * Offered only when no other name matches what was typed: the `help` subcommand that commander adds to
   * every group (`dlake profile help`) is real but would clutter every group's list.
   */
  secondary: boolean;
  options: OptionSpec[];
  args: ArgumentSpec[];
  subcommands: CommandSpec[];
}

export interface CompletionModel {
  root: CommandSpec;
  /** The root's options, which commander accepts after any subcommand too (docs/cli-contract.md "Global
   * options, environment and precedence"). */
  globals: OptionSpec[];
}

/** Values no `.choices()` can declare because they live in the user's store. */
function dynamicValues(key: string, kind: 'option' | 'argument', name: string): Values | undefined {
  if (kind === 'option' && name === '--profile') return 'profiles';
  // `profile show|use|set|delete NAME`: an existing profile (set may also create one, but offering the
  // existing names is still the useful guess).
  if (kind === 'argument' && key.startsWith('profile ') && name === 'name') return 'profiles';
  return undefined;
}

/**
 * Options and arguments that name a file: `--ca-file <path>`, `--out <file>`, `--config-file <file>`, a
 * `<file>` argument. Not every `<path>`: `dlake api METHOD PATH` takes a URL path.
 */
function namesFile(placeholder: string, long = ''): boolean {
  return /^(file|dir|directory|folder)$/i.test(placeholder) || /-file$|^--(out|file)$/.test(long);
}

function optionSpec(key: string, option: Option): OptionSpec {
  const names = [option.short, option.long].filter((n): n is string => Boolean(n));
  const takes = option.required ? 'value' : option.optional ? 'optional' : 'flag';
  const placeholder = /[<[]([^>\]]*?)(\.\.\.)?[>\]]/.exec(option.flags)?.[1] ?? '';
  const values =
    takes === 'flag'
      ? undefined
      : (option.argChoices ??
        dynamicValues(key, 'option', option.long ?? '') ??
        (namesFile(placeholder, option.long) ? 'files' : undefined));
  return { names, description: summary(option.description), takes, values, hidden: option.hidden };
}

function argumentSpec(key: string, arg: Argument): ArgumentSpec {
  const values =
    arg.argChoices ??
    dynamicValues(key, 'argument', arg.name()) ??
    (namesFile(arg.name()) ? 'files' : undefined);
  return { values, variadic: arg.variadic };
}

function commandSpec(cmd: Command, key: string, secondary: boolean): CommandSpec {
  const help = cmd.createHelp();
  const visible = new Set(help.visibleOptions(cmd));
  // Hidden options stay in the model (the scripts must skip their values) but are marked as such.
  const options = [...cmd.options, ...[...visible].filter((o) => !cmd.options.includes(o))].map((o) => ({
    ...optionSpec(key, o),
    hidden: !visible.has(o),
  }));
  const subs = help.visibleCommands(cmd);
  const subcommands = subs.map((sub) => {
    // commander's implicit `help [command]` is not in cmd.commands; its argument is a sibling's name.
    const implicitHelp = !cmd.commands.includes(sub);
    const spec = commandSpec(sub, key ? `${key} ${sub.name()}` : sub.name(), implicitHelp && key !== '');
    if (implicitHelp) {
      const siblings = subs.filter((s) => s !== sub).map((s) => s.name());
      spec.args = [{ values: siblings, variadic: false }];
    }
    return spec;
  });
  return {
    key,
    name: cmd.name(),
    aliases: cmd.aliases(),
    description: summary(cmd.description()),
    secondary,
    options,
    args: cmd.registeredArguments.map((a) => argumentSpec(key, a)),
    subcommands,
  };
}

/** Reads the completion model off a fully registered root command. */
export function completionModel(program: Command): CompletionModel {
  const root = commandSpec(program, '', false);
  // --version answers anywhere, but offering it under every subcommand is noise; -h is each command's own.
  const globals = root.options.filter((o) => !o.names.includes('--version') && !o.names.includes('--help'));
  return { root, globals };
}

/** Every command of the tree, root first. */
export function* allCommands(cmd: CommandSpec): Generator<CommandSpec> {
  yield cmd;
  for (const sub of cmd.subcommands) yield* allCommands(sub);
}

/** The first line of a description, for the one-line hints of zsh and fish. */
function summary(text: string): string {
  return (text.split('\n')[0] ?? '').replace(/\s+/g, ' ').trim();
}
