// The one reading of the command line before commander parses it: which words are commands and which global
// options were given. The launcher uses it to pick a code cache (src/boot.ts), the runtime to load only the
// command group named and to print an early error as asked (-v, --no-color). It skips the values of the
// global options that take one, as commander does: in `dlake -p job catalog ls` the group is `catalog`, and
// `job` is the profile's name.
import { GLOBAL_OPTIONS } from './global-options.js';

export interface ScannedArgv {
  /**
   * The words that are not options nor option values, in order, with those after `--`: `['catalog', 'ls',
   * 'Samples']`. The first is the command group.
   */
  words: string[];
  /** Where each of `words` is in the arguments. */
  at: number[];
  /** The global options given before `--`, by their long name: `--profile`, `--no-color`, `--verbose`. */
  globals: Set<string>;
  /** Where `--` is (words from there on are operands whatever they look like); else the arguments' length. */
  operandsFrom: number;
}

/** The global options' flags, short and long, each with its long name and whether it takes a value. */
const FLAGS = new Map<string, { long: string; takesValue: boolean }>();
for (const { flags } of GLOBAL_OPTIONS) {
  const names = flags.split(/[ ,]+/).filter((f) => f.startsWith('-'));
  const long = names.find((n) => n.startsWith('--')) ?? names[0]!;
  const takesValue = /<[^>]+>|\[[^\]]+\]/.test(flags);
  for (const name of names) FLAGS.set(name, { long, takesValue });
}
FLAGS.set('-h', { long: '--help', takesValue: false });
FLAGS.set('--help', { long: '--help', takesValue: false });
FLAGS.set('-V', { long: '--version', takesValue: false });
FLAGS.set('--version', { long: '--version', takesValue: false });

/**
 * `args`: the command line without node and the script (`process.argv.slice(2)`). Options of subcommands are
 * not known here; they come after the command words they belong to, so they never hide one.
 */
export function scanArgv(args: readonly string[]): ScannedArgv {
  const scanned: ScannedArgv = { words: [], at: [], globals: new Set(), operandsFrom: args.length };
  const word = (i: number) => {
    scanned.words.push(args[i]!);
    scanned.at.push(i);
  };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') {
      scanned.operandsFrom = i;
      for (let j = i + 1; j < args.length; j++) word(j);
      break;
    }
    if (!arg.startsWith('-') || arg === '-') {
      word(i);
      continue;
    }
    if (arg.startsWith('--')) {
      const [name] = arg.split('=', 1) as [string];
      const flag = FLAGS.get(name);
      if (!flag) continue;
      scanned.globals.add(flag.long);
      // `--profile x` takes the next word; `--profile=x` holds its value.
      if (flag.takesValue && !arg.includes('=')) i++;
      continue;
    }
    // Short flags, alone or together (`-qv`, `-qp job`, `-pjob`): a flag that takes a value takes the rest of
    // the group, or the next word when it ends the group.
    for (let k = 1; k < arg.length; k++) {
      const flag = FLAGS.get(`-${arg[k]}`);
      if (!flag) break;
      scanned.globals.add(flag.long);
      if (flag.takesValue) {
        if (k === arg.length - 1) i++;
        break;
      }
    }
  }
  return scanned;
}

/**
 * The command group a command line runs, or asks the help of (`dlake help catalog ls`): the first word, or
 * the word after `help`.
 */
export function commandGroup({ words }: ScannedArgv): string | undefined {
  return words[0] === 'help' ? words[1] : words[0];
}

/** Options of a subcommand that share a global option's name, by command path (runtime.ts parseOptions). */
const OWNED_OPTIONS: Record<string, string[]> = {
  'job wait': ['--timeout'],
  // `dlake mcp --profile a --profile b`: the profiles the agent may use; `-p a` before `mcp` stays global.
  mcp: ['--profile', '-p'],
  // `dlake diff -p A -p B`: the two estates compared.
  diff: ['--profile', '-p'],
  // `dlake agents install --profile a`: the profiles the hosts' `dlake mcp` will get, as for mcp.
  'agents install': ['--profile', '-p'],
};

/** The options the command at `path` (`mcp`, `job wait`) owns although a global option has their names. */
export function ownedOptions(path: string): readonly string[] | undefined {
  return OWNED_OPTIONS[path];
}

/** The command of `words` owns `-p` (the profiles it is given are its own, never a fleet: src/fleet.ts). */
export function ownsProfileOption(words: readonly string[]): boolean {
  const paths = [words[0], words.length > 1 ? `${words[0]} ${words[1]}` : undefined];
  return paths.some((p) => p !== undefined && OWNED_OPTIONS[p]?.includes('-p'));
}
