// Builds the commander tree with the global options of cli.md, runs it, and is the one place that turns
// errors into `error:`/`hint:` lines and exit codes.
import { Command, CommanderError, Option } from 'commander';
import { choiceOption } from './commands/options.js';
import { GROUPS, registerGroups } from './commands/registry.js';
import { OUTPUT_FORMATS } from './config/schema.js';
import { Context, type GlobalOptions } from './context.js';
import { DlakeError, ExitCode, InterruptedError } from './errors.js';
import { colorEnabled, theme } from './output/color.js';
import type { Streams } from './output/ui.js';
import { nearest } from './util/nearest.js';

export interface World {
  env: NodeJS.ProcessEnv;
  streams: Streams;
}

/** Commander's Command, remembering which command reported a usage error (for the usage line). */
class DlakeCommand extends Command {
  static failed?: Command;

  override createCommand(name?: string): Command {
    return new DlakeCommand(name);
  }

  override error(message: string, errorOptions?: { code?: string; exitCode?: number }): never {
    DlakeCommand.failed = this;
    return super.error(message, errorOptions);
  }
}

/** What commands get: their Context (created on first use, from the global options in force). */
export class Runtime {
  private ctx?: Context;

  constructor(readonly world: World) {}

  /** Wraps a command handler: `(ctx, ...commanderArgs)`, where the last of those is the options object. */
  action<A extends unknown[]>(fn: (ctx: Context, ...args: A) => Promise<void>) {
    return async (...args: unknown[]): Promise<void> => {
      const cmd = args.at(-1) as Command;
      const ctx = this.context(cmd.optsWithGlobals() as GlobalOptions);
      await fn(ctx, ...(args.slice(0, -1) as A));
    };
  }

  context(opts: GlobalOptions): Context {
    this.ctx ??= new Context(opts, this.world.env, this.world.streams);
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
  const program = new DlakeCommand('dlake');
  if (withVersion) program.version(__DLAKE_VERSION__, '-V, --version', 'print the version');
  program
    .description(
      'Administer a Data Lake Query Service: catalog, sources, SQL jobs, users, tokens and queues.',
    )
    .helpOption('-h, --help', 'show help')
    .addOption(new Option('-p, --profile <name>', 'profile to use (env: DLAKE_PROFILE)'))
    .addOption(new Option('--url <url>', 'service base URL (env: DLAKE_URL)'))
    .addOption(new Option('--auth-url <url>', 'base URL of the token endpoint (env: DLAKE_AUTH_URL)'))
    .addOption(choiceOption('-o, --output <format>', 'output format', OUTPUT_FORMATS))
    .addOption(new Option('--json', 'shorthand for -o json'))
    .addOption(new Option('--query <jmespath>', 'filter the JSON result with a JMESPath expression'))
    .addOption(new Option('-q, --quiet', 'print data and errors only'))
    .addOption(new Option('-v, --verbose', "print more detail (e.g. the service's moreInfo)"))
    .addOption(new Option('--debug', 'trace HTTP exchanges on stderr, secrets redacted (env: DLAKE_DEBUG=1)'))
    .addOption(new Option('--no-color', 'disable colour (also NO_COLOR)'))
    .addOption(new Option('--timeout <duration>', 'per-request timeout, e.g. 30s (env: DLAKE_TIMEOUT)'))
    .addOption(new Option('--ca-file <path>', 'extra trusted CA certificates, PEM (env: DLAKE_CA_FILE)'))
    .addOption(new Option('--insecure', 'skip TLS certificate verification (prints a warning)'))
    .commandsGroup('Other:')
    .helpCommand('help [command]', 'show help for a command')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => rt.world.streams.stdout.write(s),
      writeErr: (s) => rt.world.streams.stderr.write(s),
      // Usage errors are printed by reportError, with the usage line of the failing command.
      outputError: () => {},
    })
    .addHelpText(
      'after',
      `
Examples:
  $ dlake login --url https://lake.example.com -u alice
  $ dlake catalog ls
  $ dlake sql "SELECT * FROM Samples.sales.\\"2024.csv\\"" --out sales.csv
  $ DLAKE_CLIENT_ID=… DLAKE_CLIENT_SECRET=… dlake job export ID --out rows.csv

Run \`dlake COMMAND --help\` for a command's options and examples.`,
    );
  return program;
}

