// Builds the commander tree with the global options of docs/cli-contract.md "Global options, environment and
// precedence", runs it, and is the one place that turns errors into `error:`/`hint:` lines and exit codes.
import {
  Command,
  CommanderError,
  type CommandUnknownOpts,
  type HelpContext,
  Option,
} from '@commander-js/extra-typings';
import { commandGroup, ownedOptions, type ScannedArgv, scanArgv } from './argv.js';
import { versionText } from './build-info.js';
import type { CommandRuntime } from './commands/define.js';
import { fitExamples, HELP_WIDTH, rootHelpEnd, rootHelpSettings } from './commands/help-layout.js';
import { GLOBAL_OPTIONS_POINTER, HELP_TOPICS } from './commands/help-topics.js';
import { choiceOption } from './commands/options.js';
import { GROUPS, registerGroups } from './commands/registry.js';
import { configDir } from './config/dir.js';
import { ConfigStore } from './config/store.js';
import { Context, type World } from './context.js';
import {
  DlakeError,
  ExitCode,
  InterruptedError,
  QuietExit,
  STOP_SIGNALS,
  type StopSignal,
} from './errors.js';
import {
  GLOBAL_OPTIONS,
  type GlobalOptionSpec,
  type GlobalOptions,
  type OutputFormat,
} from './global-options.js';
import { colorEnabled, theme } from './output/color.js';
import { hintFor, sayFailure } from './output/hints.js';
import { bounded, stderrSafe } from './output/safe-text.js';
import { redactingStreams } from './output/secrets.js';
import { terminalWidth, wrapWords } from './output/width.js';
import { nearest } from './util/nearest.js';
import { SecretsInForce, withSecrets } from './util/secrets.js';

/** What one run of dlake remembers about its commander tree. */
interface RunState {
  /** The command that reported a usage error (for the usage line). */
  failed?: CommandUnknownOpts;
  /** The end of what commander last wrote to stdout (help), to set the help's last line apart by one blank line. */
  outTail?: string;
}

/** Commander's Command, remembering in the run's state which command reported a usage error. */
class DlakeCommand extends Command {
  constructor(
    private readonly run: RunState,
    name?: string,
  ) {
    super(name);
  }

  override createCommand(name?: string): Command {
    return new DlakeCommand(this.run, name);
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    this.run.failed = this;
    return super.error(message, errorOptions);
  }

  /**
   * A group named without a verb (`dlake catalog`) asks for its help: printed to stdout with exit 0, as
   * `dlake` alone and `--help` are (commander would print it to stderr, as an error).
   */
  override help(context?: HelpContext | ((text: string) => string)): never {
    if (typeof context === 'function') return super.help(context);
    return super.help(context?.error ? undefined : context);
  }

  /**
   * An unknown verb: the nearest verb of the group when one is close, else the verbs it has
   * (`dlake job list` names `job`'s verbs).
   */
  unknownCommand(): never {
    return this.unknownVerb(this.args[0] ?? '');
  }

  /** `word` names none of this command's verbs (also for `dlake help WORDS…`). */
  unknownVerb(word: string): never {
    const verbs = this.createHelp()
      .visibleCommands(this)
      .filter((c) => c.name() !== 'help');
    const names = verbs.flatMap((c) => [c.name(), ...c.aliases()]);
    const near = nearest(word, names);
    const path = commandPath(this);
    const tail = near
      ? `\n(Did you mean ${path} ${near}?)`
      : `\n${path} has: ${verbs.map((c) => c.name()).join(', ')}`;
    return this.error(`unknown command '${word}' for '${path}'${tail}`, {
      code: 'commander.unknownCommand',
      exitCode: ExitCode.usage,
    });
  }

  /**
   * Commander lets the root take its options anywhere on the line, so a subcommand option with the name of a
   * global one never reaches the subcommand. The few subcommands that own such a name get the tokens after their
   * own name: `job wait ID --timeout 10m` bounds the wait, while `dlake --timeout 5s job wait ID` (before the
   * command) stays the per-request timeout.
   */
  override parseOptions(argv: string[]): { operands: string[]; unknown: string[] } {
    if (this.parent) return super.parseOptions(argv);
    const at = commandPathEnd(argv);
    const owned = at === undefined ? undefined : ownedOptions(at.path);
    if (!at || !owned) return super.parseOptions(argv);
    const mine: string[] = [];
    const rest = argv.slice(0, at.end);
    for (let i = at.end; i < argv.length; i++) {
      const arg = argv[i]!;
      if (arg === '--') {
        rest.push(...argv.slice(i));
        break;
      }
      const name = arg.split('=')[0]!;
      if (!owned.includes(name)) {
        rest.push(arg);
      } else if (arg.includes('=')) {
        mine.push(arg);
      } else {
        // The option and its value (commander reports a missing value itself).
        mine.push(arg, ...argv.slice(i + 1, i + 2));
        i++;
      }
    }
    const parsed = super.parseOptions(rest);
    return { operands: parsed.operands, unknown: [...parsed.unknown, ...mine] };
  }
}

