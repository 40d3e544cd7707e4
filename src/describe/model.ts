// The command tree as data, for `dlake describe` and the agents that read it: read off commander's own objects
// (the same declarations that parse the command line, src/commands/define.ts), so it cannot drift from what
// `--help` prints and the parser accepts.
import type { EventEmitter } from 'node:events';
import type { Argument, CommandUnknownOpts as Command, Option } from '@commander-js/extra-typings';
import { exitCodes } from '../errors.js';

export interface OptionInfo {
  /** `--output`; null for an option with a short name only (dlake has none). */
  long: string | null;
  short: string | null;
  description: string;
  takesValue: boolean;
  /** The closed set of values it accepts, else null. */
  choices: string[] | null;
  /** The default commander fills in, else null (defaults the command computes are in the description). */
  default: unknown;
  /** The environment variable that stands for it, else null. */
  env: string | null;
}

interface ArgumentInfo {
  name: string;
  description: string;
  required: boolean;
  variadic: boolean;
  choices: string[] | null;
}

export interface CommandInfo {
  /** The words after `dlake`: `["job", "list"]`. */
  path: string[];
  /** One line, as the help of the command's parent lists it. */
  summary: string;
  /** What the command's own help says it does. */
  description: string;
  /** Other names of its last word (`profile ls`). */
  aliases: string[];
  arguments: ArgumentInfo[];
  options: OptionInfo[];
  /** The command lines of its help's "Examples:", without the `$ `. */
  examples: string[];
  /** A group's commands, by name, as its help lists them; none for a command that runs. */
  subcommands: string[];
}

export interface Description {
  exitCodes: { code: number; meaning: string }[];
  globalOptions: OptionInfo[];
  commands: CommandInfo[];
}

/** `(env: DLAKE_PROFILE)` or `(env: DLAKE_DEBUG=1)` in a description: the variable's name. */
const ENV_IN_TEXT = /\(env: ([A-Z][A-Z0-9_]*)/;

function optionInfo(o: Option): OptionInfo {
  return {
    long: o.long ?? null,
    short: o.short ?? null,
    description: o.description,
    takesValue: Boolean(o.required || o.optional),
    choices: o.argChoices ? [...o.argChoices] : null,
    default: o.defaultValue ?? null,
    env: o.envVar ?? ENV_IN_TEXT.exec(o.description)?.[1] ?? null,
  };
}

function argumentInfo(a: Argument): ArgumentInfo {
  return {
    name: a.name(),
    description: a.description,
    required: a.required,
    variadic: a.variadic,
    choices: a.argChoices ? [...a.argChoices] : null,
  };
}

/** The options a command's help lists as its own: visible ones, without --help. */
function ownOptions(cmd: Command): Option[] {
  const help = cmd.createHelp();
  return help.visibleOptions(cmd).filter((o) => o.long !== '--help');
}

/** The text `addHelpText('after', …)` adds to a command's help (commander keeps it as a listener). */
export function helpAfter(cmd: Command): string {
  let after = '';
  (cmd as unknown as EventEmitter).emit('afterHelp', {
    error: false,
    command: cmd,
    write: (s: string) => {
      after += s;
    },
  });
  return after;
}

/** The `$ …` lines of a command's "Examples:" block. */
function examplesOf(cmd: Command): string[] {
  const lines = helpAfter(cmd).split('\n');
  const at = lines.findIndex((l) => l.trim() === 'Examples:');
  if (at < 0) return [];
  const out: string[] = [];
  for (const line of lines.slice(at + 1)) {
    const m = /^\s+\$ (.*)$/.exec(line);
    if (m) out.push(m[1]!.trimEnd());
    else if (line.trim() !== '') break;
  }
  return out;
}

const visible = (cmd: Command) => cmd.commands.filter((c) => !(c as { _hidden?: boolean })._hidden);

function commandInfo(cmd: Command, path: string[]): CommandInfo {
  return {
    path,
    summary: cmd.summary() || (cmd.description().split('\n')[0] ?? ''),
    description: cmd.description(),
    aliases: cmd.aliases(),
    arguments: cmd.registeredArguments.map(argumentInfo),
    options: ownOptions(cmd).map(optionInfo),
    examples: examplesOf(cmd),
    subcommands: visible(cmd).map((c) => c.name()),
  };
}

/** The commands that run (not the groups they live in), in the order help lists them. */
export function* runnable(cmd: Command, path: string[] = []): Generator<[string[], Command]> {
  const subs = visible(cmd);
  if (subs.length === 0 && path.length > 0) yield [path, cmd];
  for (const sub of subs) yield* runnable(sub, [...path, sub.name()]);
}

/** Every node help lists below `cmd`, groups and the commands that run, each group before its commands. */
function* nodesBelow(cmd: Command, path: string[]): Generator<[string[], Command]> {
  for (const sub of visible(cmd)) {
    yield [[...path, sub.name()], sub];
    yield* nodesBelow(sub, [...path, sub.name()]);
  }
}

/**
 * The command `words` name under `root` (names or aliases), or undefined with the first word that names
 * nothing.
 */
export function findCommand(
  root: Command,
  words: string[],
): { cmd: Command; path: string[] } | { unknown: string; at: Command } {
  let cmd = root;
  const path: string[] = [];
  for (const word of words) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (!sub) return { unknown: word, at: cmd };
    cmd = sub;
    path.push(sub.name());
  }
  return { cmd, path };
}

/** The description of `cmd` and every node below it (the root: the whole tree, groups included). */
export function describeTree(root: Command, cmd: Command = root, path: string[] = []): Description {
  const nodes = [...(path.length > 0 ? [[path, cmd] as [string[], Command]] : []), ...nodesBelow(cmd, path)];
  const commands = nodes.map(([p, c]) => commandInfo(c, p));
  const globalOptions = ownOptions(root)
    .filter((o) => o.long !== '--version')
    .map(optionInfo);
  return { exitCodes: exitCodes().map(({ code, meaning }) => ({ code, meaning })), globalOptions, commands };
}