/** The top-level groups named on the command line: they are the only ones loaded. */
export function groupsNamed(args: string[]): Set<string> | 'all' {
  const names = new Set(GROUPS.map((g) => g.name));
  const words = args.filter((a) => !a.startsWith('-'));
  if (words[0] === 'completion' || (words[0] === 'help' && !words[1])) return 'all';
  const first = words[0] === 'help' ? words[1] : words.find((w) => names.has(w));
  return new Set(first ? [first] : []);
}

export async function runCli(argv: string[], world: World): Promise<number> {
  const rt = new Runtime(world);
  const args = argv.slice(2);
  const groups = args.length === 0 ? new Set<string>() : groupsNamed(args);
  const program = buildRoot(rt, groups === 'all' || groups.size === 0);
  await registerGroups(program, rt, groups);
  const onSigint = () => {
    const ctx = rt.current;
    if (ctx?.interruptible && !ctx.interrupt.signal.aborted) return ctx.interrupt.abort();
    // Nothing to clean up (or a second Ctrl-C): stop now, as a shell user expects.
    world.streams.stderr.write('\nerror: interrupted\n');
    process.exit(ExitCode.interrupted);
  };
  process.on('SIGINT', onSigint);
  try {
    if (args.length === 0) {
      program.outputHelp();
      return ExitCode.ok;
    }
    if (args[0] === 'help' && args.length > 1) {
      helpFor(program, args.slice(1));
      return ExitCode.ok;
    }
    await program.parseAsync(argv);
    return ExitCode.ok;
  } catch (err) {
    return reportError(err, rt, world);
  } finally {
    process.off('SIGINT', onSigint);
    await rt.current?.dispose();
  }
}

/**
 * `dlake help catalog ls`: the help of the command those words name, at any depth (commander's own help
 * command looks at one word only). A word that names no command is a usage error with a suggestion.
 */
function helpFor(program: Command, words: string[]): void {
  let cmd = program;
  for (const word of words.filter((w) => !w.startsWith('-'))) {
    const sub = cmd.commands.find((c) => c.name() === word || c.aliases().includes(word));
    if (sub) {
      cmd = sub;
      continue;
    }
    const near = nearest(
      word,
      cmd.commands.map((c) => c.name()),
    );
    cmd.error(`unknown command '${word}'${near ? `\n(Did you mean ${near}?)` : ''}`, {
      code: 'commander.unknownCommand',
      exitCode: ExitCode.usage,
    });
  }
  cmd.outputHelp();
}

function reportError(err: unknown, rt: Runtime, world: World): number {
  const { stderr } = world.streams;
  const ctx = rt.current;
  const t =
    ctx?.theme ?? theme(colorEnabled(Boolean(stderr.isTTY), world.env, process.argv.includes('--no-color')));
  const line = (label: string, text: string) => stderr.write(`${label} ${text}\n`);
  if (err instanceof CommanderError) {
    if (
      err.code === 'commander.helpDisplayed' ||
      err.code === 'commander.version' ||
      err.code === 'commander.help'
    ) {
      return ExitCode.ok;
    }
    line(t.danger('error:'), err.message.replace(/^error:\s*/, ''));
    const cmd = DlakeCommand.failed;
    if (cmd) {
      const path: string[] = [];
      for (let c: Command | null = cmd; c; c = c.parent) path.unshift(c.name());
      stderr.write(`usage: ${path.join(' ')} ${cmd.usage()}\n`);
      line(t.accent('hint:'), `run \`${path.join(' ')} --help\` for options and examples`);
    }
    return ExitCode.usage;
  }
  if (err instanceof DlakeError) {
    if (err instanceof InterruptedError) {
      line(t.danger('error:'), err.message);
      return err.exitCode;
    }
    line(t.danger('error:'), err.message);
    for (const d of err.details) stderr.write(`  ${d}\n`);
    if (err.moreInfo && (ctx?.opts.verbose || ctx?.debugging)) stderr.write(`  ${err.moreInfo}\n`);
    if (err.hint) line(t.accent('hint:'), err.hint);
    if (ctx?.debugging && err.cause) stderr.write(`${String((err.cause as Error)?.stack ?? err.cause)}\n`);
    return err.exitCode;
  }
  line(t.danger('error:'), `unexpected failure: ${(err as Error)?.message ?? String(err)}`);
  if (ctx?.debugging) stderr.write(`${(err as Error)?.stack ?? ''}\n`);
  else line(t.accent('hint:'), 'this is a bug in dlake; run again with --debug for the details');
  return ExitCode.bug;
}