/**
 * The command words that own options (ownedOptions, src/argv.ts) and where they end, when they come before any `--`: the
 * first word when it is such a command of its own (`mcp`), else the first two.
 */
function commandPathEnd(argv: string[]): { path: string; end: number } | undefined {
  const { words, at, operandsFrom } = scanArgv(argv);
  if (words.length >= 1 && ownedOptions(words[0]!) && at[0]! < operandsFrom) {
    return { path: words[0]!, end: at[0]! + 1 };
  }
  if (words.length < 2 || at[1]! >= operandsFrom) return undefined;
  return { path: `${words[0]} ${words[1]}`, end: at[1]! + 1 };
}

/** `dlake catalog ls` for the `ls` command of `catalog`. */
function commandPath(cmd: CommandUnknownOpts): string {
  const path: string[] = [];
  for (let c: CommandUnknownOpts | null = cmd; c; c = c.parent) path.unshift(c.name());
  return path.join(' ');
}

/** What commands get: their Context (created on first use, from the global options in force). */
export class Runtime implements CommandRuntime {
  private ctx?: Context;
  /** This run's commander state (not static: runs in one process, such as in-process tests, share nothing). */
  readonly state: RunState = {};

  constructor(readonly world: World) {}

  /** Wraps a command handler: `(ctx, ...commanderArgs)`, where the last of those is the options object. */
  action<A extends unknown[]>(fn: (ctx: Context, ...args: A) => Promise<void>) {
    return async (...args: unknown[]): Promise<void> => {
      let root = args.at(-1) as CommandUnknownOpts;
      while (root.parent) root = root.parent;
      // The root's own options only: a subcommand's option that shares a global's name (`job wait --timeout`)
      // must not replace the global in the Context.
      const ctx = await this.context(root.opts() as GlobalOptions);
      await fn(ctx, ...(args.slice(0, -1) as A));
    };
  }

  private async context(opts: GlobalOptions): Promise<Context> {
    this.ctx ??= await Context.create(opts, this.world);
    return this.ctx;
  }

  get current(): Context | undefined {
    return this.ctx;
  }
}

/**
 * The root command and its global options. `withVersion` registers `-V, --version` only when no command
 * is named: commander recognises root options anywhere on the line, and `user delete bob --version TAG`
 * must reach the command (a bare `dlake --version` is answered in cli.ts before this is built).
 */
export function buildRoot(rt: Runtime, withVersion = true): Command {
  const program = new DlakeCommand(rt.state, 'dlake');
  if (withVersion) program.version(versionText().trimEnd(), '-V, --version', 'print the version and build');
  const helpWidth = () => terminalWidth(rt.world.streams.stdout, rt.world.env) ?? HELP_WIDTH;
  program
    .description(
      'Administer a Data Lake Query Service: catalog, sources, SQL jobs, users, tokens and queues.',
    )
    .usage('<command> [options]')
    .helpOption('-h, --help', 'show help')
    .configureHelp(rootHelpSettings());
  for (const { flags, help, choices } of GLOBAL_OPTIONS as readonly GlobalOptionSpec[]) {
    program.addOption(choices ? choiceOption(flags, help, choices) : new Option(flags, help));
  }
  program
    .commandsGroup('Other:')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => {
        rt.state.outTail = s.slice(-2);
        return rt.world.streams.stdout.write(fitExamples(s, helpWidth()));
      },
      getOutHelpWidth: helpWidth,
      writeErr: (s) => rt.world.streams.stderr.write(s),
      // Usage errors are printed by reportError, with the usage line of the failing command.
      outputError: () => {},
    })
    .addHelpText('after', () => rootHelpEnd(helpWidth()))
    // The global options are listed once, above and by `dlake help global-options`; each command's help ends
    // with one line pointing there rather than repeating them (as kubectl does), so that its examples fit a screen.
    .addHelpText('afterAll', ({ command }) =>
      command === program
        ? ''
        : `${rt.state.outTail === '\n\n' ? '' : '\n'}${wrapWords(GLOBAL_OPTIONS_POINTER, helpWidth()).join('\n')}`,
    );
  return program;
}

/** The top-level groups the command line names: the only ones loaded (help and completion need them all). */
function groupsNamed(scanned: ScannedArgv): Set<string> | 'all' {
  const { words } = scanned;
  if (words[0] === 'completion' || (words[0] === 'help' && !words[1])) return 'all';
  // `dlake describe job list` needs the group it describes; `dlake describe` alone, all of them.
  if (words[0] === 'describe') {
    const described = words.slice(1).find((w) => GROUPS.some((g) => g.name === w));
    return described ? new Set(['describe', described]) : 'all';
  }
  // `dlake agents install` writes a skill generated from the whole command tree.
  if (words[0] === 'agents' && words[1] === 'install') return 'all';
  const group = commandGroup(scanned);
  return new Set(GROUPS.some((g) => g.name === group) ? [group!] : []);
}

export async function runCli(argv: string[], given: World): Promise<number> {
  // Every text this run writes hides the secrets in force (src/output/secrets.ts): those of the environment
  // from the start, and each that a request sends from then on.
  const secrets = new SecretsInForce();
  secrets.add(given.env.DLAKE_TOKEN);
  secrets.add(given.env.DLAKE_CLIENT_SECRET);
  const world: World = { ...given, streams: redactingStreams(given.streams, secrets) };
  return withSecrets(secrets, () => run(argv, world));
}

async function run(argv: string[], world: World): Promise<number> {
  const rt = new Runtime(world);
  const args = argv.slice(2);
  const scanned = scanArgv(args);
  if (scanned.globals.has('--profile') && !world.collect) {
    try {
      const ran = await runAcrossProfiles(args, scanned, world);
      if (ran !== undefined) return ran;
    } catch (err) {
      return await reportError(err, rt, world, scanned);
    }
  }
  const groups = args.length === 0 ? new Set<string>() : groupsNamed(scanned);
  const program = buildRoot(rt, groups === 'all' || groups.size === 0);
  await registerGroups(program, rt, groups);
  // Ctrl-C, SIGTERM (CI runners, `docker stop`, Kubernetes) and SIGHUP (the terminal went away) get the
  // same clean-up: a command waiting on a job or exporting stops through `ctx.interrupt` and cleans up;
  // anything else stops at once. Each ends with its own exit code (130, 143, 129).
  const onSignal = (signal: StopSignal) => {
    const ctx = rt.current;
    if (ctx?.interruptible && !ctx.interrupt.signal.aborted) {
      ctx.interruptedBy = signal;
      return ctx.interrupt.abort();
    }
    // Nothing to clean up (or a second signal): stop now, as a shell user expects, naming the job that the
    // clean-up may not have cancelled yet.
    const job = ctx?.jobInFlight;
    world.streams.stderr.write(`\nerror: ${interruptedWord(signal)}\n`);
    if (job) {
      world.streams.stderr.write(
        `hint: job ${job} may still be running on the service; cancel it with \`dlake job cancel ${job}\`\n`,
      );
    }
    process.exit(STOP_SIGNALS[signal]);
  };
  // A CI job stopped (SIGTERM) cleans up as Ctrl-C does: an export keeps what it can for --resume.
  const handlers = (Object.keys(STOP_SIGNALS) as StopSignal[]).map((signal) => {
    const handler = () => onSignal(signal);
    process.on(signal, handler);
    return [signal, handler] as const;
  });
  try {
    if (args.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    if (scanned.words[0] === 'help' && scanned.words.length > 1) {
      helpFor(program, scanned.words.slice(1));
      return ExitCode.ok;
    }
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (err) {
    return await reportError(err, rt, world, scanned);
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
    await rt.current?.dispose();
  }
}

/**
 * A command line whose -p names several profiles (or a glob): run once per profile and merged (src/fleet.ts).
 * Undefined when it names one profile: the command runs as usual.
 */
async function runAcrossProfiles(
  args: string[],
  scanned: ScannedArgv,
  world: World,
): Promise<number | undefined> {
  const { fleetOf, runFleet } = await import('./fleet.js');
  const stored = (): string[] => {
    const store = world.store ?? new ConfigStore(configDir(world.env));
    return Object.keys(store.read().config.profiles);
  };
  const fleet = fleetOf(args, scanned.words, stored);
  if (!fleet) return undefined;
  const [{ writeFleet }, { terminalWidth }] = await Promise.all([
    import('./output/fleet.js'),
    import('./output/width.js'),
  ]);
  const value = (...names: string[]) => {
    let found: string | undefined;
    for (let i = 0; i < scanned.operandsFrom; i++) {
      const [name, inline] = args[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
      if (names.includes(name)) found = inline ?? args[i + 1];
    }
    return found;
  };
  const noColor = scanned.globals.has('--no-color');
  const format = (
    scanned.globals.has('--json') ? 'json' : (value('-o', '--output') ?? 'table')
  ) as OutputFormat;
  return runFleet(fleet, scanned.words, world, runCli, async (runs) =>
    writeFleet(runs, {
      streams: world.streams,
      theme: await theme(colorEnabled(Boolean(world.streams.stdout.isTTY), world.env, noColor)),
      width: terminalWidth(world.streams.stdout, world.env),
      query: value('--query'),
      format,
    }),
  );
}

/**
 * `dlake help catalog ls`: the help of the command those words name, at any depth (commander's own help
 * command looks at one word only), or a topic (`dlake help exit-codes`). A word that names no command is a
 * usage error with a suggestion.
 */
function helpFor(program: Command, words: string[]): void {
  const topic = words.length === 1 ? HELP_TOPICS[words[0]!] : undefined;
  if (topic) {
    program.configureOutput().writeOut?.(topic.text(program));
    return;
  }
  let cmd: CommandUnknownOpts = program;
  for (const word of words) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      continue;
    }
    (cmd as DlakeCommand).unknownVerb(word);
  }
  cmd.outputHelp();
}

/** `interrupted` for Ctrl-C, `terminated (SIGTERM)`, `hung up (SIGHUP)`. */
function interruptedWord(signal: StopSignal): string {
  return signal === 'SIGTERM'
    ? 'terminated (SIGTERM)'
    : signal === 'SIGHUP'
      ? 'hung up (SIGHUP)'
      : 'interrupted';
}

async function reportError(err: unknown, rt: Runtime, world: World, scanned: ScannedArgv): Promise<number> {
  const { stderr } = world.streams;
  const ctx = rt.current;
  const given = scanned.globals;
  const t =
    ctx?.theme ?? (await theme(colorEnabled(Boolean(stderr.isTTY), world.env, given.has('--no-color'))));
  // The service's words and the user's input are made safe for the terminal; long texts are cut without -v
  // (docs/cli-contract.md "Errors").
  const verbose = Boolean(ctx?.opts.verbose || ctx?.debugging) || given.has('--verbose');
  const line = (label: string, text: string) =>
    stderr.write(`${label} ${stderrSafe(bounded(text, verbose))}\n`);
  if (err instanceof CommanderError) {
    if (
      err.code === 'commander.helpDisplayed' ||
      err.code === 'commander.version' ||
      err.code === 'commander.help'
    ) {
      return ExitCode.ok;
    }
    line(t.danger('error:'), commanderWords(err));
    const cmd = rt.state.failed;
    if (cmd) {
      const path = commandPath(cmd);
      stderr.write(`usage: ${path} ${cmd.usage()}\n`);
      line(t.accent('hint:'), `run \`${path} --help\` for options and examples`);
    }
    return ExitCode.usage;
  }
  if (err instanceof QuietExit) return err.exitCode;
  if (err instanceof DlakeError) {
    if (err instanceof InterruptedError) {
      // The clean-up was the same for every signal; the words and the exit code say which one it was.
      const signal = ctx?.interruptedBy ?? 'SIGINT';
      line(t.danger('error:'), err.message.replace(/^interrupted/, interruptedWord(signal)));
      // Only a hint of what to do next (an export's --resume); never a detail or a stack.
      const hint = hintFor(err, ctx?.opts);
      if (hint) line(t.accent('hint:'), hint);
      return STOP_SIGNALS[signal];
    }
    sayFailure(err, { streams: world.streams, theme: t, verbose, opts: ctx?.opts });
    if (ctx?.debugging && err.cause) stderr.write(`${String((err.cause as Error)?.stack ?? err.cause)}\n`);
    return err.exitCode;
  }
  line(t.danger('error:'), `unexpected failure: ${(err as Error)?.message ?? String(err)}`);
  if (ctx?.debugging) stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  else line(t.accent('hint:'), 'this is a bug in dlake; run again with --debug for the details');
  return ExitCode.bug;
}

/** commander's words for a usage error; a value outside an argument's choices said as the option parsers say it. */
function commanderWords(err: CommanderError): string {
  const choice =
    /^error: command-argument value '(.*)' is invalid for argument '(.*)'\. Allowed choices are (.*)\.$/s.exec(
      err.message,
    );
  if (choice) return `<${choice[2]}> "${choice[1]}" is not one of: ${choice[3]}`;
  return err.message.replace(/^error:\s*/, '');
}

/**
 * The full command tree, as `dlake completion` sees it, for the scripts that write docs/commands.md and the
 * completion files: every group loaded. Nothing runs, so the streams are never written.
 */
export async function fullTree(): Promise<Command> {
  const rt = new Runtime({ env: {}, streams: process });
  const program = buildRoot(rt);
  await registerGroups(program, rt, 'all');
  return program;
}
